// DeepSeek-V3.2 / V4 (DSML) streaming edge cases of FORMATS-NEXT §2 that a fixture's final result cannot show:
// what leaves the parser before the rest of the output has arrived.
import { describe, expect, it } from 'vitest';
import { createStreamParser, parse, resolveFamilyId, type Delta, type Tool } from '../../src/index.js';

const D = '｜DSML｜';
const tools: Tool[] = [
  {
    type: 'function',
    function: { name: 'write_file', parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } },
  },
];

const argumentText = (deltas: Delta[]) => deltas.flatMap((d) => d.tool_calls ?? []).map((c) => c.function?.arguments ?? '').join('');
const contentText = (deltas: Delta[]) => deltas.map((d) => d.content ?? '').join('');

describe('DSML streaming', () => {
  for (const [label, withTools] of [['declared string', true], ['no tools, string="true"', false]] as const) {
    it(`a long string value streams before its close tag arrives (${label}, vllm#52846)`, () => {
      const parser = createStreamParser({ family: 'deepseek-v3.2', prefix: '</think>', ...(withTools ? { tools } : {}) });
      const deltas: Delta[] = [];
      deltas.push(...parser.push(`<${D}function_calls>\n<${D}invoke name="write_file">\n<${D}parameter name="content" string="true">`));
      const body = 'line of code;\n'.repeat(200);
      for (let i = 0; i < body.length; i += 100) deltas.push(...parser.push(body.slice(i, i + 100)));
      // Everything but what might still turn out to be a close tag has left the parser.
      expect(argumentText(deltas).length).toBeGreaterThan(JSON.stringify(body).length - 40);
      deltas.push(...parser.push(`</${D}parameter>\n</${D}invoke>\n</${D}function_calls>`), ...parser.finish());
      expect(JSON.parse(argumentText(deltas))).toEqual({ content: body });
    });
  }

  it('a start marker split into 1-character deltas leaks no fragment into content (vllm#40801)', () => {
    const completion = `Hello!<${D}function_calls>\n<${D}invoke name="write_file">\n<${D}parameter name="path" string="true">a</${D}parameter>\n</${D}invoke>\n</${D}function_calls>`;
    const parser = createStreamParser({ family: 'deepseek-v3.2', prefix: '</think>', tools });
    const deltas: Delta[] = [];
    for (const ch of completion) deltas.push(...parser.push(ch));
    deltas.push(...parser.finish());
    expect(contentText(deltas)).toBe('Hello!');
    expect(JSON.parse(argumentText(deltas))).toEqual({ path: 'a' });
  });

  it('a marker prefix that never completes is released as content once it cannot be one', () => {
    const parser = createStreamParser({ family: 'deepseek-v3.2', prefix: '</think>' });
    const held = parser.push('<｜DSM');
    expect(contentText(held)).toBe('');
    const released = parser.push(' some regular text');
    expect(contentText([...held, ...released])).toContain('<｜DSM some');
  });
});

describe('DeepSeek-V4', () => {
  it('--family deepseek-v4 names this family, and reads both wrappers', () => {
    expect(resolveFamilyId('deepseek-v4')).toBe('deepseek-v3.2');
    for (const wrapper of ['function_calls', 'tool_calls']) {
      const result = parse(`<${D}${wrapper}>\n<${D}invoke name="write_file">\n<${D}parameter name="path" string="true">a.txt</${D}parameter>\n</${D}invoke>\n</${D}${wrapper}>`, {
        family: 'deepseek-v4',
        prefix: '</think>',
        tools,
      });
      expect(result.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([['write_file', { path: 'a.txt' }]]);
      expect(result.content).toBeNull();
    }
  });
});
