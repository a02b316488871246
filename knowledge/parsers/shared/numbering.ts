/**
 * Outline numbers as a sequence: `2.4` may follow `2.3` (next sibling), `2.3.4` (back up a level) or `2`
 * (first child, `2.1`), but not `7`. Text that merely starts with a number rarely continues the sequence,
 * so this is what tells `7.  This requirement...` from section 7.
 */

/** Numbers missing from a sequence (a dropped heading, a repealed article) that are still tolerated. */
const MAX_GAP = 3;

export class NumberingSequence {
  private last: number[] | undefined;

  /** Whether `parts` plausibly comes next; if so it becomes the new position. */
  accept(parts: readonly number[]): boolean {
    if (!this.follows(parts)) return false;
    this.last = [...parts];
    return true;
  }

  private follows(parts: readonly number[]): boolean {
    const last = this.last;
    // The first number may start anywhere at the top (a PDF excerpt), but its sub-levels start at 0 or 1.
    if (!last) return parts.slice(1).every((part) => part <= 1);
    const depth = parts.length;
    if (depth > last.length + 1) return false;
    for (let level = 0; level < depth - 1; level++) if (parts[level] !== last[level]) return false;
    const own = parts[depth - 1]!;
    if (depth === last.length + 1) return own <= 1;
    const previous = last[depth - 1]!;
    return own > previous && own <= previous + MAX_GAP;
  }
}
