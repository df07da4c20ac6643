// The Anthropic Messages front-end end to end: @anthropic-ai/sdk against the gateway against the replay backend, on
// loopback. Every family x scenario: messages.create equals messages.stream().finalMessage() equals chatfmt's parse of
// the text the backend sent, and the prompt is chatfmt's render of the same conversation. An agent loop of three turns.
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { familyIds, loadTemplate, parse, renderConversation, type Message, type Tool } from '../../src/index.js';
import { anthropicMessagesProtocol } from '../../src/gateway/index.js';
import { promptTail } from '../../src/parse/assistant-headers.js';
import { writeWire, type WireMessage } from '../helpers/wire.js';
import { fromParse } from './helpers/answers.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';
import { comparableParse, fromAnthropic } from './protocol-answers.js';

const tools: Tool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'lookup', description: 'Look a word up', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } },
];
const anthropicTools: Anthropic.Tool[] = tools.map((tool) => {
  const fn = (tool as unknown as { function: { name: string; description: string; parameters: Anthropic.Tool.InputSchema } }).function;
  return { name: fn.name, description: fn.description, input_schema: fn.parameters };
});
const paris = { name: 'get_weather', arguments: { city: 'Paris' } };
const word = { name: 'lookup', arguments: { query: 'gateway' } };
const kinds = ['llama.cpp', 'openai', 'ollama'] as const;

