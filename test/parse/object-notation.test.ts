// The object-notation argument codec (src/parse/engine/codecs/object-notation.ts) through the public API, as Gemma 4
// uses it: FORMATS-NEXT §1 edge cases 1-3 and the unit cases of edge case 11, batch and streamed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStreamParser, parse } from '../../src/index.js';
import type { Delta } from '../../src/types.js';
import { idGenerator } from '../helpers/stream.js';

const Q = '<|"|>';
const family = 'gemma-4';
const call = (args: string) => `<|tool_call>call:f{${args}}<tool_call|>`;

/** The argument text of call 0 after each chunk was pushed (finish included as the last entry). */
function argumentsAfterEachChunk(chunks: readonly string[]): string[] {
  const parser = createStreamParser({ family, idGenerator });
  let text = '';
  const seen: string[] = [];
  const take = (deltas: Delta[]) => {
    for (const delta of deltas) for (const piece of delta.tool_calls ?? []) if (piece.index === 0) text += piece.function?.arguments ?? '';
    seen.push(text);
  };
  for (const chunk of chunks) take(parser.push(chunk));
  take(parser.finish());
  return seen;
}

function args(completion: string): unknown {
  const result = parse(completion, { family });
  expect(result.tool_calls, completion).toHaveLength(1);
  return JSON.parse(result.tool_calls[0]!.function.arguments);
}

/** Whether `json[0..at)` ends inside a string (so a literal cannot be cut there). */
function insideString(json: string, at: number): boolean {
  let inside = false;
  for (let i = 0; i < at; i++) {
    if (json[i] === '\\' && inside) i++;
    else if (json[i] === '"') inside = !inside;
  }
  return inside;
}

const LITERAL = /[0-9a-zA-Z.+-]/;

