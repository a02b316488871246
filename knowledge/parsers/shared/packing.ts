/**
 * Naive packing: passages laid into token-bounded chunks. A passage that fits in a chunk is never
 * split; a longer one is split between its units (sentences, items, rows), and a unit longer than a
 * whole chunk is split between sentences and then by tokens. Each chunk after the first may begin with
 * whole units repeated from the end of the previous one (the overlap).
 */
import { countTokens, splitByTokens } from '../../../common/tokens';
import type { Passage } from './passages';
import { splitSentences } from './sentences';

export interface PackingBudget {
  chunkTokens: number;
  /** Tokens of whole trailing units repeated at the start of the next chunk; 0 for none. */
  overlapTokens: number;
}

export interface PackedText {
  text: string;
  /** Pages of the chunk's own (not repeated) text, in order, when the source is paged. */
  pages: number[];
}

interface Piece {
  passage: number;
  unit: string;
  tokens: number;
  page?: number;
  /** A piece of a unit cut by tokens: never repeated as overlap, which is made of whole units only. */
  fragment?: boolean;
}

/** Chunks rendered from pieces: pieces of one passage run on, passages are separated by a blank line. */
function render(pieces: readonly Piece[]): string {
  const passages: string[] = [];
  let run = '';
  pieces.forEach((piece, index) => {
    if (index > 0 && piece.passage !== pieces[index - 1]!.passage) {
      passages.push(run.trim());
      run = '';
    }
    run += piece.unit;
  });
  if (pieces.length > 0) passages.push(run.trim());
  return passages.filter(Boolean).join('\n\n');
}

/**
 * An upper bound of `render`'s token count from the pieces' own counts, so that most additions need no
 * encoding: joining two texts costs at most one token more than their counts (measured on cl100k_base:
 * trailing spaces regroup), and a passage break adds the `\n\n` token too.
 */
function tokenBound(pieces: readonly Piece[]): number {
  let total = 0;
  pieces.forEach((piece, index) => {
    total += piece.tokens;
    if (index > 0) total += piece.passage === pieces[index - 1]!.passage ? 1 : 2;
  });
  return total;
}

function tokenSum(pieces: readonly Piece[]): number {
  return pieces.reduce((sum, piece) => sum + piece.tokens, 0);
}

class ChunkPacker {
  private readonly chunks: PackedText[] = [];
  private current: Piece[] = [];
  /** How many leading pieces of `current` repeat the previous chunk. */
  private repeated = 0;
  /** The previous chunk's own pieces, where the next overlap comes from. */
  private previous: Piece[] = [];
  private readonly chunkTokens: number;
  private readonly overlapTokens: number;

  constructor(budget: PackingBudget) {
    this.chunkTokens = Math.max(1, Math.floor(budget.chunkTokens));
    // An overlap as large as the chunk would leave no room for new text.
    this.overlapTokens = Math.max(0, Math.min(Math.floor(budget.overlapTokens), Math.floor(this.chunkTokens / 2)));
  }

  add(passage: Passage, index: number): void {
    const pieces = passage.units.map((unit) => this.piece(unit, index, passage.page));
    if (this.hasOwnText() && this.tryAppend(pieces)) return;
    if (this.fits(pieces)) {
      this.flush();
      this.start(pieces);
      return;
    }
    for (const piece of pieces.flatMap((whole) => this.withinBudget(whole))) {
      if (this.hasOwnText() && this.tryAppend([piece])) continue;
      this.flush();
      this.start([piece]);
    }
  }

  finish(): PackedText[] {
    this.flush();
    return this.chunks;
  }

  private piece(unit: string, passage: number, page?: number): Piece {
    return { passage, unit, tokens: countTokens(unit), page };
  }

  private hasOwnText(): boolean {
    return this.current.length > this.repeated;
  }

  private fits(pieces: readonly Piece[], limit = this.chunkTokens): boolean {
    if (tokenBound(pieces) <= limit) return true;
    // Only encode when the sum could be under the limit: merges at joins save at most a token or two.
    if (tokenSum(pieces) - 2 * pieces.length > limit) return false;
    return countTokens(render(pieces)) <= limit;
  }

  private tryAppend(pieces: readonly Piece[]): boolean {
    const candidate = [...this.current, ...pieces];
    if (!this.fits(candidate)) return false;
    this.current = candidate;
    return true;
  }

  /** Starts a chunk with `pieces`, after as much overlap as the budget leaves room for. */
  private start(pieces: readonly Piece[]): void {
    let overlap = this.overlapCandidates();
    while (overlap.length > 0 && !this.fits([...overlap, ...pieces])) overlap = overlap.slice(1);
    this.current = [...overlap, ...pieces];
    this.repeated = overlap.length;
  }

  /** The longest run of whole trailing units of the previous chunk within the overlap budget. */
  private overlapCandidates(): Piece[] {
    if (this.overlapTokens === 0) return [];
    let taken = 0;
    while (
      taken < this.previous.length &&
      !this.previous[this.previous.length - 1 - taken]!.fragment &&
      this.fits(this.previous.slice(-(taken + 1)), this.overlapTokens)
    ) {
      taken++;
    }
    return taken === 0 ? [] : this.previous.slice(-taken);
  }

  private flush(): void {
    if (this.hasOwnText()) {
      const own = this.current.slice(this.repeated);
      const pages = [...new Set(own.flatMap((piece) => (piece.page === undefined ? [] : [piece.page])))];
      const text = render(this.current);
      if (text) this.chunks.push({ text, pages });
      this.previous = own;
    }
    this.current = [];
    this.repeated = 0;
  }

  /** A unit longer than a chunk, cut between its sentences and, failing that, by tokens. */
  private withinBudget(piece: Piece): Piece[] {
    if (piece.tokens <= this.chunkTokens) return [piece];
    const sentences = splitSentences(piece.unit);
    if (sentences.length > 1) return sentences.flatMap((sentence) => this.withinBudget(this.piece(sentence, piece.passage, piece.page)));
    return splitByTokens(piece.unit, this.chunkTokens).map((part) => ({ ...this.piece(part, piece.passage, piece.page), fragment: true }));
  }
}

/** Chunks of a run of passages (one section's body): no chunk spans two runs. */
export function packPassages(passages: readonly Passage[], budget: PackingBudget): PackedText[] {
  const packer = new ChunkPacker(budget);
  passages.forEach((passage, index) => packer.add(passage, index));
  return packer.finish();
}
