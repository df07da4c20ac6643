// Server-sent events: lines to events on the way in (backends), frames to text on the way out (clients).
import type { Frame } from '../core/types.js';
import { readLines } from './lines.js';

export interface SseEvent {
  event?: string;
  data: string;
}

/** Folds lines into events: `data:` lines join with `\n`, a blank line dispatches, `:` comments are skipped. */
export function createSseFolder(): { line(line: string): SseEvent | undefined; flush(): SseEvent | undefined } {
  let data: string[] = [];
  let event: string | undefined;
  const dispatch = (): SseEvent | undefined => {
    if (data.length === 0) {
      event = undefined;
      return undefined;
    }
    const result: SseEvent = event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') };
    data = [];
    event = undefined;
    return result;
  };
  return {
    line(line) {
      if (line === '') return dispatch();
      if (line.startsWith(':')) return undefined;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      return undefined;
    },
    flush: dispatch,
  };
}

/** The events of an SSE byte stream; a last event without its blank line still counts. */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const folder = createSseFolder();
  for await (const line of readLines(body)) {
    const event = folder.line(line);
    if (event) yield event;
  }
  const last = folder.flush();
  if (last) yield last;
}

/** One frame as SSE text: an `event:` line when named, one `data:` line per payload line, then a blank line. */
export function encodeSse(frame: Frame): string {
  const head = frame.event === undefined ? '' : `event: ${frame.event}\n`;
  if (!frame.data.includes('\n') && !frame.data.includes('\r')) return `${head}data: ${frame.data}\n\n`;
  return `${head}${frame.data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('')}\n`;
}
