// An agent loop through the openai client: the model calls a tool, the client runs it and sends the result, the
// model answers. Each turn's prompt is chatfmt's render of the conversation the client holds, byte for byte.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { loadTemplate, renderConversation, type Message, type Tool } from '../../src/index.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

const tools: Tool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];

/** The model's turns, in each family's own format. */
const turns: Record<string, string[]> = {
  qwen3: [
    '<think>\nI need the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    '<think>\nNow Lyon.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>',
    '<think>\nDone.\n</think>\n\nParis is 21 °C and Lyon is 19 °C.',
  ],
  mistral: ['[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', '[TOOL_CALLS]get_weather[ARGS]{"city": "Lyon"}', 'Paris is 21 °C and Lyon is 19 °C.'],
  'kimi-k2': [
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": "Lyon"}<|tool_call_end|><|tool_calls_section_end|>',
    'Paris is 21 °C and Lyon is 19 °C.',
  ],
};

describe.each(Object.keys(turns))('agent loop, %s', async (family) => {
  const h = await startHarness(family, 'openai');
  const template = loadTemplate({ family });

  it('runs three turns; every prompt is the render of the client-held conversation', async () => {
    const temperature: Record<string, number> = { Paris: 21, Lyon: 19 };
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'developer', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris' }, { type: 'text', text: 'and Lyon?' }] },
    ];
    // What chatfmt renders: developer is system, text parts are joined by a newline.
    const rendered: Message[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Weather in Paris\nand Lyon?' },
    ];
    for (const [turn, completion] of turns[family]!.entries()) {
      h.backend.script({ pieces: pieces(completion, 4) });
      const final = await h.openai.chat.completions.stream({ model: family, messages, tools: tools as OpenAI.Chat.Completions.ChatCompletionTool[] }).finalChatCompletion();
      const prompt = h.backend.received.at(-1)!.body.prompt;
      expect(prompt).toBe(renderConversation(template, { messages: rendered, tools }, { addGenerationPrompt: true }).text);
      const message = final.choices[0]!.message;
      if (turn === 2) {
        expect(message.content).toBe('Paris is 21 °C and Lyon is 19 °C.');
        expect(final.choices[0]!.finish_reason).toBe('stop');
        break;
      }
      expect(final.choices[0]!.finish_reason).toBe('tool_calls');
      const call = message.tool_calls![0]! as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
      const city = (JSON.parse(call.function.arguments) as { city: string }).city;
      expect(city).toBe(turn === 0 ? 'Paris' : 'Lyon');
      if (family === 'kimi-k2') expect(call.id).toBe(`functions.get_weather:${turn}`);
      if (family === 'mistral') expect(call.id).toMatch(/^[A-Za-z0-9]{9}$/);
      const reasoning = (message as { reasoning_content?: string }).reasoning_content;
      const result = JSON.stringify({ temperature: temperature[city] });
      messages.push({ role: 'assistant', content: message.content, tool_calls: [call], ...(reasoning ? { reasoning_content: reasoning } : {}) } as OpenAI.Chat.Completions.ChatCompletionMessageParam);
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      rendered.push({ role: 'assistant', content: message.content, ...(reasoning ? { reasoning_content: reasoning } : {}), tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: call.function.arguments } }] });
      rendered.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  });
});
