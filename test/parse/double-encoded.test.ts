import { describe, expect, it } from 'vitest';
import { parse } from '../../src/index.js';

// Issue 16 §3: arguments written as a JSON string holding an object (the OpenAI wire's string form, double-encoded).
const inner = '{\\"city\\": \\"Paris\\"}';

describe('double-encoded arguments', () => {
  it('a call object (Hermes, Qwen) unwraps its string arguments, and says so', () => {
    for (const family of ['hermes', 'qwen2.5', 'qwen3']) {
      const message = parse(`<tool_call>\n{"name": "get_weather", "arguments": "${inner}"}\n</tool_call>`, { family });
      expect(message.tool_calls.map((call) => JSON.parse(call.function.arguments)), family).toEqual([{ city: 'Paris' }]);
      expect(message.diagnostics.map((d) => [d.code, d.severity, d.message]), family).toEqual([
        ['PARSE_ARGS_UNWRAPPED', 'warning', expect.stringContaining('double-encoded')],
      ]);
    }
  });

  it('raw JSON arguments (Kimi, DeepSeek, gpt-oss) are not unwrapped: the call is not run, the text stays, and the diagnostic names the cause', () => {
    const cases: [string, string][] = [
      ['kimi-k2', `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"${inner}"<|tool_call_end|><|tool_calls_section_end|>`],
      ['deepseek-v3.1', `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"${inner}"<｜tool▁call▁end｜><｜tool▁calls▁end｜>`],
      ['gpt-oss', `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"${inner}"<|call|>`],
    ];
    for (const [family, text] of cases) {
      const message = parse(text, { family });
      expect(message.tool_calls, family).toEqual([]);
      expect(message.content, family).toContain(`"${inner}"`);
      expect(message.diagnostics.map((d) => [d.code, d.severity, d.message]), family).toEqual([
        ['PARSE_ARGS_NOT_OBJECT', 'error', expect.stringMatching(/JSON string.*double-encoded.*not unwrapped/)],
      ]);
    }
  });
});
