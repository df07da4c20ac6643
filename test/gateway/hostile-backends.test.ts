// Backends that answer 200 and then fail or bend their wire format: an error reported in place of a chunk, a body that
// is no stream at all, a chat server (--repair) that sends call arguments as an object.
// Each kind's real server shape, through the official openai client on loopback: the client gets the backend's
// failure (502 upstream_protocol_error, or an APIError once streaming) and the text sent before it, never a
// complete-looking answer.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startHarness } from './helpers/harness.js';
import { pieces, type Fault } from './helpers/replay-backend.js';

const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hi' }];

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>): Promise<{ text: string; error?: unknown }> {
  let text = '';
  try {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  } catch (error) {
    return { text, error };
  }
  return { text };
}

describe.each(['llama.cpp', 'openai', 'ollama'] as const)('a %s backend that fails after its 200', async (kind) => {
  const h = await startHarness('qwen3', kind);

  // llama.cpp and vLLM send {error: {message}}, Ollama {error: "..."}; servers copy each other's shape.
  it.each([{ message: 'out of memory', code: 500 }, 'out of memory'])('an error event mid-stream (%j) is an error, after the text before it', async (error) => {
    const fault: Fault = { kind: 'error-event', after: 2, error };
    h.backend.script({ pieces: pieces('Partial answer'), fault });
    const whole = await h.openai.chat.completions.create({ model: 'm', messages }).catch((failure: unknown) => failure);
    expect(whole).toBeInstanceOf(OpenAI.APIError);
    expect((whole as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((whole as Error).message).toContain('the backend reported an error mid-stream: out of memory');
    h.backend.script({ pieces: pieces('Partial answer'), fault });
    const streamed = await collect(await h.openai.chat.completions.create({ model: 'm', messages, stream: true }));
    expect(streamed.text).toBe('Partia'); // the two pieces sent before the error
    expect(streamed.error).toBeInstanceOf(OpenAI.APIError);
  });

  it.each([
    ['an HTML page', 'text/html', '<!doctype html><html><body>Sign in</body></html>'],
    ['an empty body', kind === 'ollama' ? 'application/x-ndjson' : 'text/event-stream', ''],
  ])('a 200 carrying %s is 502 upstream_protocol_error, not an empty answer', async (_, contentType, body) => {
    h.backend.script({ pieces: [], fault: { kind: 'raw-200', contentType, body } });
    const whole = await h.openai.chat.completions.create({ model: 'm', messages }).catch((failure: unknown) => failure);
    expect(whole).toBeInstanceOf(OpenAI.APIError);
    expect((whole as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((whole as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_protocol_error');
  });
});

describe('a chat server behind --repair that sends a call\'s arguments as an object', async () => {
  const h = await startHarness('qwen3', 'openai', { repair: 'strict' });
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];

  it('keeps those arguments, as JSON text', async () => {
    const deltas = [{ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] }];
    h.backend.script({ pieces: [], deltas });
    const whole = await h.openai.chat.completions.create({ model: 'm', messages, tools });
    expect(whole.choices[0]!.message.tool_calls?.[0]).toMatchObject({ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
  });
});

describe.each(['llama.cpp', 'ollama'] as const)('a %s backend that sends only keep-alives', async (kind) => {
  const h = await startHarness('qwen3', kind, { timeoutMs: 300 });

  it('is silent: past --timeout the request ends 504 upstream_timeout and the backend request is aborted', async () => {
    h.backend.script({ pieces: pieces('Some text.'), fault: { kind: 'keep-alive', after: 1, everyMs: 20 } });
    const whole = await h.openai.chat.completions.create({ model: 'm', messages }).catch((failure: unknown) => failure);
    expect(whole).toBeInstanceOf(OpenAI.APIError);
    expect((whole as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_timeout');
    await h.backend.received.at(-1)!.finished;
    expect(h.backend.received.at(-1)!.hungUp).toBe(true);
  });
});

describe.each(['llama.cpp', 'openai', 'ollama'] as const)('a %s backend whose stream does not end as its protocol ends it', async (kind) => {
  const h = await startHarness('qwen3', kind);
  const endEvent = { 'llama.cpp': '`stop: true`', openai: '`finish_reason` or `[DONE]`', ollama: '`done: true`' }[kind];

  it('a body that ends before the end event is an error after the text sent, not a complete answer', async () => {
    h.backend.script({ pieces: pieces('Partial answer'), fault: { kind: 'cut', after: 2 } });
    const whole = await h.openai.chat.completions.create({ model: 'm', messages }).catch((failure: unknown) => failure);
    expect(whole).toBeInstanceOf(OpenAI.APIError);
    expect((whole as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((whole as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_protocol_error');
    expect((whole as Error).message).toContain(`the stream ended before`);
    expect((whole as Error).message).toContain(endEvent);
    expect((whole as Error).message).toContain('cut off');
    h.backend.script({ pieces: pieces('Partial answer'), fault: { kind: 'cut', after: 2 } });
    const streamed = await collect(await h.openai.chat.completions.create({ model: 'm', messages, stream: true }));
    expect(streamed.text).toBe('Partia');
    expect(streamed.error).toBeInstanceOf(OpenAI.APIError);
    expect((streamed.error as Error).message).toContain('cut off');
  });

  it('a body cut before its first event says no events came', async () => {
    h.backend.script({ pieces: pieces('Partial answer'), fault: { kind: 'cut', after: 0 } });
    const whole = await h.openai.chat.completions.create({ model: 'm', messages }).catch((failure: unknown) => failure);
    expect((whole as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((whole as Error).message).toMatch(/answered 200 \(.+\) with no .+ events/);
  });

  it('pieces after the end event are not part of the answer', async () => {
    h.backend.script({ pieces: pieces('Done.'), fault: { kind: 'after-end', pieces: [' And more.'] } });
    const whole = await h.openai.chat.completions.create({ model: 'm', messages });
    expect(whole.choices[0]).toMatchObject({ message: { content: 'Done.' }, finish_reason: 'stop' });
    h.backend.script({ pieces: pieces('Done.'), fault: { kind: 'after-end', pieces: [' And more.'] } });
    const streamed = await collect(await h.openai.chat.completions.create({ model: 'm', messages, stream: true }));
    expect(streamed).toEqual({ text: 'Done.' });
  });
});

describe('a chat server behind --repair whose stream is cut', async () => {
  const h = await startHarness('qwen3', 'openai', { repair: 'strict' });

  it('is an error after the text sent, not a complete answer', async () => {
    h.backend.script({ pieces: pieces('Partial answer'), fault: { kind: 'cut', after: 2 } });
    const streamed = await collect(await h.openai.chat.completions.create({ model: 'm', messages, stream: true }));
    expect(streamed.text).toBe('Partia');
    expect((streamed.error as Error).message).toContain('cut off');
  });
});
