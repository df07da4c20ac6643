import { parseWork } from './work.js';

/**
 * Collects consumed text that may be needed again (a call's raw text, for a withdraw). Appending to
 * one string lets V8 build a rope (or copy tiny results flat), flattened once if the text is ever
 * read; that was cheaper per 4-byte push than an array of pieces joined in blocks (which in turn beat
 * keeping millions of short strings alive, where garbage collection dominated streaming time).
 */
export class TextBuffer {
  private text = '';

  static of(text: string): TextBuffer {
    const buffer = new TextBuffer();
    buffer.text = text;
    return buffer;
  }

  push(text: string): void {
    parseWork.chars += text.length;
    this.text += text;
  }

  get length(): number {
    return this.text.length;
  }

  toString(): string {
    parseWork.chars += this.text.length;
    return this.text;
  }
}
