// chatfmtMiddleware over a mock chat model whose server left the model's native markup in text-delta: recorded outputs
// (fixtures/parse) under one-character and many seeded random chunkings read exactly as chatfmt's batch parse, in
// wrapStream and wrapGenerate, with the part lifecycle kept; and the AI SDK's own tool loop runs on the parsed calls.
import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { chatfmtMiddleware } from '../../src/ai-sdk/index.js';
import { parse, type FunctionTool, type Tool } from '../../src/index.js';
import { loadParseFixtures } from '../helpers/parse-fixtures.js';
import { answerOf, expectLifecycle, randomPieces, readAll, type Answer } from './helpers.js';

const FAMILIES = ['hermes', 'qwen3', 'qwen3-coder', 'gpt-oss', 'deepseek-v3.1', 'mistral', 'kimi-k2'];
const SEEDS = 25;
const fixtures = loadParseFixtures().filter((fixture) => FAMILIES.includes(fixture.family));
const usage = { inputTokens: { total: 9, noCache: 9, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 4, text: 4, reasoning: undefined } };

function textStream(pieces: string[], extra: LanguageModelV4StreamPart[] = []): ReadableStream<LanguageModelV4StreamPart> {
  const chunks: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    ...extra,
    { type: 'text-start', id: 'up-0' },
    ...pieces.map((delta) => ({ type: 'text-delta' as const, id: 'up-0', delta })),
    { type: 'text-end', id: 'up-0' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ];
  return simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null });
}

function sdkTools(tools: Tool[] | undefined): LanguageModelV4FunctionTool[] {
  return (tools ?? []).map((entry) => {
    const fn = (entry as FunctionTool).function;
    return { type: 'function', name: fn.name, inputSchema: (fn.parameters ?? { type: 'object' }) as never };
  });
}

function batchAnswer(completion: string, options: { family: string; tools?: Tool[]; prefix?: string }): Answer {
  const parsed = parse(completion, options);
  return {
    text: parsed.content ?? '',
    reasoning: parsed.reasoning_content ?? '',
    calls: parsed.tool_calls.map((call) => ({ name: call.function.name, input: JSON.parse(call.function.arguments || '{}') })),
  };
}

describe.each(FAMILIES)('%s markup left in text by a chat server', (family) => {
  const cases = () => fixtures.filter((fixture) => fixture.family === family);

  it('wrapStream and wrapGenerate read every recorded output as the batch parse, under every chunking', async () => {
    expect(cases().length).toBeGreaterThan(5);
    for (const fixture of cases()) {
      const prefix = fixture.prefix !== undefined ? { prefix: fixture.prefix } : {};
      const expected = batchAnswer(fixture.completion, { family, ...(fixture.tools ? { tools: fixture.tools } : {}), ...prefix });
      const options: LanguageModelV4CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'Go.' }] }], tools: sdkTools(fixture.tools) };
      const middleware = chatfmtMiddleware({ family, ...prefix });
      const chunkings = [Array.from(fixture.completion), ...Array.from({ length: SEEDS }, (_, seed) => randomPieces(fixture.completion, seed + 1000 * fixture.name.length))];
      for (const [at, pieces] of chunkings.entries()) {
        const model = wrapLanguageModel({ model: new MockLanguageModelV4({ doStream: async () => ({ stream: textStream(pieces) }) }), middleware });
        const parts = await readAll((await model.doStream(options)).stream);
        const label = `${fixture.name}, chunking ${at}`;
        expectLifecycle(parts);
        expect(answerOf(parts), label).toEqual(expected);
        const finish = parts.at(-1);
        expect(finish?.type === 'finish' && finish.finishReason.unified, label).toBe(expected.calls.length > 0 ? 'tool-calls' : 'stop');
      }
      const generating = wrapLanguageModel({
        model: new MockLanguageModelV4({ doGenerate: { content: [{ type: 'text', text: fixture.completion }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] } }),
        middleware,
      });
      const generated = await generating.doGenerate(options);
      expect(answerOf(generated.content), `${fixture.name}, generated`).toEqual(expected);
      expect(generated.finishReason.unified).toBe(expected.calls.length > 0 ? 'tool-calls' : 'stop');
    }
  });
});

