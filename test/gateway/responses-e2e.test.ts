// The Responses front-end end to end: the openai client's `responses` API against the gateway against the replay
// backend, on loopback. Every family x scenario: responses.create = responses.stream().finalResponse() = chatfmt's
// parse of the text the backend sent, with the prompt equal to chatfmt's render; a Codex-style agent loop.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { familyIds, loadTemplate, parse, renderConversation, type Message, type Tool } from '../../src/index.js';
import { promptTail } from '../../src/parse/assistant-headers.js';
import { writeWire, type WireMessage } from '../helpers/wire.js';
import { fromParse } from './helpers/answers.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';
import { comparableParse, fromResponse } from './protocol-answers.js';

const tools: Tool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'lookup', description: 'Look a word up', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } },
];
/** Responses tools are flat, as Codex sends them. */
const flatTools: OpenAI.Responses.FunctionTool[] = tools.map((tool) => {
  const fn = (tool as unknown as { function: { name: string; description: string; parameters: Record<string, unknown> } }).function;
  return { type: 'function', name: fn.name, description: fn.description, parameters: fn.parameters, strict: false };
});
const paris = { name: 'get_weather', arguments: { city: 'Paris' } };
const word = { name: 'lookup', arguments: { query: 'gateway' } };
const kinds = ['llama.cpp', 'openai', 'ollama'] as const;

const question: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
const afterResults: OpenAI.Responses.ResponseInputItem[] = [
  ...question,
  { type: 'function_call', call_id: 'call_abc123', name: 'get_weather', arguments: '{"city": "Paris"}' },
  { type: 'function_call_output', call_id: 'call_abc123', output: '{"temperature": 21}' },
];
const conversations: Record<string, Message[]> = {
  question: [{ role: 'user', content: 'What is the weather in Paris?' }],
  afterResults: [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_abc123', content: '{"temperature": 21}' },
  ],
};

interface Scenario {
  name: string;
  input: OpenAI.Responses.ResponseInputItem[];
  conversation: Message[];
  wire: WireMessage;
  cut?: (completion: string) => string;
}

const scenarios: Scenario[] = [
  { name: 'plain answer', input: question, conversation: conversations.question!, wire: { parts: [{ text: 'It is sunny in Paris.' }] } },
  { name: 'one call', input: question, conversation: conversations.question!, wire: { parts: [{ calls: [paris] }] } },
  { name: 'parallel calls', input: question, conversation: conversations.question!, wire: { parts: [{ calls: [paris, word] }] } },
  { name: 'reasoning then call', input: question, conversation: conversations.question!, wire: { reasoning: 'I should check the weather.', parts: [{ calls: [paris] }] } },
  { name: 'multi-turn with tool results', input: afterResults, conversation: conversations.afterResults!, wire: { parts: [{ text: 'It is 21 degrees in Paris.' }] } },
  { name: 'malformed call', input: question, conversation: conversations.question!, wire: { parts: [{ calls: [paris] }] }, cut: (text) => text.slice(0, text.indexOf('Paris') + 3) },
];

