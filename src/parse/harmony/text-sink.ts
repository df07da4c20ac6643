// One output field (content or reasoning) fed message by message, on the engine's streaming trimmer:
// each message's contribution is trimmed at both ends as it streams (a message boundary is a structure
// boundary), and messages that land in the same field concatenate in order, as text around calls does
// in every other family, a blank line apart (a commentary preamble and the final answer are two paragraphs, never
// one glued sentence).

import { StreamTrimmer } from '../engine/trim.js';
import type { ParseEvent } from '../core.js';

/** Between two messages that land in the same field. */
export const MESSAGE_SEPARATOR = '\n\n';

export class TextSink {
  private readonly trimmer = new StreamTrimmer();
  private verbatim = false;
  /** A new message opened after text in this field: its first released text is set apart. */
  private separate = false;

  constructor(
    readonly kind: 'content' | 'reasoning',
    private readonly emit: (event: ParseEvent) => void,
  ) {}

  /**
   * A new message begins. `midText`: it began in the prompt, so its leading space is not a boundary. `raw`: its text
   * is markup kept as text (a salvaged header, a withdrawn call), which sets it apart already.
   */
  open(midText = false, raw = false): void {
    this.trimmer.boundary();
    this.verbatim = midText;
    this.separate = this.trimmer.hasText && !midText && !raw;
  }

  write(text: string): void {
    const out = this.take(text);
    if (out) this.emit({ kind: this.kind, text: out });
  }

  /** What of `text` may be released now, without emitting it (for a withdrawn call's raw text). */
  take(text: string): string {
    const out = this.verbatim ? this.trimmer.pushVerbatim(text) : this.trimmer.push(text);
    if (out === '') return out;
    this.verbatim = false;
    if (!this.separate) return out;
    this.separate = false;
    return MESSAGE_SEPARATOR + out;
  }

  /** The message ended: its trailing space is dropped. */
  close(): void {
    this.trimmer.boundary();
  }
}
