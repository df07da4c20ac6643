// chatfmtMiddleware over a chat stream that fails or misbehaves: the text the parser held back as a possible marker
// still reaches streamText before the failure, and parts after `finish` do not crash the stream.
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { chatfmtMiddleware } from '../../src/ai-sdk/index.js';

const usage = { inputTokens: { total: 9, noCache: 9, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 4, text: 4, reasoning: undefined } };
const finish: LanguageModelV4StreamPart = { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage };

/** The parts, then (once they were read) `error`, as a dropped connection or an abort fails a model's stream. */
function stream(parts: LanguageModelV4StreamPart[], error?: Error): ReadableStream<LanguageModelV4StreamPart> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at < parts.length) controller.enqueue(parts[at++]!);
      else if (error) controller.error(error);
      else controller.close();
    },
  });
}

async function read(parts: LanguageModelV4StreamPart[], error?: Error) {
  const model = wrapLanguageModel({ model: new MockLanguageModelV4({ doStream: async () => ({ stream: stream(parts, error) }) }), middleware: chatfmtMiddleware({ family: 'qwen3' }) });
  const result = streamText({ model, prompt: 'Hi', onError: () => undefined });
  let text = '';
  const errors: unknown[] = [];
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'error') errors.push(part.error);
    }
  } catch (failure) {
    errors.push(failure);
  }
  return { text, errors };
}

describe('chatfmtMiddleware when the wrapped stream fails', () => {
  it('a stream that fails while a possible marker is held back still hands out that text, then the failure', async () => {
    const start: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }];
    const answer = await read([...start, { type: 'text-delta', id: 't', delta: 'Hello <tool' }], new Error('connection reset'));
    expect(answer.text).toBe('Hello <tool');
    expect(answer.errors.map((error) => (error as Error).message)).toEqual(['connection reset']);
  });

  it('text a server sends after finish is passed on, not a crash of the stream', async () => {
    const answer = await read([{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Done.' }, finish, { type: 'text-delta', id: 't', delta: ' Late.' }]);
    expect(answer.text).toContain('Done.');
    expect(answer.errors.map((error) => String((error as Error).message))).not.toContainEqual(expect.stringContaining('push() after finish()'));
  });
});