describe.each(familyIds.map((family, index) => ({ family, kind: kinds[(index + 1) % kinds.length]! })))('Responses, $family via $kind', async ({ family, kind }) => {
  const h = await startHarness(family, kind);
  const template = loadTemplate({ family });

  it.each(scenarios)('$name: streamed = non-streamed = parse; the prompt is the render', async (scenario) => {
    const wire = writeWire(family, scenario.wire);
    const completion = scenario.cut ? scenario.cut(wire.completion) : wire.completion;
    const params = { model: family, input: scenario.input, tools: flatTools, store: false };
    h.backend.script({ pieces: pieces(completion, 3) });
    const { data: whole, response } = await h.openai.responses.create(params).withResponse();
    const prompt = h.backend.received.at(-1)!.body.prompt;
    h.backend.script({ pieces: pieces(completion, 2) });
    const streamed = await h.openai.responses.stream(params).finalResponse();
    expect(h.backend.received.at(-1)!.body.prompt).toBe(prompt);

    const renderedPrompt = renderConversation(template, { messages: scenario.conversation, tools }, { addGenerationPrompt: true }).text;
    expect(prompt).toBe(renderedPrompt);
    const parsed = fromParse(parse(completion, { family, tools, prefix: promptTail(renderedPrompt, family) }));
    expect(fromResponse(whole)).toEqual(comparableParse(parsed));
    expect(fromResponse(streamed)).toEqual(fromResponse(whole));
    // the model's own argument text reaches the client verbatim
    expect(whole.output.flatMap((item) => (item.type === 'function_call' ? [item.arguments] : []))).toEqual(parsed.calls.map((call) => call.arguments));
    expect(whole.status).toBe('completed');
    expect(whole.usage).toMatchObject({ output_tokens: pieces(completion, 3).length });
    if (scenario.cut) {
      expect(fromResponse(whole).content).toContain('Par'); // no text lost
      expect(response.headers.get('x-chatfmt-diagnostics')).toBe(parsed.diagnostics.join(', '));
      expect(whole.metadata).toEqual({ chatfmt_diagnostics: parsed.diagnostics.join(', ') });
      expect(streamed.metadata).toEqual(whole.metadata);
    }
  });
});

