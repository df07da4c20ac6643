import { describe, expect, it } from 'vitest';
import { parse, transpile } from '../../src/index.js';

// Issue 10 item 3: transpiling reasoning + content + calls into gpt-oss failed with the template's "cannot have both
// content and thinking". Harmony carries them as an analysis message, a commentary preamble and one message per call.
const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather now.', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const qwen3 =
  '<think>\nTwo cities to check.\n</think>\n\nLet me look both up.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>';

describe('transpile into harmony', () => {
  it('writes reasoning, a preamble and every call, and they parse back', () => {
    const result = transpile(qwen3, { from: 'qwen3', to: 'gpt-oss', tools });
    expect(result.text).toContain('<|channel|>analysis<|message|>Two cities to check.<|end|>');
    expect(result.text).toContain('<|channel|>commentary<|message|>Let me look both up.<|end|>');
    const back = parse(result.text, { family: 'gpt-oss', tools });
    expect(back.reasoning_content).toBe('Two cities to check.');
    expect(back.content).toBe('Let me look both up.');
    expect(back.tool_calls.map((c) => JSON.parse(c.function.arguments).city)).toEqual(['Paris', 'Rome']);
    expect(result.warnings.map((w) => w.code)).toEqual(['TRANSPILE_CALLS_SPLIT']);
  });

  it('writes a preamble without reasoning too', () => {
    const result = transpile('Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>', { from: 'qwen2.5', to: 'gpt-oss', tools });
    const back = parse(result.text, { family: 'gpt-oss', tools });
    expect([back.content, back.tool_calls.length]).toEqual(['Checking.', 1]);
    expect(result.warnings).toEqual([]);
  });
});
