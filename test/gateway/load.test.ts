// 64 concurrent streams for a bounded time, then many requests, all on 127.0.0.1. Every answer must be its own:
// each request carries a token, the replay backend answers with it (half of them as a tool call), and nothing may be
// lost, duplicated or crossed. Short by default; CHATFMT_LOAD_SECONDS=60 CHATFMT_LOAD_REQUESTS=10000 for the full run.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fromStream } from './helpers/answers.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

const seconds = Number(process.env.CHATFMT_LOAD_SECONDS ?? 2);
const requests = Number(process.env.CHATFMT_LOAD_REQUESTS ?? 200);
const STREAMS = 64;
const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'echo', description: 'Echo a token', parameters: { type: 'object', properties: { token: { type: 'string' } } } } },
];

function completionFor(token: number): string {
  return token % 2 === 0 ? `<tool_call>\n{"name": "echo", "arguments": {"token": "t${token}"}}\n</tool_call>` : `Token t${token} here.`;
}

describe('load', async () => {
  const h = await startHarness('qwen3', 'llama.cpp', { log: () => undefined });
  h.backend.script((request) => {
    const token = Number(/TOKEN (\d+)/.exec(String(request.body.prompt))![1]);
    return { pieces: pieces(completionFor(token), 2) };
  });
  const ask = (token: number) => ({ model: 'qwen3', tools, messages: [{ role: 'user' as const, content: `TOKEN ${token}` }] });

  function check(token: number, answer: { content: string | null; calls: Array<{ name: string; arguments: string }> }): void {
    if (token % 2 === 0) {
      expect(answer.content).toBeNull();
      expect(answer.calls).toEqual([{ name: 'echo', arguments: `{"token": "t${token}"}` }]);
    } else {
      expect(answer.content).toBe(`Token t${token} here.`);
      expect(answer.calls).toEqual([]);
    }
  }

  it(`${STREAMS} concurrent streams for ${seconds} s, then ${requests} requests: nothing lost or crossed`, async () => {
    let next = 0;
    let streamed = 0;
    const deadline = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: STREAMS }, async () => {
        while (Date.now() < deadline) {
          const token = next++;
          check(token, await fromStream(await h.openai.chat.completions.create({ ...ask(token), stream: true })));
          streamed++;
        }
      }),
    );
    expect(streamed).toBe(next);
    let done = 0;
    const first = next;
    await Promise.all(
      Array.from({ length: STREAMS }, async () => {
        while (next < first + requests) {
          const token = next++;
          const body = await h.openai.chat.completions.create(ask(token));
          const message = body.choices[0]!.message;
          check(token, { content: message.content, calls: (message.tool_calls ?? []).map((call) => ({ name: (call as { function: { name: string } }).function.name, arguments: (call as { function: { arguments: string } }).function.arguments })) });
          done++;
        }
      }),
    );
    expect(done).toBe(requests);
    // Every backend request ended normally: none left open, none cut.
    await Promise.all(h.backend.received.map((request) => request.finished));
    expect(h.backend.received).toHaveLength(streamed + requests);
    expect(h.backend.received.filter((request) => request.hungUp)).toEqual([]);
  });
});
