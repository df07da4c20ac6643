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
