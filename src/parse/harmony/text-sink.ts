// One output field (content or reasoning) fed message by message, on the engine's streaming trimmer:
// each message's contribution is trimmed at both ends as it streams (a message boundary is a structure
// boundary), and messages that land in the same field concatenate in order, as text around calls does
// in every other family.

import { StreamTrimmer } from '../engine/trim.js';
import type { ParseEvent } from '../core.js';

export class TextSink {
  private readonly trimmer = new StreamTrimmer();
  private verbatim = false;

  constructor(
    private readonly kind: 'content' | 'reasoning',
    private readonly emit: (event: ParseEvent) => void,
  ) {}

  /** A new message begins. `midText`: it began in the prompt, so its leading space is not a boundary. */
  open(midText = false): void {
    this.trimmer.boundary();
    this.verbatim = midText;
  }

  write(text: string): void {
    const out = this.take(text);
    if (out) this.emit({ kind: this.kind, text: out });
  }

  /** What of `text` may be released now, without emitting it (for a withdrawn call's raw text). */
  take(text: string): string {
    const out = this.verbatim ? this.trimmer.pushVerbatim(text) : this.trimmer.push(text);
    if (out !== '') this.verbatim = false;
    return out;
  }

  /** The message ended: its trailing space is dropped. */
  close(): void {
    this.trimmer.boundary();
  }
}
