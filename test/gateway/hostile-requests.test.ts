// Valid JSON, hostile shape: each request gets one 4xx error line in its caller's protocol (never a 500, a hang or a
// dropped socket), and the gateway serves the next request. Over loopback, with the official clients where they apply.
import { connect } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

/** JSON text nesting `depth` arrays: built as text, since JSON.stringify itself overflows on such a value. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

async function postText(url: string, path: string, body: string) {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A raw request line and headers, sent as written (fetch would refuse the target); the status line that comes back. */
function rawStatus(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let text = '';
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(text.slice(0, text.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
  });
}

/** Sends `bytes` as written and reads the one answer until the server closes: status, lower-cased headers, body. */
function rawExchange(port: number, bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (data: Buffer) => (text += data.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

/** A `fetch` for the official clients that sends `bytes` in place of the request they built, and answers with the reply. */
function fetchSending(port: number, bytes: string): typeof fetch {
  // Node's global Response and the DOM lib's are one class under two type declarations.
  return (async () => {
    const reply = await rawExchange(port, bytes);
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  }) as unknown as typeof fetch;
}

describe('requests that are not valid HTTP', async () => {
  const h = await startHarness('qwen3');
  const port = Number(new URL(h.url).port);
  const brokenChunks = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n`;
  const twoLengths = 'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}';

  it('a body with broken chunk framing gets its route\'s own error, and the connection is closed', async () => {
    const messages = await rawExchange(port, brokenChunks('/v1/messages'));
    expect(messages.status).toBe(400);
    expect(messages.headers.connection).toBe('close');
    expect(JSON.parse(messages.body)).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'the request is not valid HTTP/1.1 (Invalid character in chunk size); the connection is closed' },
    });
    const chat = await rawExchange(port, brokenChunks('/v1/chat/completions'));
    expect(chat.status).toBe(400);
    expect(JSON.parse(chat.body)).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('(Invalid character in chunk size)') } });
  });

  it('headers that are not valid HTTP get an error both official clients read', async () => {
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'unused', maxRetries: 0, fetch: fetchSending(port, twoLengths) });
    const chat = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }).catch((error: unknown) => error);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as Error).message).toBe('400 the request is not valid HTTP/1.1 (Duplicate Content-Length); the connection is closed');
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).type).toBe('invalid_request_error');
    const anthropic = new Anthropic({ baseURL: h.url, apiKey: 'unused', maxRetries: 0, fetch: fetchSending(port, twoLengths) });
    const messages = await anthropic.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }).catch((error: unknown) => error);
    expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
    expect((messages as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'the request is not valid HTTP/1.1 (Duplicate Content-Length); the connection is closed' },
    });
  });

  it('headers over Node\'s limit are a 431 with a JSON error; the gateway serves the next request', async () => {
    const reply = await rawExchange(port, `POST /v1/messages HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(reply.status).toBe(431);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('headers are larger') } });
    h.backend.script({ pieces: pieces('Hello.') });
    expect(answer(await h.openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }))).toBe('Hello.');
  });
});

describe('hostile request bodies', async () => {
  const h = await startHarness('qwen3');
  const anthropic = new Anthropic({ baseURL: h.url, apiKey: 'unused', maxRetries: 0 });
  const tool = { type: 'function' as const, function: { name: 'get', parameters: { type: 'object' } } };

  it('a body nested thousands of levels deep is a 400 in each protocol, wherever the nesting is', async () => {
    const deep = nested(5000);
    const bodies: Array<[string, string]> = [
      ['/v1/chat/completions', `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"a":${deep}}}}}`],
      ['/v1/messages', `{"max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"get","input":{"a":${deep}}}]}]}`],
      ['/v1/messages/count_tokens', `{"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"get","input_schema":{"a":${deep}}}]}`],
      ['/v1/responses', `{"stream":true,"input":"hi","metadata":{"a":${deep}}}`],
      ['/v1/responses', `{"input":[{"type":"function_call","call_id":"c","name":"get","arguments":{"a":${deep}}}]}`],
    ];
    for (const [path, body] of bodies) {
      const answer = await postText(h.url, path, body);
      expect(answer.status, path).toBe(400);
      const error = (path.startsWith('/v1/messages') ? (answer.body as { error: unknown }).error : answer.body.error) as { message: string };
      expect(error.message, path).toMatch(/deeper than 1024 levels/);
    }
    expect(answer(await h.openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] }))).toBe('Hello.');
  });

  it('a request target no URL parser takes is a 404, not a 500', async () => {
    const port = Number(new URL(h.url).port);
    expect(await rawStatus(port, 'POST //%%% HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}')).toBe('HTTP/1.1 404 Not Found');
  });

  it('a named tool_choice must name a declared tool, in every protocol', async () => {
    h.backend.script({ pieces: pieces('Hello.') });
    const chat = await h.openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools: [tool], tool_choice: { type: 'function', function: { name: 'nope' } } }).catch((error: unknown) => error);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    const messages = await anthropic.messages
      .create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }], tools: [{ name: 'get', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'nope' } })
      .catch((error: unknown) => error);
    expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
    expect((messages as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'tool_choice.name: "nope" is not one of the declared tools' } });
    const responses = await h.openai.responses
      .create({ model: 'm', input: 'Hi', tools: [{ type: 'function', name: 'get', parameters: { type: 'object' }, strict: false }], tool_choice: { type: 'function', name: 'nope' } })
      .catch((error: unknown) => error);
    expect(responses).toBeInstanceOf(OpenAI.BadRequestError);
    expect((responses as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tool_choice.name');
  });
});

function answer(completion: OpenAI.Chat.Completions.ChatCompletion): string | null | undefined {
  return completion.choices[0]?.message.content;
}

describe('choices', async () => {
  const h = await startHarness('qwen3');

  it('n other than 1 is a 400 naming n, not one choice where several were asked for', async () => {
    const several = await h.openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], n: 3 }).catch((error: unknown) => error);
    expect(several).toBeInstanceOf(OpenAI.BadRequestError);
    expect((several as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('n');
    const one = await h.openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], n: 1 });
    expect(one.choices).toHaveLength(1);
  });
});