describe('Responses through the openai client', async () => {
  const h = await startHarness('qwen3', 'openai');
  const template = loadTemplate({ family: 'qwen3' });

  it('runs a Codex-style agent loop: output items replayed in input; each prompt is the render of the conversation', async () => {
    const turns = [
      '<think>\nI need the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
      '<think>\nNow Lyon.\n</think>\n\nLyon next.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>',
      '<think>\nDone.\n</think>\n\nParis is 21 °C and Lyon is 19 °C.',
    ];
    const temperature: Record<string, number> = { Paris: 21, Lyon: 19 };
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { type: 'message', role: 'developer', content: 'Be careful.' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris' }, { type: 'input_text', text: 'and Lyon?' }] },
    ];
    const conversation: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'system', content: 'Be careful.' },
      { role: 'user', content: 'Weather in Paris\nand Lyon?' },
    ];
    for (const [turn, completion] of turns.entries()) {
      h.backend.script({ pieces: pieces(completion, 4) });
      const final = await h.openai.responses.stream({
        model: 'qwen3', instructions: 'You are terse.', input, tools: flatTools, store: false, stream: true, parallel_tool_calls: true,
        include: ['reasoning.encrypted_content'], prompt_cache_key: 'session-1', reasoning: { effort: 'medium', summary: 'auto' }, tool_choice: 'auto',
      }).finalResponse();
      expect(h.backend.received.at(-1)!.body.prompt).toBe(renderConversation(template, { messages: conversation, tools }, { addGenerationPrompt: true, variables: { reasoning_effort: 'medium' } }).text);
      if (turn === 2) {
        expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
        expect(final.output_text).toBe('Paris is 21 °C and Lyon is 19 °C.');
        break;
      }
      const call = final.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      const city = (JSON.parse(call.arguments) as { city: string }).city;
      expect(city).toBe(turn === 0 ? 'Paris' : 'Lyon');
      const output = JSON.stringify({ temperature: temperature[city] });
      input.push(...(final.output as OpenAI.Responses.ResponseInputItem[]));
      input.push({ type: 'function_call_output', call_id: call.call_id, output });
      const { content, reasoning } = fromResponse(final);
      conversation.push({
        role: 'assistant', content, ...(reasoning === null ? {} : { reasoning_content: reasoning }),
        tool_calls: [{ id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } }],
      });
      conversation.push({ role: 'tool', tool_call_id: call.call_id, content: output });
    }
  });

  it('streams typed events with consecutive sequence numbers, as the SDK types them', async () => {
    h.backend.script({ pieces: pieces('<think>\nHm.\n</think>\n\nSunny.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', 3) });
    const stream = await h.openai.responses.create({ model: 'qwen3', input: 'Weather in Paris?', tools: flatTools, stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const kinds = events.map((event) => event.type).filter((type, i, all) => !type.endsWith('.delta') || all[i - 1] !== type);
    expect(kinds).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.content_part.added', 'response.reasoning_text.delta', 'response.reasoning_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
  });

  it("repeats the request's settings in the response, streamed and not; the client's metadata keeps its keys beside the diagnostics", async () => {
    const completion = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par';
    const params = {
      model: 'qwen3', instructions: 'You are terse.', input: 'Weather in Paris?', tools: flatTools, tool_choice: 'required' as const,
      parallel_tool_calls: false, temperature: 0.25, top_p: 0.5, max_output_tokens: 300, metadata: { session: 's-1' }, store: false,
    };
    h.backend.script({ pieces: pieces(completion, 3) });
    const whole = await h.openai.responses.create(params);
    h.backend.script({ pieces: pieces(completion, 3) });
    const created: OpenAI.Responses.Response[] = [];
    const stream = h.openai.responses.stream(params).on('response.created', (event) => created.push(event.response));
    const streamed = await stream.finalResponse();
    for (const response of [whole, streamed, created[0]!]) {
      expect(response).toMatchObject({
        instructions: 'You are terse.', tools: flatTools, tool_choice: 'required', parallel_tool_calls: false, temperature: 0.25, top_p: 0.5, max_output_tokens: 300,
      });
    }
    expect(whole.metadata).toEqual({ session: 's-1', chatfmt_diagnostics: expect.stringMatching(/\S/) as unknown as string });
    expect(streamed.metadata).toEqual(whole.metadata);
    expect(created[0]!.metadata).toEqual({ session: 's-1' });
  });

  it('reports errors in OpenAI shape: a bad request as 400, a fault mid-call as an error event then a 5xx', async () => {
    const bad = await h.openai.responses.create({ model: 'qwen3', input: 'x', previous_response_id: 'resp_1' }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.APIError>).param).toBe('previous_response_id');

    const completion = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    h.backend.script({ pieces: pieces(completion, 2), fault: { kind: 'reset', after: 10 } });
    const types: string[] = [];
    const failure = await (async () => {
      try {
        for await (const event of await h.openai.responses.create({ model: 'qwen3', input: 'Weather?', tools: flatTools, stream: true })) types.push(event.type);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(types).not.toContain('response.function_call_arguments.done');
    expect(types).not.toContain('response.completed');
    // on the wire: the error event, then response.failed, numbered on from the events before them
    h.backend.script({ pieces: pieces(completion, 2), fault: { kind: 'reset', after: 10 } });
    const raw = await fetch(`${h.url}/v1/responses`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3', input: 'Weather?', tools: flatTools, stream: true }),
    });
    const events = (await raw.text()).split('\n\n').filter((frame) => frame !== '')
      .map((frame) => JSON.parse(frame.split('\n').find((line) => line.startsWith('data: '))!.slice(6)) as { type: string; sequence_number: number });
    expect(events.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    h.backend.script({ pieces: pieces(completion, 2), fault: { kind: 'reset', after: 10 } });
    const whole = await h.openai.responses.create({ model: 'qwen3', input: 'Weather?', tools: flatTools }).catch((error: unknown) => error);
    expect((whole as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
  });
});

describe('Responses in repair mode (in front of a chat endpoint)', async () => {
  const h = await startHarness('qwen3', 'openai', { repair: 'strict' });

  it('turns a call and reasoning the server left in content into a reasoning item and a function_call, streamed and not', async () => {
    const leaked = '<think>\nHmm.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    const params = { model: 'qwen3:8b', input: question, tools: flatTools };
    h.backend.script({ pieces: pieces(leaked, 3) });
    const whole = await h.openai.responses.create(params);
    h.backend.script({ pieces: pieces(leaked, 2) });
    const streamed = await h.openai.responses.stream(params).finalResponse();
    expect(fromResponse(whole)).toEqual({ content: 'Let me check.', reasoning: 'Hmm.', calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
    expect(fromResponse(streamed)).toEqual(fromResponse(whole));
  });
});
