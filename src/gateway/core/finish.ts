// How an answer ended, decided once for both sessions (raw completions and --repair): calls made win, then the
// token budget, then a natural stop; a stop at one of the client's own stop strings is named, as Anthropic reports it.
import type { BackendStop } from '../backends/types.js';
import type { FinishEvent, FinishReason, Usage } from './types.js';

export function finishEvent(callCount: number, stop: BackendStop | undefined, usage: Usage | undefined, clientStops: readonly string[] | undefined): FinishEvent {
  const reason: FinishReason = callCount > 0 ? 'tool-calls' : stop?.reason === 'length' ? 'length' : 'stop';
  // The family's own end markers are stop strings too; only a string the client asked for is its stop sequence.
  const stopSequence = reason === 'stop' && stop?.word !== undefined && clientStops?.includes(stop.word) ? stop.word : undefined;
  return {
    type: 'finish',
    reason,
    ...(stop ? { rawReason: stop.raw } : {}),
    ...(stopSequence !== undefined ? { stopSequence } : {}),
    ...(usage ? { usage } : {}),
  };
}
