// One output field (content or reasoning) fed message by message, on the engine's streaming trimmer:
// each message's contribution is trimmed at both ends as it streams, and messages that land in the
// same field are joined by one newline (as vLLM joins harmony messages).

import { StreamTrimmer } from '../engine/trim.js';
import type { ParseEvent } from '../core.js';

export const MESSAGE_SEPARATOR = '\n';

export class TextSink {
  private readonly trimmer = new StreamTrimmer();
  /** The current message has released text (so no separator is due any more). */
  private released = false;
  private verbatim = false;

  constructor(
    private readonly kind: 'content' | 'reasoning',
    private readonly emit: (event: ParseEvent) => void,
  ) {}

  /** A new message begins. `midText`: it began in the prompt, so its leading space is not a boundary. */
  open(midText = false): void {
    this.trimmer.boundary();
    this.released = false;
    this.verbatim = midText;
  }

  write(text: string): void {
    const out = this.take(text);
    if (out) this.emit({ kind: this.kind, text: out });
  }

  /** What of `text` may be released now, without emitting it (for a withdrawn call's raw text). */
  take(text: string): string {
    const hadText = this.trimmer.hasText;
    let out = this.verbatim ? this.trimmer.pushVerbatim(text) : this.trimmer.push(text);
    if (out === '') return '';
    this.verbatim = false;
    if (!this.released && hadText) out = MESSAGE_SEPARATOR + out;
    this.released = true;
    return out;
  }

  /** The message ended: its trailing space is dropped. */
  close(): void {
    this.trimmer.boundary();
    this.released = false;
  }
}
