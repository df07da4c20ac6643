// For every family and scenario, through the real openai client: the streamed answer equals the non-streamed one,
// and both equal chatfmt's parse of the text the backend sent (prefill included, from the prompt's tail); the prompt
// the backend received is chatfmt's render of the same conversation, byte for byte.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { familyIds, loadTemplate, parse, renderConversation, type Message, type Tool } from '../../src/index.js';
import { callPrefill } from '../../src/gateway/index.js';
import { fromCompletion, fromParse, fromStream } from './helpers/answers.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';
import { writeWire, type WireMessage } from '../helpers/wire.js';
import { promptTail } from '../../src/parse/assistant-headers.js';

const tools: Tool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'lookup', description: 'Look a word up', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } },
];
const paris = { name: 'get_weather', arguments: { city: 'Paris' } };
const word = { name: 'lookup', arguments: { query: 'gateway' } };
const kinds = ['llama.cpp', 'openai', 'ollama'] as const;

const question: Message[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
const afterResults: Message[] = [
  ...question,
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
  { role: 'tool', tool_call_id: 'call_abc123', content: '{"temperature": 21}' },
];

interface Scenario {
  name: string;
  messages: Message[];
  wire: WireMessage;
  toolChoice?: 'required' | { type: 'function'; function: { name: string } };
  /** Cut the completion here (a malformed, truncated call). */
  cut?: (completion: string) => string;
  expectCalls?: number;
}

const scenarios: Scenario[] = [
  { name: 'plain answer', messages: question, wire: { parts: [{ text: 'It is sunny in Paris.' }] }, expectCalls: 0 },
  { name: 'one call', messages: question, wire: { parts: [{ calls: [paris] }] } },
  { name: 'parallel calls', messages: question, wire: { parts: [{ calls: [paris, word] }] } },
  { name: 'reasoning then call', messages: question, wire: { reasoning: 'I should check the weather.', parts: [{ calls: [paris] }] } },
  { name: 'multi-turn with tool results', messages: afterResults, wire: { parts: [{ text: 'It is 21 degrees in Paris.' }] }, expectCalls: 0 },
  { name: 'malformed call', messages: question, wire: { parts: [{ calls: [paris] }] }, cut: (text) => text.slice(0, text.indexOf('Paris') + 3), expectCalls: 0 },
];

describe.each(familyIds.map((family, index) => ({ family, kind: kinds[index % kinds.length]! })))('$family via $kind', async ({ family, kind }) => {
  const h = await startHarness(family, kind);
  const template = loadTemplate({ family });

  async function ask(messages: Message[], completion: string, extra: Partial<OpenAI.Chat.Completions.ChatCompletionCreateParams> = {}) {
    const params = { model: family, messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[], tools: tools as OpenAI.Chat.Completions.ChatCompletionTool[], ...extra };
    h.backend.script({ pieces: pieces(completion, 3) });
    const whole = fromCompletion(await h.openai.chat.completions.create({ ...params, stream: false }));
    const wholePrompt = h.backend.received.at(-1)!.body.prompt;
    h.backend.script({ pieces: pieces(completion, 2) });
    const { chunks, ...streamed } = await fromStream(await h.openai.chat.completions.create({ ...params, stream: true }));
    const streamedPrompt = h.backend.received.at(-1)!.body.prompt;
    expect(streamedPrompt).toBe(wholePrompt);
    expect(chunks).toBeGreaterThan(1);
    return { whole, streamed, prompt: String(wholePrompt) };
  }

  it.each(scenarios)('$name', async (scenario) => {
    const wire = writeWire(family, scenario.wire);
    const completion = scenario.cut ? scenario.cut(wire.completion) : wire.completion;
    const { whole, streamed, prompt } = await ask(scenario.messages, completion);
    const rendered = renderConversation(template, { messages: scenario.messages, tools }, { addGenerationPrompt: true }).text;
    expect(prompt).toBe(rendered);
    const expected = fromParse(parse(completion, { family, tools, prefix: promptTail(rendered, family) }));
    expect({ ...streamed, finish: undefined }).toEqual({ ...expected, finish: undefined });
    expect({ ...whole, finish: undefined }).toEqual({ ...expected, finish: undefined });
    expect(streamed.finish).toBe(whole.finish);
    expect(whole.finish).toBe(expected.calls.length > 0 ? 'tool_calls' : 'stop');
    expect(whole.calls.map((call) => call.name)).toEqual(scenario.expectCalls === 0 ? [] : wire.calls.map((call) => call.name));
    if (scenario.cut) {
      // Malformed output loses no text: the broken call is content, with a diagnostic.
      expect(whole.content).toContain('Par');
      expect(whole.diagnostics.length).toBeGreaterThan(0);
    }
  });

  it('forced tool_choice: the generation is pre-filled with the call opener and the name', async () => {
    const prefill = callPrefill(family, { name: 'get_weather' }, question, undefined);
    const wire = writeWire(family, { parts: [{ calls: [paris] }] }).completion;
    // The model continues after the opener: the replay is the rest of the family's own call.
    const at = wire.indexOf(prefill);
    const continuation = at >= 0 ? wire.slice(at + prefill.length) : continuationOf(family, wire);
    const { whole, streamed, prompt } = await ask(question, continuation, { tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    const rendered = renderConversation(template, { messages: question, tools }, { addGenerationPrompt: true }).text;
    expect(prompt.startsWith(rendered)).toBe(true);
    const sentPrefill = prompt.slice(rendered.length);
    expect(sentPrefill.endsWith(prefill)).toBe(true);
    const expected = fromParse(parse(sentPrefill + continuation, { family, tools, prefix: promptTail(rendered, family) }));
    expect(streamed).toEqual({ ...expected, finish: 'tool_calls' });
    expect(whole).toEqual({ ...expected, finish: 'tool_calls' });
    expect(whole.calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([['get_weather', { city: 'Paris' }]]);
  });

  it('tool_choice required: the generation is pre-filled with the call opener alone', async (context) => {
    const prefill = callPrefill(family, 'required', question, undefined);
    const wire = writeWire(family, { parts: [{ calls: [paris] }] }).completion;
    const at = wire.indexOf(prefill);
    // Families whose own call text does not start with the bare opener chatfmt uses (a section marker first).
    if (at < 0) return context.skip();
    const continuation = wire.slice(at + prefill.length);
    const { whole, streamed, prompt } = await ask(question, continuation, { tool_choice: 'required' });
    const rendered = renderConversation(template, { messages: question, tools }, { addGenerationPrompt: true }).text;
    expect(prompt.endsWith(prefill)).toBe(true);
    const expected = fromParse(parse(prompt.slice(rendered.length) + continuation, { family, tools, prefix: promptTail(rendered, family) }));
    expect(streamed).toEqual({ ...expected, finish: 'tool_calls' });
    expect(whole).toEqual({ ...expected, finish: 'tool_calls' });
    expect(whole.calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([['get_weather', { city: 'Paris' }]]);
  });

  it('upstream fault mid-call: the stream reports an error, the call never arrives, and the whole answer is a 502', async () => {
    const completion = writeWire(family, { parts: [{ text: 'Checking.' }, { calls: [paris] }] }).completion;
    const cut = pieces(completion, 2);
    const at = Math.max(1, cut.findIndex((_, i) => cut.slice(0, i).join('').includes('Par')));
    h.backend.script({ pieces: cut, fault: { kind: 'reset', after: at } });
    const stream = await h.openai.chat.completions.create({ model: family, messages: question as OpenAI.Chat.Completions.ChatCompletionMessageParam[], tools: tools as OpenAI.Chat.Completions.ChatCompletionTool[], stream: true });
    let calls = 0;
    let text = '';
    const failure = await (async () => {
      try {
        for await (const chunk of stream) {
          calls += chunk.choices[0]?.delta.tool_calls?.length ?? 0;
          text += chunk.choices[0]?.delta.content ?? '';
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(calls).toBe(0);
    h.backend.script({ pieces: cut, fault: { kind: 'reset', after: at } });
    const whole = await h.openai.chat.completions.create({ model: family, messages: question as OpenAI.Chat.Completions.ChatCompletionMessageParam[], tools: tools as OpenAI.Chat.Completions.ChatCompletionTool[] }).catch((error: unknown) => error);
    expect(whole).toBeInstanceOf(OpenAI.APIError);
    expect((whole as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(text.length).toBeLessThanOrEqual(cut.slice(0, at).join('').length);
  });
});

/** Where the writer's call does not begin with the opener chatfmt pre-fills (a section marker or tag before it). */
function continuationOf(family: string, wire: string): string {
  const args = JSON.stringify(paris.arguments);
  if (family === 'llama-3' || family === 'mistral' || family === 'qwen3' || family === 'hermes' || family === 'qwen2.5') return wire.slice(wire.indexOf(args));
  throw new Error(`no continuation for ${family}: ${wire}`);
}
