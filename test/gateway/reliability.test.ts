// Failures reach the client in OpenAI's own error shape with a sensible status; limits, keys and disconnects.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createGateway, loadGatewayModel } from '../../src/gateway/index.js';
import { hasShared, sharedDir } from '../helpers/shared.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hi' }];

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { error?: { message: string; type: string; param: string | null; code: string | null } } };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function streamError(stream: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _ of stream) void _;
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('upstream failures', async () => {
  const h = await startHarness('qwen3', 'llama.cpp', { timeoutMs: 400 });

  it('a backend nobody listens on is 502 upstream_unreachable', async () => {
    const gateway = createGateway({ model: loadGatewayModel({ family: 'qwen3' }).model, backend: { url: `http://127.0.0.1:${await closedPort()}`, kind: 'llama.cpp' } });
    const listening = await gateway.listen(0);
    try {
      const answer = await post(listening.url, { model: 'm', messages });
      expect(answer.status).toBe(502);
      expect(answer.body.error).toMatchObject({ type: 'server_error', code: 'upstream_unreachable' });
      expect(answer.body.error!.message).toContain('ECONNREFUSED');
    } finally {
      await listening.close();
    }
  });

  it('a 5xx from the backend is 502 with the backend message', async () => {
    h.backend.script({ pieces: [], fault: { kind: 'http-error', status: 503, body: { error: { message: 'Loading model', type: 'unavailable_error', code: 503 } } } });
    const answer = await post(h.url, { model: 'm', messages });
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatchObject({ code: 'upstream_error' });
    expect(answer.body.error!.message).toContain('Loading model');
  });

  it.skipIf(!hasShared)('context overflow bodies of llama.cpp and vLLM are 400 context_length_exceeded', async () => {
    for (const file of ['llamacpp-01-exceed-context-size.json', 'vllm-01-context-length.json']) {
      const recorded = JSON.parse(readFileSync(join(sharedDir, 'wire', 'errors', file), 'utf8')) as { examples: Array<{ body: unknown }> };
      for (const example of recorded.examples) {
        h.backend.script({ pieces: [], fault: { kind: 'http-error', status: 400, body: example.body } });
        const answer = await post(h.url, { model: 'm', messages });
        expect(answer.status, file).toBe(400);
        expect(answer.body.error, file).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' });
      }
    }
  });

  it('a malformed stream is 502 upstream_protocol_error, or an error event once streaming', async () => {
    h.backend.script({ pieces: pieces('Some text that goes on.'), fault: { kind: 'malformed', after: 2 } });
    const answer = await post(h.url, { model: 'm', messages });
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatchObject({ code: 'upstream_protocol_error' });
    h.backend.script({ pieces: pieces('Some text that goes on.'), fault: { kind: 'malformed', after: 2 } });
    const failure = await streamError(await h.openai.chat.completions.create({ model: 'm', messages, stream: true }));
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(String((failure as Error).message)).toContain('not llama.cpp output');
  });

  it('a backend that stalls past --timeout is 504 upstream_timeout', async () => {
    h.backend.script({ pieces: pieces('Some text.'), fault: { kind: 'stall', after: 1 } });
    const answer = await post(h.url, { model: 'm', messages });
    expect(answer.status).toBe(504);
    expect(answer.body.error).toMatchObject({ code: 'upstream_timeout' });
    await h.backend.received.at(-1)!.finished;
    expect(h.backend.received.at(-1)!.hungUp).toBe(true);
  });

  it('a client that disconnects mid-stream aborts the backend request', async () => {
    h.backend.script({ pieces: pieces('word '.repeat(400), 1), delayMs: 2 });
    const controller = new AbortController();
    const stream = await h.openai.chat.completions.create({ model: 'm', messages, stream: true }, { signal: controller.signal });
    let seen = 0;
    await streamError(
      (async function* () {
        for await (const chunk of stream) {
          seen++;
          if (seen === 3) controller.abort();
          yield chunk;
        }
      })(),
    );
    const request = h.backend.received.at(-1)!;
    await request.finished;
    expect(request.hungUp).toBe(true);
    const entry = h.log.at(-1)!;
    expect(entry.aborted).toBe(true);
  });
});

