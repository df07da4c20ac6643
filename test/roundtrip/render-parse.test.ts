import { describe, expect, it } from 'vitest';
import { familyIds, formatTurn, parse, type Message } from '../../src/index.js';
import { keepsWithCalls } from '../helpers/template-facts.js';

// The parse issue's acceptance test: render a conversation whose last assistant turn has reasoning,
// content and tool calls, cut out the assistant's generated text, parse it with the prompt as the
// prefix, and get the same message back.
const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Weather for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' } }, required: ['city'] },
    },
  },
  {
    type: 'function' as const,
    function: { name: 'get_time', description: 'Local time.', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } },
  },
];

const history: Message[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Weather and time in Paris, please.' },
];

const calls = [
  { name: 'get_weather', arguments: { city: 'Paris', days: 2, metric: true } },
  { name: 'get_time', arguments: { tz: 'Europe/Paris' } },
];

describe('render → parse round trip for every family', () => {
  for (const family of familyIds) {
    it(family, () => {
      const expected = keepsWithCalls[family];
      const chosen = calls.slice(0, expected.calls);
      const message: Message = {
        role: 'assistant',
        reasoning_content: 'The user wants two facts; call both tools.',
        content: expected.content ? 'Let me look that up.' : '',
        tool_calls: chosen.map((call, index) => ({
          id: `functions.${call.name}:${index}`,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      };
      const { prompt, completion } = formatTurn(message, { family, tools }, history);
      const parsed = parse(completion, { family, tools, prefix: prompt, idGenerator: ({ index }) => `call_${index}` });
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.reasoning_content).toBe(expected.reasoning ? message.reasoning_content : null);
      expect(parsed.content).toBe(expected.content ? message.content : null);
      expect(parsed.tool_calls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) }))).toEqual(chosen);
      if (family === 'kimi-k2') expect(parsed.tool_calls.map((c) => c.id)).toEqual(['functions.get_weather:0', 'functions.get_time:1']);
    });
  }
});
