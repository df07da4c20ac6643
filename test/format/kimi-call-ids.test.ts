import { describe, expect, it } from 'vitest';
import { formatCompletion, parse } from '../../src/index.js';
import type { Tool } from '../../src/types.js';

// Issue 17: formatCompletion for kimi-k2 kept an OpenAI-style id, which chatfmt's own Kimi parser then rejected.
const tools: Tool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
];
const calls = [
  { id: 'call_abc123', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
  { id: 'call_def456', type: 'function' as const, function: { name: 'get_time', arguments: '{}' } },
];

describe('formatCompletion for kimi-k2 writes Kimi call ids', () => {
  it('ids become functions.NAME:IDX, counted from 0, and parse back as the same calls', () => {
    const completion = formatCompletion({ role: 'assistant', content: null, tool_calls: calls }, { family: 'kimi-k2', tools });
    expect(completion).toContain('functions.get_weather:0');
    expect(completion).toContain('functions.get_time:1');
    expect(completion).not.toContain('call_abc123');
    const message = parse(completion, { family: 'kimi-k2', tools });
    expect(message.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(message.tool_calls.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['functions.get_weather:0', 'get_weather', { city: 'Paris' }],
      ['functions.get_time:1', 'get_time', {}],
    ]);
  });

  it('ids already in Kimi form are kept', () => {
    const completion = formatCompletion({ role: 'assistant', content: null, tool_calls: [{ ...calls[0]!, id: 'functions.get_weather:7' }] }, { family: 'kimi-k2', tools });
    expect(completion).toContain('functions.get_weather:7');
  });
});
