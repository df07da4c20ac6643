// The provider under the real `ai` package: generateText and streamText with tools, a multi-step tool loop whose second
// prompt must be exactly chatfmt's render of the same conversation, finish reasons, usage, errors and abort.
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createChatfmt, GatewayFailure } from '../../src/ai-sdk/index.js';
import { loadTemplate, parse, renderConversation, type Message } from '../../src/index.js';
import { pieces } from '../gateway/helpers/replay-backend.js';
import { repoRoot } from '../helpers/shared.js';
import { replayBackend } from './helpers.js';
import type { ReceivedRequest, Replay } from '../gateway/helpers/replay-backend.js';

const weatherSchema = { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] } as const;
const openaiTools = [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city.', parameters: weatherSchema } }];
const forecasts: string[] = [];
const tools = {
  get_weather: tool({
    description: 'Current weather for a city.',
    inputSchema: jsonSchema<{ city: string; unit?: string }>(weatherSchema as never),
    execute: async ({ city }) => {
      forecasts.push(city);
      return { city, temperature: 21, condition: 'sunny' };
    },
  }),
};

/** One call per family as the model writes it, with what it says around the call. */
const CALLS: Record<string, string> = {
  qwen3: '<think>\nThe user wants Paris.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  'kimi-k2': '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
  'gpt-oss': '<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
  mistral: 'Let me check.[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris",  "unit": "celsius"}',
  'qwen3-coder': '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
  'deepseek-v3.1': '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
};
const ANSWER = 'It is 21 °C and sunny in Paris.';

/** First request: the family's call; every later one: the answer. */
function toolLoop(family: string): (request: ReceivedRequest) => Replay {
  return (request) => ({ pieces: pieces(request.body.prompt && /Paris.*21|21.*Paris/s.test(String(request.body.prompt)) ? ANSWER : CALLS[family]!, 3) });
}

describe('generateText and streamText through the provider', async () => {
  const backend = await replayBackend();

  it.each(Object.keys(CALLS))('%s: a two-step tool loop renders turn 2 exactly as chatfmt renders the conversation', async (family) => {
    const chatfmt = createChatfmt({ baseURL: backend.url, backendKind: 'llama.cpp', family });
    backend.script(toolLoop(family));
    const before = backend.received.length;
    forecasts.length = 0;
    const result = await generateText({ model: chatfmt('m'), system: 'Be brief.', prompt: 'Weather in Paris?', tools, stopWhen: stepCountIs(3) });
    expect(result.steps).toHaveLength(2);
    expect(forecasts).toEqual(['Paris']);
    expect(result.text).toBe(ANSWER);
    expect(result.finishReason).toBe('stop');
    expect(result.steps[0]!.finishReason).toBe('tool-calls');

    // The conversation as an OpenAI client would send it, from chatfmt's own parse of what the model wrote.
    const parsed = parse(CALLS[family]!, { family, tools: openaiTools });
    const call = result.steps[0]!.toolCalls[0]!;
    const assistant: Message = {
      role: 'assistant',
      content: parsed.content ?? '',
      ...(parsed.reasoning_content ? { reasoning_content: parsed.reasoning_content } : {}),
      tool_calls: [{ id: call.toolCallId, type: 'function', function: { name: 'get_weather', arguments: parsed.tool_calls[0]!.function.arguments } }],
    };
    if (family === 'kimi-k2' || family === 'mistral') expect(call.toolCallId).toBe(parsed.tool_calls[0]!.id);
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
      assistant,
      { role: 'tool', tool_call_id: call.toolCallId, name: 'get_weather', content: JSON.stringify({ city: 'Paris', temperature: 21, condition: 'sunny' }) },
    ];
    const turns = backend.received.slice(before);
    expect(turns).toHaveLength(2);
    const template = loadTemplate({ family });
    const first = renderConversation(template, { messages: messages.slice(0, 2), tools: openaiTools }, { addGenerationPrompt: true, args: 'auto' }).text;
    const second = renderConversation(template, { messages, tools: openaiTools }, { addGenerationPrompt: true, args: 'auto' }).text;
    expect(turns[0]!.body.prompt).toBe(first);
    expect(turns[1]!.body.prompt).toBe(second);
  });

  it('streamText streams reasoning, the call and its result, then the answer, with the usage the backend reported', async () => {
    const chatfmt = createChatfmt({ baseURL: `${backend.url}/v1`, backendKind: 'openai', family: 'qwen3' });
    backend.script((request) => ({ ...toolLoop('qwen3')(request), promptTokens: 40, completionTokens: 12 }));
    const result = streamText({ model: chatfmt('m'), prompt: 'Weather in Paris?', tools, stopWhen: stepCountIs(3) });
    const kinds: string[] = [];
    for await (const part of result.fullStream) if (!kinds.includes(part.type)) kinds.push(part.type);
    expect(kinds).toEqual(expect.arrayContaining(['reasoning-start', 'reasoning-delta', 'reasoning-end', 'tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call', 'tool-result', 'text-delta', 'finish']));
    expect(kinds.indexOf('reasoning-delta')).toBeLessThan(kinds.indexOf('tool-call'));
    expect(await result.text).toBe(ANSWER);
    expect(await result.reasoningText).toBeUndefined(); // the final step has none; the first step's is on its own
    const steps = await result.steps;
    expect(steps[0]!.reasoningText).toBe('The user wants Paris.');
    expect(steps[0]!.usage).toMatchObject({ inputTokens: 40, outputTokens: 12 });
    expect((await result.totalUsage).inputTokens).toBe(80);
  });

  it("forwards the provider's and the call's headers to the backend; includeRawChunks hands out each backend chunk as a raw part", async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, backendKind: 'llama.cpp', family: 'qwen3', headers: { 'x-tenant': 'team-a', 'x-trace': 'provider' }, apiKey: 'k1' });
    backend.script({ pieces: pieces(ANSWER, 4) });
    const result = streamText({ model: chatfmt('m'), prompt: 'Weather?', headers: { 'x-trace': 'call-7' }, includeRawChunks: true });
    const kinds: string[] = [];
    const raws: unknown[] = [];
    for await (const part of result.fullStream) {
      kinds.push(part.type);
      if (part.type === 'raw') raws.push(part.rawValue);
    }
    const headers = backend.received.at(-1)!.headers;
    expect(headers).toMatchObject({ 'x-tenant': 'team-a', 'x-trace': 'call-7', authorization: 'Bearer k1', 'content-type': 'application/json' });
    // every piece the backend sent, in order, before the text it became
    expect(raws.map((raw) => (raw as { text?: string }).text ?? '').join('')).toBe(ANSWER);
    expect(kinds.indexOf('raw')).toBeLessThan(kinds.indexOf('text-delta'));
    expect(await result.text).toBe(ANSWER);

    backend.script({ pieces: pieces(ANSWER, 4) });
    const plain = streamText({ model: chatfmt('m'), prompt: 'Weather?' });
    const plainKinds: string[] = [];
    for await (const part of plain.fullStream) plainKinds.push(part.type);
    expect(plainKinds).not.toContain('raw');
  });

  it('generate equals stream for the same completion', async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, backendKind: 'ollama', family: 'gpt-oss' });
    backend.script({ pieces: pieces(CALLS['gpt-oss']!, 2) });
    const generated = await generateText({ model: chatfmt('m'), prompt: 'Weather?', tools });
    const streamed = streamText({ model: chatfmt('m'), prompt: 'Weather?', tools });
    await streamed.consumeStream();
    expect((await streamed.toolCalls).map(({ toolName, input }) => ({ toolName, input }))).toEqual(generated.toolCalls.map(({ toolName, input }) => ({ toolName, input })));
    expect(await streamed.reasoningText).toBe(generated.reasoningText);
    expect(await streamed.finishReason).toBe(generated.finishReason);
    expect(generated.reasoningText).toBe('Need the weather.');
  });

  it('finish reasons: tool-calls for a call, stop for text, length when the token budget ran out', async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, family: 'hermes' });
    backend.script({ pieces: ['<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'] });
    expect((await generateText({ model: chatfmt('m'), prompt: 'x', tools })).finishReason).toBe('tool-calls');
    backend.script({ pieces: ['Hello.'] });
    expect((await generateText({ model: chatfmt('m'), prompt: 'x', tools })).finishReason).toBe('stop');
    backend.script({ pieces: ['Hello, this is a long'], stopType: 'limit' });
    const cut = await generateText({ model: chatfmt('m'), prompt: 'x', tools, maxOutputTokens: 5 });
    expect(cut.finishReason).toBe('length');
    expect(cut.rawFinishReason).toBe('limit');
    expect(backend.received.at(-1)!.body.n_predict).toBe(5);
  });

  it('a backend error before any output rejects the call with the gateway error', async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, family: 'qwen3' });
    backend.script({ pieces: [], fault: { kind: 'http-error', status: 500, body: { error: { message: 'out of memory' } } } });
    const failure = await generateText({ model: chatfmt('m'), prompt: 'x', maxRetries: 0 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayFailure);
    expect((failure as GatewayFailure).error).toMatchObject({ code: 'UPSTREAM_ERROR', upstreamStatus: 500 });
    expect((failure as Error).message).toContain('out of memory');
  });

  it('a backend stream cut before its end event is an error part after the text, not a finished answer', async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, family: 'qwen3' });
    backend.script({ pieces: pieces('Partial answer'), fault: { kind: 'cut', after: 2 } });
    const parts: Array<{ type: string; text?: string; error?: unknown }> = [];
    for await (const part of streamText({ model: chatfmt('m'), prompt: 'x', maxRetries: 0, onError: () => undefined }).fullStream) parts.push(part as never);
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.text).join('')).toBe('Partia');
    const error = parts.find((part) => part.type === 'error')?.error;
    expect(error).toBeInstanceOf(GatewayFailure);
    expect((error as GatewayFailure).error).toMatchObject({ code: 'UPSTREAM_PROTOCOL', message: expect.stringContaining('the answer was cut off') });
    expect(parts.some((part) => part.type === 'finish' && (part as { finishReason?: string }).finishReason === 'stop')).toBe(false);
  });

  it('aborting the call aborts the upstream request', async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, family: 'qwen3' });
    backend.script({ pieces: pieces('word '.repeat(400), 5), delayMs: 5 });
    const controller = new AbortController();
    const result = streamText({ model: chatfmt('m'), prompt: 'x', abortSignal: controller.signal });
    let deltas = 0;
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta' && ++deltas === 3) controller.abort();
    }
    const request = backend.received.at(-1)!;
    await request.finished;
    expect(request.hungUp).toBe(true);
    expect(deltas).toBeLessThan(50);
  });

  it('the abort signal alone ends the stream with its reason and hangs up on the backend', async () => {
    const model = createChatfmt({ baseURL: backend.url, family: 'qwen3' })('m');
    backend.script({ pieces: pieces('word '.repeat(400), 5), delayMs: 5 });
    const controller = new AbortController();
    const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], abortSignal: controller.signal });
    const reader = stream.getReader();
    let read = 0;
    const outcome = await (async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return 'ended';
        if (++read === 5) controller.abort();
      }
    })().catch((error: unknown) => error);
    expect(outcome).toMatchObject({ name: 'AbortError' });
    const request = backend.received.at(-1)!;
    await request.finished;
    expect(request.hungUp).toBe(true);
  });

  it('a named tool choice pre-fills the call opener, and the model only writes the arguments', async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, family: 'qwen3' });
    backend.script({ pieces: pieces('{"city": "Rome"}}\n</tool_call>', 4) });
    const result = await generateText({ model: chatfmt('m'), prompt: 'Weather in Rome?', tools, toolChoice: { type: 'tool', toolName: 'get_weather' } });
    expect(String(backend.received.at(-1)!.body.prompt).endsWith('<tool_call>\n{"name": "get_weather", "arguments": ')).toBe(true);
    expect(result.toolCalls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([{ toolName: 'get_weather', input: { city: 'Rome' } }]);
    expect(result.finishReason).toBe('tool-calls');
  });

  it('a template given as Jinja text renders as the family does and finds its parser by detection', async () => {
    const source = readFileSync(join(repoRoot, 'templates', 'qwen3.jinja'), 'utf8');
    const chatfmt = createChatfmt({ baseURL: backend.url, template: source });
    backend.script({ pieces: pieces(CALLS.qwen3!, 5) });
    const result = await generateText({ model: chatfmt('m'), prompt: 'Weather in Paris?', tools });
    const rendered = renderConversation(loadTemplate({ family: 'qwen3' }), { messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: openaiTools }, { addGenerationPrompt: true }).text;
    expect(backend.received.at(-1)!.body.prompt).toBe(rendered);
    expect(result.toolCalls.map(({ input }) => input)).toEqual([{ city: 'Paris' }]);
    expect(result.reasoningText).toBe('The user wants Paris.');
  });

  it('settings a raw backend cannot take come back as warnings; sampling settings reach the backend', async () => {
    const chatfmt = createChatfmt({ baseURL: backend.url, family: 'qwen3' });
    backend.script({ pieces: ['Hi.'] });
    const result = await generateText({ model: chatfmt('m'), prompt: 'x', presencePenalty: 0.5, temperature: 0.2, topK: 7, seed: 3, stopSequences: ['END'] });
    expect(result.warnings).toEqual([expect.objectContaining({ type: 'unsupported', feature: 'presencePenalty' })]);
    const body = backend.received.at(-1)!.body;
    expect(body).toMatchObject({ temperature: 0.2, top_k: 7, seed: 3 });
    expect(body.stop).toContain('END');
    expect(body.stop).toContain('<|im_end|>');
  });
});
