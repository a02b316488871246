import { parsePatch } from 'diff';

/**
 * Reading the unified diffs a review is asked about, as people paste them: inside prose or a
 * Markdown fence, with CRLF line ends, or with a hunk trimmed by hand so that its line counts are
 * short. The format itself is parsed by the `diff` package's parsePatch; what is ours is making a
 * pasted diff one it accepts (see fitHunkCounts).
 */

/** The text holds no unified diff (no `@@` hunk), or one that cannot be read. */
export class NotADiffError extends Error {
  constructor(
    message = 'no unified diff found: expected file headers (`diff --git`, `---` / `+++`) and `@@` hunks in the question or an attachment',
  ) {
    super(message);
    this.name = 'NotADiffError';
  }
}

interface AddedLine {
  /** Line number in the new version of the file. */
  line: number;
  text: string;
}

export interface DiffFile {
  /** Path in the new version (the old one for a deleted file). */
  path: string;
  deleted: boolean;
  binary: boolean;
  hunks: number;
  added: AddedLine[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;
const HUNK_COUNTS = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/**
 * Rewrites each hunk header's line counts to the lines that follow it. While the header's counts
 * last, every line is the hunk's (a removed line starting with `--` is not a file header); past
 * them, lines that still start with `+`, `-`, ` ` or `\` belong to it too (a hand-trimmed hunk),
 * up to a file header (`--- ` then `+++ `) or anything else.
 */
function fitHunkCounts(lines: string[]): string[] {
  const out = [...lines];
  for (let i = 0; i < lines.length; i++) {
    const counts = HUNK_COUNTS.exec(lines[i]!);
    if (!counts) continue;
    let oldLeft = counts[1] === undefined ? 1 : Number(counts[1]);
    let newLeft = counts[2] === undefined ? 1 : Number(counts[2]);
    let oldLines = 0;
    let newLines = 0;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const open = oldLeft > 0 || newLeft > 0;
      const marker = line[0];
      const fileHeader = line.startsWith('--- ') && lines[j + 1]?.startsWith('+++ ');
      if (marker === '+' && (open || !line.startsWith('+++ '))) {
        newLines++;
        newLeft--;
      } else if (marker === '-' && (open || !fileHeader)) {
        oldLines++;
        oldLeft--;
      } else if (marker === ' ' || (open && line === '' && j < lines.length - 1)) {
        oldLines++;
        newLines++;
        oldLeft--;
        newLeft--;
      } else if (marker !== '\\') {
        break;
      }
    }
    out[i] = lines[i]!.replace(HUNK_COUNTS, (header) => {
      const [, oldStart, newStart] = HUNK_HEADER.exec(header)!;
      return `@@ -${oldStart},${oldLines} +${newStart},${newLines} @@`;
    });
    i = j - 1;
  }
  return out;
}

/** `a/src/app.ts` → `src/app.ts`; `/dev/null` stays as it is. */
const pathOf = (name: string | undefined) => (name === undefined || name === '/dev/null' ? name : name.replace(/^[ab]\//, ''));

/**
 * Files and added lines of every unified diff in `text` (prose and Markdown fences around it are
 * skipped). Throws NotADiffError for a diff parsePatch cannot read even after fitHunkCounts.
 */
export function readDiffFiles(text: string): DiffFile[] {
  const lines = fitHunkCounts(text.split('\n').map((l) => l.replace(/\r$/, '')));
  let patches: ReturnType<typeof parsePatch>;
  try {
    patches = parsePatch(lines.join('\n'));
  } catch (err) {
    throw new NotADiffError(`the unified diff could not be read: ${(err as Error).message}`);
  }
  return patches
    .filter((p) => p.hunks.length > 0 || p.oldFileName !== undefined || p.newFileName !== undefined)
    .map((patch) => {
      const newPath = pathOf(patch.newFileName);
      const oldPath = pathOf(patch.oldFileName);
      const deleted = newPath === '/dev/null' || patch.isDelete === true;
      const added: AddedLine[] = [];
      for (const hunk of patch.hunks) {
        let line = hunk.newStart;
        for (const text of hunk.lines) {
          if (text.startsWith('+')) added.push({ line: line++, text: text.slice(1) });
          else if (text.startsWith(' ') || text === '') line++;
        }
      }
      return {
        path: (deleted ? oldPath : newPath) ?? oldPath ?? '(unnamed)',
        deleted,
        binary: patch.isBinary === true,
        hunks: patch.hunks.length,
        added,
      };
    });
}
