// The recorded client streams under ../shared/wire, read as the event payloads a client sees. Call only inside `it`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDir } from '../helpers/shared.js';

export const wireDir = join(sharedDir, 'wire');

/** A `.sse` file's frames ({event, data}), or a vercel/ai `.ndjson` recording (data payloads only, no event names). */
export function recordedEvents(relative: string): Array<Record<string, unknown>> {
  const text = readFileSync(join(wireDir, relative), 'utf8');
  if (relative.endsWith('.sse')) {
    return text.split(/\n\n/).flatMap((block) => {
      const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n');
      return data === '' ? [] : [JSON.parse(data) as Record<string, unknown>];
    });
  }
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && line !== '[DONE]')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A client capture's request body (`body`, or a fragment's messages wrapped as a minimal body). */
export function recordedBody(relative: string): Record<string, unknown> | undefined {
  const capture = JSON.parse(readFileSync(join(wireDir, relative), 'utf8')) as Record<string, unknown>;
  return capture.body as Record<string, unknown> | undefined;
}

export function readCapture(relative: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(wireDir, relative), 'utf8')) as Record<string, unknown>;
}
