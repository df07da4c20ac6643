import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { hasShared, repoRoot, sharedDir } from '../helpers/shared.js';
import { createGateway, loadGatewayModel } from '../../src/gateway/index.js';
import { startReplayBackend } from './helpers/replay-backend.js';
import { parse, renderConversation, loadTemplate } from '../../src/index.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

const weather = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

describe('a gateway from a model folder (--template)', () => {
  it('detects the family, renders with the folder\'s template and parses its calls', async () => {
    const folder = join(repoRoot, 'fixtures', 'models', 'qwen3-response-template');
    const { model } = loadGatewayModel({ template: folder });
    expect(model.familyId).toBe('qwen3');
    const backend = await startReplayBackend();
    const listening = await createGateway({ model, backend: { url: backend.url, kind: 'llama.cpp' } }).listen(0);
    try {
      backend.script({ pieces: pieces('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>') });
      const openai = new OpenAI({ baseURL: `${listening.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const messages = [{ role: 'user' as const, content: 'Oslo?' }];
      const answer = await openai.chat.completions.create({ model: 'q', messages, tools: weather });
      expect(answer.choices[0]!.message.tool_calls).toHaveLength(1);
      const rendered = renderConversation(loadTemplate({ template: folder }), { messages, tools: weather }, { addGenerationPrompt: true }).text;
      expect(backend.received.at(-1)!.body.prompt).toBe(rendered);
    } finally {
      await listening.close();
      await backend.close();
    }
  });
});

describe('OpenAI Chat front-end through the openai client', async () => {
  const h = await startHarness('qwen3');

  it('answers a plain question, streamed and not, with the backend counts', async () => {
    h.backend.script({ pieces: pieces('<think>\nEasy.\n</think>\n\nParis is in France.'), promptTokens: 11, completionTokens: 9 });
    const messages = [{ role: 'user' as const, content: 'Where is Paris?' }];
    const whole = await h.openai.chat.completions.create({ model: 'qwen3', messages });
    expect(whole.choices[0]!.message.content).toBe('Paris is in France.');
    expect((whole.choices[0]!.message as unknown as Record<string, unknown>).reasoning_content).toBe('Easy.');
    expect(whole.choices[0]!.finish_reason).toBe('stop');
    expect(whole.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 });

    const stream = h.openai.chat.completions.stream({ model: 'qwen3', messages, stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Paris is in France.');
    expect(final.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 9 });

    const template = loadTemplate({ family: 'qwen3' });
    const expected = renderConversation(template, { messages }, { addGenerationPrompt: true }).text;
    expect(h.backend.received.at(-1)!.body.prompt).toBe(expected);
  });

  it('an empty answer has the same content streamed and not: "", as api.openai.com writes it', async () => {
    const messages = [{ role: 'user' as const, content: 'Say nothing.' }];
    for (const [completion, content] of [['', ''], ['<think>\nNothing to say.\n</think>\n\n', null]] as const) {
      h.backend.script({ pieces: pieces(completion) });
      const whole = await h.openai.chat.completions.create({ model: 'qwen3', messages });
      h.backend.script({ pieces: pieces(completion) });
      const streamed = await h.openai.chat.completions.stream({ model: 'qwen3', messages }).finalChatCompletion();
      expect(whole.choices[0]!.message.content, JSON.stringify(completion)).toBe(content);
      expect(streamed.choices[0]!.message.content, JSON.stringify(completion)).toBe(content);
    }
  });

  it('turns a call in the model format into an OpenAI tool call', async () => {
    const completion = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    h.backend.script({ pieces: pieces(completion, 2) });
    const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
    const stream = h.openai.chat.completions.stream({ model: 'qwen3', messages, tools: weather });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.content).toBeNull();
    expect(message.tool_calls).toHaveLength(1);
    const call = message.tool_calls![0]! as { function: { name: string; arguments: string } };
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    const batch = parse(completion, { family: 'qwen3', tools: weather });
    expect(call.function.arguments).toBe(batch.tool_calls[0]!.function.arguments);
  });

  it('takes reasoning in history as `reasoning` or `reasoning_content`, rendered as the template expects', async () => {
    // After the last user message, where Qwen3's template keeps the reasoning.
    const history = (field: 'reasoning' | 'reasoning_content') => [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, [field]: 'Greet back.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ];
    const prompts: unknown[] = [];
    for (const field of ['reasoning', 'reasoning_content'] as const) {
      h.backend.script({ pieces: pieces('Yes.') });
      await h.openai.chat.completions.create({ model: 'qwen3', messages: history(field) as never, tools: weather });
      prompts.push(h.backend.received.at(-1)!.body.prompt);
    }
    const template = loadTemplate({ family: 'qwen3' });
    const expected = renderConversation(template, { messages: history('reasoning_content') as never, tools: weather }, { addGenerationPrompt: true }).text;
    expect(prompts).toEqual([expected, expected]);
    expect(expected).toContain('<think>\nGreet back.\n</think>');
  });

  it('parallel_tool_calls: false ends the answer at the first complete call', async () => {
    const call = (city: string) => `<tool_call>\n{"name": "get_weather", "arguments": {"city": "${city}"}}\n</tool_call>`;
    const messages = [{ role: 'user' as const, content: 'Weather in Paris and Rome?' }];
    for (const parallel of [true, false]) {
      h.backend.script({ pieces: pieces(`${call('Paris')}\n${call('Rome')}`, 2) });
      const answer = await h.openai.chat.completions.create({ model: 'qwen3', messages, tools: weather, parallel_tool_calls: parallel });
      const cities = answer.choices[0]!.message.tool_calls!.map((c) => JSON.parse((c as { function: { arguments: string } }).function.arguments).city);
      expect(cities).toEqual(parallel ? ['Paris', 'Rome'] : ['Paris']);
      expect(answer.choices[0]!.finish_reason).toBe('tool_calls');
    }
  });
});

/** A stream reduced to its chunk kinds in order (repeats collapsed), and the keys each kind of chunk has. */
function shapeOf(sse: string): string[] {
  const kinds: string[] = [];
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = line.slice(6);
    let kind: string;
    if (data === '[DONE]') kind = 'done';
    else {
      const chunk = JSON.parse(data) as { choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: unknown; chatfmt_diagnostics?: unknown };
      const choice = chunk.choices[0];
      if (!choice) kind = chunk.usage ? 'usage' : 'extension';
      else if (choice.finish_reason) kind = `finish ${choice.finish_reason} ${Object.keys(choice.delta).join(',')}`;
      else {
        const delta = choice.delta;
        const call = (delta.tool_calls as Array<Record<string, unknown>> | undefined)?.[0];
        const callKind = call ? (call.id ? `call-start ${Object.keys(call).join(',')}` : 'call-args') : '';
        kind = [delta.role ? `role ${JSON.stringify(delta.content)}` : '', delta.content ? 'content' : '', callKind].filter(Boolean).join(' + ');
      }
      kind += ` | ${Object.keys(chunk).filter((key) => key !== 'system_fingerprint' && key !== 'usage').join(',')}`;
    }
    if (kinds.at(-1) !== kind) kinds.push(kind);
  }
  return kinds;
}

describe.skipIf(!hasShared)('OpenAI Chat stream order, against api.openai.com recordings', async () => {
  const h = await startHarness('qwen3');
  const recorded = (name: string) => readFileSync(join(sharedDir, 'wire', 'streams', 'openai-chat', name), 'utf8');

  async function ours(completion: string, tools?: unknown[], maxTokens?: number): Promise<string> {
    h.backend.script({ pieces: pieces(completion, 2), ...(maxTokens ? { stopType: 'limit' as const } : {}) });
    const response = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true }, ...(tools ? { tools } : {}) }),
    });
    return response.text();
  }

  it('a text answer, a single call and a length stop have the recorded chunk sequence and fields', async () => {
    expect(shapeOf(await ours('I cannot tell the weather.'))).toEqual(shapeOf(recorded('01-openai-text-usage.sse')));
    const tool = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
    const call = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "San Francisco, CA"}}\n</tool_call>';
    expect(shapeOf(await ours(call, tool))).toEqual(shapeOf(recorded('02-openai-single-tool-call.sse')));
    expect(shapeOf(await ours('{"', undefined, 1))).toEqual(shapeOf(recorded('04-openai-finish-length.sse')));
  });
});
