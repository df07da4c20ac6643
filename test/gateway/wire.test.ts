// The SSE and NDJSON decoders give the same events however the bytes are cut: inside a UTF-8 sequence, between the
// `\r` and `\n` of one break, anywhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasShared, sharedDir } from '../helpers/shared.js';
import { encodeSse, readNdjson, readSse, backendProtocols, type BackendChunk } from '../../src/gateway/index.js';

const encoder = new TextEncoder();

async function* cut(bytes: Uint8Array, offsets: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const offset of [...offsets, bytes.length]) {
    yield bytes.slice(at, offset);
    at = offset;
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const sseText = 'event: delta\r\ndata: {"text":"héllo 世界 🎉"}\r\n\r\n: a comment\n\ndata: line one\ndata: line two\n\rdata: {"last":true}';

describe('SSE decoding', () => {
  it('is the same at every single split point and at every pair of split points', async () => {
    const bytes = encoder.encode(sseText);
    const whole = await collect(readSse(cut(bytes, [])));
    expect(whole).toEqual([
      { event: 'delta', data: '{"text":"héllo 世界 🎉"}' },
      { data: 'line one\nline two' },
      { data: '{"last":true}' },
    ]);
    for (let a = 1; a < bytes.length; a++) {
      expect(await collect(readSse(cut(bytes, [a]))), `split at ${a}`).toEqual(whole);
      for (let b = a + 1; b < bytes.length; b += 7) expect(await collect(readSse(cut(bytes, [a, b]))), `splits ${a}, ${b}`).toEqual(whole);
    }
  });

  it('encodes a frame, one data line per payload line', () => {
    expect(encodeSse({ data: '{"a":1}' })).toBe('data: {"a":1}\n\n');
    expect(encodeSse({ event: 'message_stop', data: 'a\nb' })).toBe('event: message_stop\ndata: a\ndata: b\n\n');
  });
});

describe('NDJSON decoding', () => {
  it('is the same at every split point; a line that is not JSON is an error', async () => {
    const text = '{"response":"ü","done":false}\r\n\n{"response":"🎉","done":true}';
    const bytes = encoder.encode(text);
    const whole = await collect(readNdjson(cut(bytes, [])));
    expect(whole).toEqual([{ response: 'ü', done: false }, { response: '🎉', done: true }]);
    for (let a = 1; a < bytes.length; a++) expect(await collect(readNdjson(cut(bytes, [a])))).toEqual(whole);
    await expect(collect(readNdjson(cut(encoder.encode('{"response": "x"}\n{"response": oops\n'), [])))).rejects.toThrow(/not JSON/);
  });
});

describe('backend stream decoding', () => {
  it('reads text, stop reason and token counts from each kind', async () => {
    const streams = {
      'llama.cpp': 'data: {"content":"Hi","stop":false}\n\ndata: {"content":"","stop":true,"stop_type":"limit","tokens_evaluated":12,"tokens_predicted":3}\n\n',
      openai:
        'data: {"choices":[{"text":"Hi","index":0,"finish_reason":null}]}\n\ndata: {"choices":[{"text":"","index":0,"finish_reason":"length"}]}\n\n' +
        'data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3}}\n\ndata: [DONE]\n\n',
      ollama: '{"response":"Hi","done":false}\n{"response":"","done":true,"done_reason":"length","prompt_eval_count":12,"eval_count":3}\n',
    } as const;
    for (const [kind, text] of Object.entries(streams)) {
      const chunks = await collect(backendProtocols[kind as keyof typeof streams].decodeStream(cut(encoder.encode(text), [5])));
      const merged = Object.assign({}, ...chunks) as Record<string, unknown>;
      expect(chunks.map((chunk) => chunk.text ?? '').join(''), kind).toBe('Hi');
      expect(merged.stop, kind).toMatchObject({ reason: 'length' });
      expect(merged.usage, kind).toEqual({ promptTokens: 12, completionTokens: 3 });
    }
  });
});

describe.skipIf(!hasShared)('recorded backend streams (../shared/wire/backends)', () => {
  it('decode into text and a stop (or the cut, where the recording is cut), every chunk a JSON object of the protocol', async () => {
    const root = join(sharedDir, 'wire', 'backends');
    const cases: Array<{ kind: keyof typeof backendProtocols; file: string; asSse: boolean; truncated?: true }> = [
      // This transcript's last event is cut short in the recording (its source says so), so the stream ends before
      // llama.cpp's `stop: true`: its text decodes, then the decoder reports the cut.
      { kind: 'llama.cpp', file: 'llamacpp-completion/02-ngxson-pr10720-completion-stop-word.sse', asSse: false, truncated: true },
      // The recorder kept each SSE payload as one line: rewrap as SSE.
      { kind: 'llama.cpp', file: 'llamacpp-completion/01-llama-server-completion-fim-qwen25coder.ndjson', asSse: true },
      { kind: 'openai', file: 'openai-completions/02-vllm-v1-completions-chunks.ndjson', asSse: true },
      { kind: 'ollama', file: 'ollama-generate/02-ollama-generate-deepseek-r1-num_predict10-length.ndjson', asSse: false },
    ];
    for (const { kind, file, asSse, truncated } of cases) {
      // Whole lines only (the stop-word transcript's cut-short last event is not JSON).
      const raw = readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => line.trim() === '' || parses(line.replace(/^data: /, '')))
        .join('\n');
      const text = asSse ? raw.split('\n').filter((line) => line.trim() !== '').map((line) => `data: ${line}\n\n`).join('') : raw;
      const chunks: BackendChunk[] = [];
      let failure: unknown;
      try {
        for await (const chunk of backendProtocols[kind].decodeStream(cut(encoder.encode(text), [17, 301]))) chunks.push(chunk);
      } catch (error) {
        failure = error;
      }
      if (truncated) expect(String(failure), file).toMatch(/the stream ended before its last event \(`stop: true`\): the answer was cut off/);
      else expect(failure, file).toBeUndefined();
      // Each complete transcript ends with its stop.
      if (!truncated) expect(chunks.at(-1)?.stop, file).toBeDefined();
      const expectedText = raw
        .split('\n')
        .map((line) => line.replace(/^data: /, ''))
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .map((chunk) => (chunk.content ?? chunk.response ?? (chunk.choices as Array<{ text?: string }> | undefined)?.[0]?.text ?? '') as string)
        .join('');
      expect(chunks.map((chunk) => chunk.text ?? '').join(''), file).toBe(expectedText);
      expect(expectedText.length, file).toBeGreaterThan(0);
    }
  });
});

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