describe('chatfmtMiddleware with the AI SDK', () => {
  const weather = tool({
    inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    execute: async ({ city }) => `${city}: 21 °C`,
  });
  const CALL = '<think>\nChecking.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

  it('runs a streamText tool loop on calls parsed out of the text, with unique ids and no markup in the text', async () => {
    const replies = [CALL, 'Sunny, 21 °C.'];
    const mock = new MockLanguageModelV4({ doStream: async () => ({ stream: textStream(randomPieces(replies.shift()!, 7, 3)) }) });
    const result = streamText({ model: wrapLanguageModel({ model: mock, middleware: chatfmtMiddleware({ family: 'qwen3' }) }), prompt: 'Weather?', tools: { get_weather: weather }, stopWhen: stepCountIs(3) });
    const text: string[] = [];
    const ids: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text.push(part.text);
      if (part.type === 'tool-input-start') ids.push(part.id);
    }
    expect(text.join('')).toBe('Sunny, 21 °C.');
    const steps = await result.steps;
    expect(steps).toHaveLength(2);
    expect(steps[0]!.reasoningText).toBe('Checking.');
    expect(steps[0]!.toolResults[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'Paris' }, output: 'Paris: 21 °C' });
    expect(ids).toEqual([steps[0]!.toolCalls[0]!.toolCallId]);
    // What the middleware sends: the request as the caller made it, tools and all (the server renders them natively).
    expect(mock.doStreamCalls[0]!.tools?.map((entry) => entry.name)).toEqual(['get_weather']);
  });

  it('generateText: the same answer from wrapGenerate', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: { content: [{ type: 'text', text: CALL }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] } });
    const result = await generateText({ model: wrapLanguageModel({ model: mock, middleware: chatfmtMiddleware({ family: 'qwen3' }) }), prompt: 'Weather?', tools: { get_weather: weather } });
    expect(result.finishReason).toBe('tool-calls');
    expect(result.reasoningText).toBe('Checking.');
    expect(result.text).toBe('');
    expect(result.toolCalls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([{ toolName: 'get_weather', input: { city: 'Paris' } }]);
  });

  it("keeps the server's own reasoning and calls in place and never reuses their ids", async () => {
    const server: LanguageModelV4StreamPart[] = [
      { type: 'reasoning-start', id: 'r0' },
      { type: 'reasoning-delta', id: 'r0', delta: 'Server-parsed.' },
      { type: 'reasoning-end', id: 'r0' },
      { type: 'tool-input-start', id: 'functions.get_weather:0', toolName: 'get_weather' },
      { type: 'tool-input-delta', id: 'functions.get_weather:0', delta: '{"city":"Rome"}' },
      { type: 'tool-input-end', id: 'functions.get_weather:0' },
      { type: 'tool-call', toolCallId: 'functions.get_weather:0', toolName: 'get_weather', input: '{"city":"Rome"}' },
    ];
    // The model's own markup reuses the id the server already gave its native call.
    const markup = 'Both. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>';
    const stream = simulateReadableStream({
      chunks: [...server, { type: 'text-start', id: 't' }, ...randomPieces(markup, 3, 4).map((delta) => ({ type: 'text-delta', id: 't', delta })), { type: 'text-end', id: 't' }, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage }] as LanguageModelV4StreamPart[],
      initialDelayInMs: null,
      chunkDelayInMs: null,
    });
    const model = wrapLanguageModel({ model: new MockLanguageModelV4({ doStream: async () => ({ stream }) }), middleware: chatfmtMiddleware({ family: 'kimi-k2' }) });
    const parts = await readAll((await model.doStream({ prompt: [], tools: sdkTools([{ type: 'function', function: { name: 'get_weather' } }]) })).stream);
    expectLifecycle(parts);
    expect(parts.slice(0, server.length)).toEqual(server);
    expect(answerOf(parts)).toEqual({ text: 'Both.', reasoning: 'Server-parsed.', calls: [{ name: 'get_weather', input: { city: 'Rome' } }, { name: 'get_weather', input: { city: 'Oslo' } }] });
    const finish = parts.at(-1);
    expect(finish?.type === 'finish' && finish.finishReason).toEqual({ unified: 'tool-calls', raw: 'stop' });
  });
});
