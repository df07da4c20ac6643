import { describe, expect, it } from 'vitest';
import { parse } from '../../src/index.js';
import type { Tool } from '../../src/types.js';
import { codePointChunks, splitAt } from '../helpers/chunkings.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, streamDeltas, type ParseCaseOptions } from '../helpers/stream.js';

// Issue 18 (cold first parse): the raw-text argument codec works out each parameter's schema types once per parse,
// gathers the argument text of one read into one event, and reuses a key it read ahead after a close tag. None of
// that may change a result: batch and every chunking agree, warnings keep their place, and a schema is read afresh
// by every parse.

function toolWith(properties: Record<string, unknown>): Tool[] {
  return [{ type: 'function', function: { name: 'f', description: 'f', parameters: { type: 'object', properties } } }];
}

const call = (...parameters: [string, string][]) =>
  `<tool_call>\n<function=f>\n${parameters.map(([key, value]) => `<parameter=${key}>\n${value}\n</parameter>\n`).join('')}</function>\n</tool_call>`;

function parseAllWays(text: string, options: ParseCaseOptions) {
  const batch = parse(text, { ...options, idGenerator });
  for (const size of [1, 3, 8, 29]) {
    const chunks = splitAt(text, Array.from({ length: Math.ceil(text.length / size) }, (_, k) => k * size));
    expect(reconstruct(streamDeltas(chunks, options)), `chunks of ${size}`).toEqual(batch);
  }
  expect(reconstruct(streamDeltas(codePointChunks(text), options))).toEqual(batch);
  return batch;
}

const argumentsOf = (result: ReturnType<typeof parse>) => result.tool_calls.map((c) => JSON.parse(c.function.arguments));

describe('tagged arguments read once per parameter', () => {
  it('a schema changed between two parses is read again by the second', () => {
    const n = { type: 'integer' };
    const tools = toolWith({ n });
    const text = call(['n', '5']);
    expect(argumentsOf(parse(text, { family: 'qwen3-coder', tools }))).toEqual([{ n: 5 }]);
    n.type = 'string';
    expect(argumentsOf(parse(text, { family: 'qwen3-coder', tools }))).toEqual([{ n: '5' }]);
  });

  it('one schema read serves every value of a parameter, across calls', () => {
    const tools = toolWith({ n: { type: 'integer' }, s: { type: 'string' }, e: { enum: ['a', 'b'] } });
    const text = [call(['n', '1'], ['s', '2'], ['e', 'a']), call(['n', '3'], ['s', '4'], ['e', 'b']), call(['n', 'x'], ['e', 'c'])].join('\n');
    const result = parseAllWays(text, { family: 'qwen3-coder', tools });
    expect(argumentsOf(result)).toEqual([{ n: 1, s: '2', e: 'a' }, { n: 3, s: '4', e: 'b' }, { n: 'x', e: 'c' }]);
    // An enum of strings without a type reads the value as a string: only `x` for the integer is a type error.
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PARSE_ARG_TYPE']);
  });

  it('warnings between argument pieces keep their place and spans, streamed or not', () => {
    const tools = toolWith({ a: { type: 'string' }, n: { type: 'integer' }, b: { type: 'string' } });
    const text = `Hi.\n${call(['a', 'one'], ['a', 'two'], ['n', 'seven'], ['b', 'x"y\\z'])}`;
    const result = parseAllWays(text, { family: 'qwen3-coder', tools });
    expect(argumentsOf(result)).toEqual([{ a: 'one', n: 'seven', b: 'x"y\\z' }]);
    expect(result.diagnostics.map((d) => [d.code, text.slice(d.span![0], d.span![0] + 1)])).toEqual([
      ['PARSE_DUPLICATE_ARG', 'a'],
      ['PARSE_ARG_TYPE', '<'],
    ]);
  });

  it('a key read ahead after a close tag is the next parameter, or text of the value when it is not one', () => {
    const tools = toolWith({ path: { type: 'string' }, content: { type: 'string' } });
    // Code that writes the syntax: the undeclared key read ahead after the inner close tag is text of `content`, as
    // its own value is followed by more code rather than the next key or the end of the call.
    const code = 'x = 1\n</parameter>\n<parameter=mode>\nfast\n</parameter>\ny = 2';
    const text = call(['path', '/a.py'], ['content', code]);
    expect(argumentsOf(parseAllWays(text, { family: 'qwen3-coder', tools }))).toEqual([{ path: '/a.py', content: code }]);
    // When that value does end as a parameter's, the key read ahead is the next parameter.
    const taken = call(['path', '/a.py'], ['content', 'x = 1\n</parameter>\n<parameter=mode>\nfast']);
    expect(argumentsOf(parseAllWays(taken, { family: 'qwen3-coder', tools }))).toEqual([{ path: '/a.py', content: 'x = 1', mode: 'fast' }]);
    // GLM reads keys in their own tags.
    const glm = '<tool_call>f\n<arg_key>path</arg_key>\n<arg_value>/b</arg_value>\n<arg_key>content</arg_key>\n<arg_value>y</arg_value>\n</tool_call>';
    expect(argumentsOf(parseAllWays(glm, { family: 'glm-4.5', tools }))).toEqual([{ path: '/b', content: 'y' }]);
  });
});
