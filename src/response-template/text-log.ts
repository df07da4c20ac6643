/**
 * The completion as pushed, kept in pieces: reading a stretch joins only the pieces it covers. A single growing string
 * would be re-flattened (copied whole) by every search after an append, which makes streaming quadratic.
 */
export class TextLog {
  private readonly pieces: string[] = [];
  private readonly starts: number[] = [];
  length = 0;

  append(text: string): void {
    if (text.length === 0) return;
    this.pieces.push(text);
    this.starts.push(this.length);
    this.length += text.length;
  }

  /** The text from `from` on, at most `max` characters. */
  slice(from: number, max = Infinity): string {
    if (from >= this.length) return '';
    let index = this.pieceAt(from);
    let out = this.pieces[index]!.slice(from - this.starts[index]!);
    while (out.length < max && ++index < this.pieces.length) out += this.pieces[index]!;
    return out.length > max ? out.slice(0, max) : out;
  }

  /** Index of the piece holding position `at` (binary search). */
  private pieceAt(at: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
