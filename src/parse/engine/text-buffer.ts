import { parseWork } from './work.js';

/** Pieces are gathered into blocks of about this many characters before they join the kept text. */
const BLOCK = 1024;
/** Up to this many characters the kept text is one plain rope. */
const SHORT = 8 * 1024;

/**
 * Collects consumed text that may be needed again (a call's raw text, for a withdraw). Appending to one string lets
 * V8 build a rope (or copy tiny results flat), flattened once if the text is ever read; that was cheaper per 4-byte
 * push than an array of pieces joined in blocks (which in turn beat keeping millions of short strings alive, where
 * garbage collection dominated streaming time). But a rope of a long call streamed in 4-byte pushes is a node and a
 * piece per push, all alive until the call ends: the garbage collector copied each of them through the young
 * generation and promoted it, a third of a 4-byte push's cost. So the recent pieces form a short rope of their own,
 * flattened (a character read flattens a rope in V8) and appended once it reaches BLOCK characters: the small nodes
 * die young, and what stays alive is a few flat blocks.
 */
export class TextBuffer {
  private text = '';
  private block = '';

  static of(text: string): TextBuffer {
    const buffer = new TextBuffer();
    buffer.text = text;
    return buffer;
  }

  push(text: string): void {
    parseWork.chars += text.length;
    if (this.text.length < SHORT) {
      // A short rope (most calls) dies young anyway: blocks would only cost.
      this.text += text;
      return;
    }
    if (text.length >= BLOCK) {
      // A large piece (a batch parse's slice) is one node already: no copy.
      this.text = this.text + this.block + text;
      this.block = '';
      return;
    }
    const block = this.block + text;
    if (block.length < BLOCK) {
      this.block = block;
      return;
    }
    block.charCodeAt(0);
    this.text += block;
    this.block = '';
  }

  get length(): number {
    return this.text.length + this.block.length;
  }

  toString(): string {
    const text = this.text + this.block;
    parseWork.chars += text.length;
    return text;
  }
}