describe('limits and keys', async () => {
  const h = await startHarness('qwen3', 'llama.cpp', { maxBodyBytes: 2000, maxConcurrency: 1, apiKey: 'sekret' });

  it('refuses a body over --max-body-bytes with 413 in OpenAI shape', async () => {
    const answer = await post(h.url, { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }, { authorization: 'Bearer sekret' });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('answers 429 past --max-concurrency, and serves again once the first request ends', async () => {
    h.backend.script({ pieces: pieces('Slow answer.'), fault: { kind: 'stall', after: 1 } });
    const controller = new AbortController();
    const first = await h.openai.chat.completions.create({ model: 'm', messages, stream: true }, { signal: controller.signal });
    const iterator = first[Symbol.asyncIterator]();
    await iterator.next();
    const second = await h.openai.chat.completions.create({ model: 'm', messages }).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(OpenAI.RateLimitError);
    expect((second as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    controller.abort();
    await h.backend.received.at(-1)!.finished;
    h.backend.script({ pieces: pieces('Fast.') });
    for (let attempt = 0; ; attempt++) {
      const third = await h.openai.chat.completions.create({ model: 'm', messages }).catch((error: unknown) => error);
      if (third instanceof OpenAI.RateLimitError && attempt < 50) continue;
      expect((third as OpenAI.Chat.Completions.ChatCompletion).choices[0]!.message.content).toBe('Fast.');
      break;
    }
  });

  it('needs the key as Bearer or x-api-key: 401 in OpenAI shape without it', async () => {
    h.backend.script({ pieces: pieces('Fine.') });
    const missing = await post(h.url, { model: 'm', messages });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'invalid_api_key' });
    expect((await post(h.url, { model: 'm', messages }, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(h.url, { model: 'm', messages }, { 'x-api-key': 'sekret' })).status).toBe(200);
    expect((await post(h.url, { model: 'm', messages }, { authorization: 'Bearer sekret' })).status).toBe(200);
    const models = await fetch(`${h.url}/v1/models`);
    expect(models.status).toBe(401);
    const health = await fetch(`${h.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it('rejects a body that is not JSON, and unknown routes, in OpenAI shape', async () => {
    const bad = await post(h.url, '{"model": ', { authorization: 'Bearer sekret' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request_error' });
    const wrongTool = await post(h.url, { model: 'm', messages, tool_choice: { type: 'function', function: { name: 'nope' } } }, { authorization: 'Bearer sekret' });
    expect(wrongTool.status).toBe(400);
    expect(wrongTool.body.error).toMatchObject({ param: 'tool_choice.function.name' });
    const unknown = await fetch(`${h.url}/v1/nothing`, { method: 'POST', headers: { authorization: 'Bearer sekret' } });
    expect(unknown.status).toBe(404);
  });

  it('will not listen beyond loopback without a key', async () => {
    const gateway = createGateway({ model: loadGatewayModel({ family: 'qwen3' }).model, backend: { url: h.backend.url, kind: 'llama.cpp' } });
    await expect(gateway.listen(0, '0.0.0.0')).rejects.toThrow(/without an API key/);
  });
});

describe('backend key and models', async () => {
  const h = await startHarness('qwen3', 'openai');

  it('--model-name is the name the backend always receives', async () => {
    const gateway = createGateway({ model: loadGatewayModel({ family: 'qwen3', name: 'Qwen/Qwen3-8B' }).model, backend: { url: `${h.backend.url}/v1`, kind: 'openai' } });
    const listening = await gateway.listen(0);
    try {
      h.backend.script({ pieces: pieces('Yes.') });
      expect((await post(listening.url, { model: 'gpt-4o', messages })).status).toBe(200);
      expect(h.backend.received.at(-1)!.body.model).toBe('Qwen/Qwen3-8B');
    } finally {
      await listening.close();
    }
  });

  it('lists the model', async () => {
    const list = await h.openai.models.list();
    expect(list.data.map((model) => model.id)).toEqual(['qwen3']);
  });

  it('sends the backend key as a Bearer token', async () => {
    const gateway = createGateway({ model: loadGatewayModel({ family: 'qwen3' }).model, backend: { url: `${h.backend.url}/v1`, kind: 'openai', apiKey: 'backend-secret' } });
    const listening = await gateway.listen(0);
    try {
      h.backend.script({ pieces: pieces('Yes.') });
      expect((await post(listening.url, { model: 'm', messages })).status).toBe(200);
      expect(h.backend.received.at(-1)!.headers.authorization).toBe('Bearer backend-secret');
      // vLLM and its kin serve models by name: the client's name goes through unless --model-name fixes one.
      expect(h.backend.received.at(-1)!.body.model).toBe('m');
    } finally {
      await listening.close();
    }
  });
});