describe('object notation → JSON', () => {
  it('quotes bare keys, keeps literals as written, reads delimited keys and nested values', () => {
    expect(args(call(`a:1,b:-2.5e3,c:true,d:false,e:null,f:${Q}x${Q}`))).toEqual({ a: 1, b: -2.5e3, c: true, d: false, e: null, f: 'x' });
    expect(args(call(`${Q}3${Q}:{${Q}k y${Q}:[1,[2,{z:${Q}${Q}}]]}`))).toEqual({ 3: { 'k y': [1, [2, { z: '' }]] } });
    expect(parse(call('n:1.0,big:12345678901234567890'), { family }).tool_calls[0]!.function.arguments).toBe('{"n":1.0,"big":12345678901234567890}');
  });

  it('edge case 11: brackets inside a string do not close anything', () => {
    expect(args(call(`k:[${Q}a]b${Q},${Q}c${Q}]`))).toEqual({ k: ['a]b', 'c'] });
  });

  it('edge case 11: a trailing comma before a closing bracket is dropped, with a warning', () => {
    const result = parse(call('k:[42,]'), { family });
    expect(JSON.parse(result.tool_calls[0]!.function.arguments)).toEqual({ k: [42] });
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['PARSE_BAD_ARGS_JSON', 'warning']]);
  });

  it('edge case 11: `key:` with no value is "" and is not written before the value is known to be empty', () => {
    expect(args(call('k:'))).toEqual({ k: '' });
    const seen = argumentsAfterEachChunk(['<|tool_call>call:f{k:', '}', '<tool_call|>']);
    expect(seen[0]).toBe('{"k":');
    expect(seen[1]).toBe('{"k":""}');
  });

  it('edge case 11: an unterminated string is streamed without the delimiter and ends as a truncated call, text kept', () => {
    const text = `<|tool_call>call:f{k:${Q}unterminated`;
    const seen = argumentsAfterEachChunk([text.slice(0, -3), text.slice(-3)]);
    expect(seen[1]).toBe('{"k":"unterminated');
    const result = parse(text, { family });
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toBe(text);
    expect(result.diagnostics[0]?.code).toBe('PARSE_TRUNCATED_CALL');
  });

  it('edge case 11: a malformed `:[t:[]` ends the call at once and loses no text', () => {
    for (const text of [call(':[t:[]'), call('k:[t:[]'), `<|tool_call>call:f{k:[t:[]`, `<|tool_call>call:f{:[t:[]`]) {
      const result = parse(text, { family });
      expect(result.tool_calls, text).toEqual([]);
      expect(result.content, text).toBe(text);
    }
  });

  it('a string missing its opening delimiter is read up to the closing one (SGLang repair), with a warning', () => {
    const result = parse(call(`query:weather in Tokyo${Q}`), { family });
    expect(JSON.parse(result.tool_calls[0]!.function.arguments)).toEqual({ query: 'weather in Tokyo' });
    expect(result.diagnostics[0]).toMatchObject({ code: 'PARSE_BAD_ARGS_JSON', severity: 'warning' });
  });

  it('the repair reads up to the closing delimiter, commas and colons included (issue 16)', () => {
    for (const [body, query] of [
      [`query:weather in Tokyo, Japan${Q}`, 'weather in Tokyo, Japan'],
      [`query:time: 10:30, please${Q},n:1`, 'time: 10:30, please'],
    ] as const) {
      const result = parse(call(body), { family });
      expect(JSON.parse(result.tool_calls[0]!.function.arguments), body).toMatchObject({ query });
      expect(result.diagnostics.map((d) => [d.code, d.severity]), body).toEqual([['PARSE_BAD_ARGS_JSON', 'warning']]);
      // One character at a time, the same arguments.
      expect(argumentsAfterEachChunk([...call(body)]).at(-1)).toBe(result.tool_calls[0]!.function.arguments);
    }
  });

  it('a delimiter that opens the next value ends no repair: the bare word is no value', () => {
    const text = call(`city:Paris,unit:${Q}celsius${Q}`);
    const result = parse(text, { family });
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toBe(text);
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['PARSE_BAD_ARGS_JSON', 'error']]);
  });

  it('None, which the older Gemma templates print for null, is read as null with a warning', () => {
    const result = parse(call('a:None,b:[None]'), { family });
    expect(JSON.parse(result.tool_calls[0]!.function.arguments)).toEqual({ a: null, b: [null] });
    expect(result.diagnostics.map((d) => d.severity)).toEqual(['warning', 'warning']);
  });

  it('a bare word is no value: the call is withdrawn, its text kept', () => {
    const text = call('unit:celsius');
    const result = parse(text, { family });
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toBe(text);
    expect(result.diagnostics[0]).toMatchObject({ code: 'PARSE_BAD_ARGS_JSON', severity: 'error' });
  });

  it('edge cases 1-3: a split delimiter never leaks, a literal is never cut, the call close never reaches the JSON', () => {
    const text = call(`b:true,f:false,n:null,x:108.02,y:-7,z:1e5,s:${Q}a<b "c"${Q},o:{k:[42,${Q}v${Q}]}`);
    const whole = JSON.stringify(args(text));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks = [0, ...points].map((start, i) => text.slice(start, points[i] ?? text.length));
        const seen = argumentsAfterEachChunk(chunks);
        const final = seen[seen.length - 1]!;
        expect(JSON.stringify(JSON.parse(final))).toBe(whole);
        for (const prefix of seen) {
          expect(final.startsWith(prefix)).toBe(true);
          expect(prefix).not.toContain('<|');
          const at = prefix.length;
          if (at > 0 && at < final.length && !insideString(final, at)) {
            expect(LITERAL.test(final[at - 1]!) && LITERAL.test(final[at]!), `literal cut at ${at}: ${prefix}`).toBe(false);
          }
        }
      }),
      { numRuns: 300, seed: 4 },
    );
  });

  it('a trailing-dot number is held while streaming (vllm#42047)', () => {
    const seen = argumentsAfterEachChunk(['<|tool_call>call:f{x:108.', '02}', '<tool_call|>']);
    expect(seen[0]).toBe('{"x":');
    expect(seen[1]).toBe('{"x":108.02}');
  });
});
