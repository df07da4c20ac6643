/**
 * Collects consumed text that may be needed again (a call's raw text, for a withdraw). Small pieces are
 * joined into blocks as they come, so a long call streamed in tiny chunks does not keep millions of
 * short strings alive (which made garbage collection dominate streaming time).
 */
export class TextBuffer {
  private blocks: string[] = [];
  private pieces: string[] = [];
  private size = 0;

  push(text: string): void {
    this.pieces.push(text);
    this.size += text.length;
    if (this.pieces.length >= 256) {
      this.blocks.push(this.pieces.join(''));
      this.pieces = [];
    }
  }

  get length(): number {
    return this.size;
  }

  toString(): string {
    return this.blocks.join('') + this.pieces.join('');
  }
}
