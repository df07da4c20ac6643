// Without tools, a tag-argument value no schema types is JSON when it is plainly a JSON literal (`12`, `true`, `[1]`)
// and a string otherwise. A value whose first character past white space cannot begin such a literal is a string
// whatever follows, so it streams as it arrives, as a declared string does; the others still wait for their end.
import { describe, expect, it } from 'vitest';
import { createStreamParser, parse } from '../../src/index.js';

const CALLS: Record<string, (key: string, value: string) => string> = {
  'glm-4.5': (key, value) => `<tool_call>run\n<arg_key>${key}</arg_key>\n<arg_value>${value}</arg_value>\n</tool_call>`,
  'qwen3-coder': (key, value) => `<tool_call>\n<function=run>\n<parameter=${key}>\n${value}\n</parameter>\n</function>\n</tool_call>`,
  'seed-oss': (key, value) => `<seed:tool_call>\n<function=run>\n<parameter=${key}>${value}</parameter>\n</function>\n</seed:tool_call>`,
};

/** The arguments text released after each code point, streamed one a push. */
function releasedAfterEach(family: string, text: string): string[] {
  const parser = createStreamParser({ family });
  let args = '';
  const released: string[] = [];
  for (const ch of text) {
    for (const delta of parser.push(ch)) for (const call of delta.tool_calls ?? []) args += call.function?.arguments ?? '';
    released.push(args);
  }
  for (const delta of parser.finish()) for (const call of delta.tool_calls ?? []) args += call.function?.arguments ?? '';
  released.push(args);
  return released;
}

describe.each(Object.keys(CALLS))('%s without tools', (family) => {
  const call = CALLS[family]!;

  it('streams a value that cannot be a JSON literal before its close tag, and ends with the batch arguments', () => {
    const value = 'Paris, "the city" of\tlight 🌍';
    const text = call('city', value);
    const released = releasedAfterEach(family, text);
    const closeAt = Array.from(text.slice(0, text.indexOf(value) + value.length)).length;
    // Most of the value is out before its close tag arrives.
    expect(released[closeAt - 1]).toContain('"city":"Paris, \\"the city\\" of\\tlight');
    const batch = parse(text, { family }).tool_calls[0]!.function.arguments;
    expect(JSON.parse(batch)).toEqual({ city: value });
    expect(released.at(-1)).toBe(batch);
  });

  it.each(['12', 'true', '[1, 2]', '-3', 'nothing', 'falsehood'])('a value that may be a JSON literal (%s) is read whole, as batch reads it', (value) => {
    const text = call('v', value);
    const released = releasedAfterEach(family, text);
    const closeAt = Array.from(text.slice(0, text.indexOf(value) + value.length)).length;
    expect(released[closeAt - 1]).not.toContain('"v"');
    const batch = parse(text, { family }).tool_calls[0]!.function.arguments;
    expect(released.at(-1)).toBe(batch);
  });
});