const question: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
const afterResults: Anthropic.MessageParam[] = [
  ...question,
  { role: 'assistant', content: [{ type: 'tool_use', id: 'call_abc123', name: 'get_weather', input: { city: 'Paris' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc123', content: '{"temperature": 21}' }] },
];
/** The same conversations in chatfmt's message model, as `chatfmt render` takes them. */
const rendered: Record<string, Message[]> = {
  question: [{ role: 'user', content: 'What is the weather in Paris?' }],
  afterResults: [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc123', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_abc123', content: '{"temperature": 21}' },
  ],
};

interface Scenario {
  name: string;
  messages: Anthropic.MessageParam[];
  conversation: Message[];
  wire: WireMessage;
  cut?: (completion: string) => string;
}

const scenarios: Scenario[] = [
  { name: 'plain answer', messages: question, conversation: rendered.question!, wire: { parts: [{ text: 'It is sunny in Paris.' }] } },
  { name: 'one call', messages: question, conversation: rendered.question!, wire: { parts: [{ calls: [paris] }] } },
  { name: 'parallel calls', messages: question, conversation: rendered.question!, wire: { parts: [{ calls: [paris, word] }] } },
  { name: 'reasoning then call', messages: question, conversation: rendered.question!, wire: { reasoning: 'I should check the weather.', parts: [{ calls: [paris] }] } },
  { name: 'multi-turn with tool results', messages: afterResults, conversation: rendered.afterResults!, wire: { parts: [{ text: 'It is 21 degrees in Paris.' }] } },
  { name: 'malformed call', messages: question, conversation: rendered.question!, wire: { parts: [{ calls: [paris] }] }, cut: (text) => text.slice(0, text.indexOf('Paris') + 3) },
];

function anthropicClient(url: string): Anthropic {
  return new Anthropic({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
}

describe.each(familyIds.map((family, index) => ({ family, kind: kinds[index % kinds.length]! })))('Anthropic Messages, $family via $kind', async ({ family, kind }) => {
  const h = await startHarness(family, kind);
  const client = anthropicClient(h.url);
  const template = loadTemplate({ family });

  it.each(scenarios)('$name: streamed = non-streamed = parse; the prompt is the render', async (scenario) => {
    const wire = writeWire(family, scenario.wire);
    const completion = scenario.cut ? scenario.cut(wire.completion) : wire.completion;
    const params = { model: family, max_tokens: 256, messages: scenario.messages, tools: anthropicTools };
    h.backend.script({ pieces: pieces(completion, 3) });
    const { data: whole, response } = await client.messages.create(params).withResponse();
    const prompt = h.backend.received.at(-1)!.body.prompt;
    h.backend.script({ pieces: pieces(completion, 2) });
    const streamed = await client.messages.stream(params).finalMessage();
    expect(h.backend.received.at(-1)!.body.prompt).toBe(prompt);

    const renderedPrompt = renderConversation(template, { messages: scenario.conversation, tools }, { addGenerationPrompt: true }).text;
    expect(prompt).toBe(renderedPrompt);
    const parsed = fromParse(parse(completion, { family, tools, prefix: promptTail(renderedPrompt, family) }));
    expect(fromAnthropic(whole)).toEqual(comparableParse(parsed));
    expect(fromAnthropic(streamed)).toEqual(fromAnthropic(whole));
    expect(streamed.stop_reason).toBe(whole.stop_reason);
    expect(whole.stop_reason).toBe(parsed.calls.length > 0 ? 'tool_use' : 'end_turn');
    expect(whole.usage.output_tokens).toBe(pieces(completion, 3).length);
    if (scenario.cut) {
      expect(parsed.calls).toEqual([]);
      expect(fromAnthropic(whole).content).toContain('Par'); // no text lost
      expect(response.headers.get('x-chatfmt-diagnostics')).toBe(parsed.diagnostics.join(', '));
    }
  });
});

describe('Anthropic Messages through @anthropic-ai/sdk', async () => {
  const h = await startHarness('qwen3');
  const client = anthropicClient(h.url);
  const template = loadTemplate({ family: 'qwen3' });

  it('runs an agent loop of three turns; each prompt is the render of the conversation the client holds', async () => {
    const turns = [
      '<think>\nI need the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
      '<think>\nNow Lyon.\n</think>\n\nLyon next.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>',
      '<think>\nDone.\n</think>\n\nParis is 21 °C and Lyon is 19 °C.',
    ];
    const temperature: Record<string, number> = { Paris: 21, Lyon: 19 };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris' }, { type: 'text', text: 'and Lyon?' }] }];
    const conversation: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris\nand Lyon?' },
    ];
    for (const [turn, completion] of turns.entries()) {
      h.backend.script({ pieces: pieces(completion, 4) });
      const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }];
      const final = await client.messages.stream({ model: 'qwen3', max_tokens: 1024, system, messages, tools: anthropicTools }).finalMessage();
      expect(h.backend.received.at(-1)!.body.prompt).toBe(renderConversation(template, { messages: conversation, tools }, { addGenerationPrompt: true }).text);
      if (turn === 2) {
        expect(final.stop_reason).toBe('end_turn');
        expect(final.content.map((block) => block.type)).toEqual(['thinking', 'text']);
        expect(fromAnthropic(final).content).toBe('Paris is 21 °C and Lyon is 19 °C.');
        break;
      }
      expect(final.stop_reason).toBe('tool_use');
      const call = final.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')!;
      const city = (call.input as { city: string }).city;
      expect(city).toBe(turn === 0 ? 'Paris' : 'Lyon');
      const result = JSON.stringify({ temperature: temperature[city] });
      // The client sends the assistant turn back exactly as it received it (thinking, text, tool_use), as Claude Code does.
      messages.push({ role: 'assistant', content: final.content as Anthropic.ContentBlockParam[] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: [{ type: 'text', text: result }] }] });
      const { content, reasoning } = fromAnthropic(final);
      conversation.push({
        role: 'assistant', content, ...(reasoning === null ? {} : { reasoning_content: reasoning }),
        tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } }],
      });
      conversation.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  });

  it('honours tool_choice {type: tool}: the generation is pre-filled with the call opener and the name', async () => {
    h.backend.script({ pieces: pieces('{"city": "Paris"}}\n</tool_call>', 3) });
    const message = await client.messages.create({
      model: 'qwen3', max_tokens: 64, messages: question, tools: anthropicTools, tool_choice: { type: 'tool', name: 'get_weather' },
    });
    expect(String(h.backend.received.at(-1)!.body.prompt)).toMatch(/<tool_call>\n\{"name": "get_weather", "arguments": $/);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }]);
  });

  it('continues a prefill: the prompt ends inside the assistant turn', async () => {
    h.backend.script({ pieces: ['"title": "Warm colors"}'] });
    const message = await client.messages.create({
      model: 'qwen3', max_tokens: 64,
      messages: [{ role: 'user', content: 'Title this as JSON.' }, { role: 'assistant', content: [{ type: 'text', text: '{' }] }],
    });
    const expected = renderConversation(template, { messages: [{ role: 'user', content: 'Title this as JSON.' }, { role: 'assistant', content: '{' }] }, { continueFinalMessage: true }).text;
    expect(h.backend.received.at(-1)!.body.prompt).toBe(expected);
    expect(fromAnthropic(message).content).toBe('"title": "Warm colors"}');
  });

  it('reports a bad request in Anthropic shape, before any byte of a stream', async () => {
    const failure = await client.messages.create({ model: 'qwen3', max_tokens: 8, messages: [{ role: 'system' as 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages[0].role') },
    });
  });

  it('upstream fault mid-call: the stream ends with an error event and no tool_use; the whole answer is an error status', async () => {
    const completion = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    const cut = pieces(completion, 2);
    h.backend.script({ pieces: cut, fault: { kind: 'reset', after: 10 } });
    const stream = client.messages.stream({ model: 'qwen3', max_tokens: 64, messages: question, tools: anthropicTools });
    const seen: string[] = [];
    stream.on('streamEvent', (event) => seen.push(event.type === 'content_block_start' ? `start ${event.content_block.type}` : event.type));
    const failure = await stream.finalMessage().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(seen).not.toContain('start tool_use');
    expect(seen).not.toContain('message_stop');
    h.backend.script({ pieces: cut, fault: { kind: 'reset', after: 10 } });
    const whole = await client.messages.create({ model: 'qwen3', max_tokens: 64, messages: question, tools: anthropicTools }).catch((error: unknown) => error);
    expect(whole).toBeInstanceOf(Anthropic.APIError);
    const code = h.log.at(-1)!.error!;
    const expected = anthropicMessagesProtocol.toHttpError({ code, message: '' });
    expect((whole as InstanceType<typeof Anthropic.APIError>).status).toBe(expected.status);
    expect(((whole as InstanceType<typeof Anthropic.APIError>).error as { error: { type: string } }).error.type).toBe((expected.body as { error: { type: string } }).error.type);
  });

  it('carries a diagnostic on a ping the SDK skips, and in the header of a whole answer', async () => {
    const completion = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par';
    h.backend.script({ pieces: pieces(completion, 3) });
    const raw = await fetch(`${h.url}/v1/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3', max_tokens: 64, stream: true, messages: question, tools: anthropicTools }),
    });
    const text = await raw.text();
    const pings = text.split('\n\n').filter((frame) => frame.startsWith('event: ping'));
    expect(pings.length).toBeGreaterThan(0);
    expect(pings[0]).toContain('"chatfmt_diagnostic":{"code":"PARSE_');
  });
});

describe('Anthropic Messages in repair mode (in front of a chat endpoint)', async () => {
  const h = await startHarness('qwen3', 'openai', { repair: 'strict' });
  const client = anthropicClient(h.url);

  it('turns a call and reasoning the server left in content into thinking and tool_use, streamed and not', async () => {
    const leaked = '<think>\nHmm.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    const params = { model: 'qwen3:8b', max_tokens: 64, messages: question, tools: anthropicTools };
    h.backend.script({ pieces: pieces(leaked, 3) });
    const whole = await client.messages.create(params);
    expect(h.backend.received.at(-1)!.body).toMatchObject({ messages: [{ role: 'user', content: 'What is the weather in Paris?' }] });
    h.backend.script({ pieces: pieces(leaked, 2) });
    const streamed = await client.messages.stream(params).finalMessage();
    expect(fromAnthropic(whole)).toEqual({ content: 'Let me check.', reasoning: 'Hmm.', calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
    expect(fromAnthropic(streamed)).toEqual(fromAnthropic(whole));
    expect([whole.stop_reason, streamed.stop_reason]).toEqual(['tool_use', 'tool_use']);
  });
});
