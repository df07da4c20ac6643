// What the Anthropic Messages and OpenAI Responses writers share: both turn the session's block events into frames
// for content blocks (output items) that open, grow and close by id, begin once, and write nothing after their end.
// Each protocol supplies only its frames; the event dispatch and the start/end bookkeeping live here once.
import type { Diagnostic } from '../../types.js';
import type { FinishEvent, Frame, GatewayError, GatewayEvent } from '../core/types.js';

/** What a block holds, as the session opened it. */
export type BlockOpening =
  | { kind: 'text' }
  | { kind: 'reasoning' }
  | { kind: 'tool-call'; callId: string; name: string };

export type StartEvent = Extract<GatewayEvent, { type: 'start' }>;

export abstract class BlockStreamWriter {
  protected started = false;
  protected ended = false;

  write(event: GatewayEvent): Frame[] {
    if (this.ended) return [];
    // A stream that did not announce itself still begins before its first block; an error reports itself.
    const frames = this.started || event.type === 'start' || event.type === 'error' ? [] : this.begin(undefined);
    switch (event.type) {
      case 'start':
        if (!this.started) frames.push(...this.begin(event));
        break;
      case 'text-start':
        frames.push(...this.openBlock(event.id, { kind: 'text' }));
        break;
      case 'reasoning-start':
        frames.push(...this.openBlock(event.id, { kind: 'reasoning' }));
        break;
      case 'tool-call-start':
        frames.push(...this.openBlock(event.id, { kind: 'tool-call', callId: event.callId, name: event.name }));
        break;
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
        if (event.delta !== '') frames.push(...this.delta(event.id, event.delta));
        break;
      case 'text-end':
      case 'reasoning-end':
        frames.push(...this.closeBlock(event.id));
        break;
      case 'tool-call-end':
        frames.push(...this.closeBlock(event.id, event.arguments));
        break;
      case 'diagnostic':
        frames.push(...this.diagnostic(event.diagnostic));
        break;
      case 'finish':
        frames.push(...this.finish(event));
        break;
      case 'error':
        frames.push(...this.fail(event.error));
        break;
    }
    return frames;
  }

  /** The frames that begin the response; `start` is absent when the session did not announce one. Sets `started`. */
  protected abstract begin(start: StartEvent | undefined): Frame[];
  protected abstract openBlock(id: string, opening: BlockOpening): Frame[];
  /** Never called with an empty delta. */
  protected abstract delta(id: string, text: string): Frame[];
  /** `finalArguments`: a call's whole argument text, to complete what the deltas left short. */
  protected abstract closeBlock(id: string, finalArguments?: string): Frame[];
  protected abstract diagnostic(diagnostic: Diagnostic): Frame[];
  /** Closes what is still open and ends the response. Sets `ended`. */
  protected abstract finish(event: FinishEvent): Frame[];
  /** Reports a failure in the stream and ends the response. Sets `ended`. */
  protected abstract fail(error: GatewayError): Frame[];
}

/** The non-streaming body: the state a writer builds from the same events the stream would have carried. */
export function foldEvents<W extends BlockStreamWriter, R>(writer: W, events: readonly GatewayEvent[], result: (writer: W) => R): R {
  for (const event of events) writer.write(event);
  return result(writer);
}
