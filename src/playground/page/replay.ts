// A completion fed to the streaming parser chunk by chunk, as a server would deliver it. The message shown at each
// step is what a client holds after the deltas so far (accumulateDeltas), so stepping shows text being held back
// while it could still begin a marker, and calls appearing once their name is complete.
import { accumulateDeltas } from '../../parse/accumulate.js';
import { createStreamParser, type ParseOptions, type StreamParser } from '../../parse/stream.js';
import type { Delta, ParsedMessage } from '../../types.js';
import { isHighSurrogate } from '../../util/utf16.js';

export class Replay {
  private parser: StreamParser;
  private readonly deltas: Delta[] = [];
  private offset = 0;
  private done = false;
  lastDeltas: Delta[] = [];

  constructor(
    private readonly text: string,
    private readonly chunkSize: number,
    options: ParseOptions,
  ) {
    this.parser = createStreamParser(options);
  }

  get chunks(): number {
    return Math.max(1, Math.ceil(this.text.length / this.chunkSize));
  }

  get fed(): number {
    return Math.ceil(this.offset / this.chunkSize);
  }

  get finished(): boolean {
    return this.done;
  }

  /** Pushes the next chunk, or finishes the parse after the last one. False once finished. */
  step(): boolean {
    if (this.done) return false;
    if (this.offset < this.text.length) {
      // A chunk never ends between the two halves of a surrogate pair: a stream of characters cannot split one.
      let end = Math.min(this.offset + this.chunkSize, this.text.length);
      if (end < this.text.length && isHighSurrogate(this.text.charCodeAt(end - 1))) end++;
      this.lastDeltas = this.parser.push(this.text.slice(this.offset, end));
      this.offset = end;
    } else {
      this.lastDeltas = this.parser.finish();
      this.done = true;
    }
    this.deltas.push(...this.lastDeltas);
    return true;
  }

  message(): ParsedMessage {
    return accumulateDeltas(this.deltas);
  }
}
