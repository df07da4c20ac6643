// Newline-delimited JSON (Ollama's stream): one JSON value per line, blank lines skipped.
import { readLines } from './lines.js';
import { clipForMessage } from '../../util/utf16.js';

export class MalformedLineError extends Error {}

export async function* readNdjson(body: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  for await (const line of readLines(body)) {
    if (line.trim() === '') continue;
    yield parseJsonLine(line);
  }
}

export function parseJsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new MalformedLineError(`not JSON: ${clipForMessage(line, 80, JSON.stringify)}`);
  }
}

export function encodeNdjson(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
