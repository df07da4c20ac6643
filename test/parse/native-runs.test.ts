import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/index.js';
import { parseWork } from '../../src/parse/engine/work.js';
import { codePointChunks, splitAt } from '../helpers/chunkings.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, streamDeltas, type ParseCaseOptions } from '../helpers/stream.js';

// Issue 18 (cold first parse): runs of JSON members and items, a string fragment's escape check and a bare token's
// scan are native regex matches where the text allows, and the old per-character loops where it does not (a streamed
// chunk shorter than the run threshold always takes the loop). So a batch parse and a parse streamed one code point at
// a time read the same text by different paths: they must agree on every call, argument text and diagnostic.

function expectStreamEqualsBatch(text: string, options: ParseCaseOptions): ReturnType<typeof parse> {
  const batch = parse(text, { ...options, idGenerator });
  const chunkings = [codePointChunks(text), ...[1, 7, 31, 64].map((size) => splitAt(text, Array.from({ length: Math.ceil(text.length / size) }, (_, k) => k * size)))];
  for (const chunks of chunkings) {
    expect(reconstruct(streamDeltas(chunks, { ...options })), JSON.stringify(chunks.slice(0, 3))).toEqual(batch);
  }
  return batch;
}

const mistralCall = (args: string) => `[TOOL_CALLS]write_file[ARGS]${args}</s>`;

// Valid and broken argument objects: each member shape the native run reads, and each way a member can stop it.
const argumentTexts = [
  '{"a": 1, "b": -0.5e+3, "c": "x\\u00e9\\n\\"q\\"", "d": true, "e": null, "f": false}',
  '{ "a" : [1, "two", false, null, -0, 2E-7, [], {}] , "g": {"h": [ {"i": 0} ], "j": []}, "k": "end" }',
  '{"list": ["aaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbb", 123456789, true]}',
  '{"a": 01, "b": 2}',
  '{"a": 1., "b": 2}',
  '{"a": -, "b": 2}',
  '{"a": 1e, "b": 2}',
  '{"a": tru, "b": 2}',
  '{"a": truex, "b": 2}',
  '{"a": "bad \\x escape", "b": 2}',
  '{"a": "short \\u12 escape", "b": 2}',
  '{"a": "ctl \u0001 char", "b": 2}',
  '{"a": 1, "b": 2,}',
  '{"a": 1 "b": 2, "c": 3}',
  '{"a" 1, "b": 2, "c": 3}',
  '{"a": [1, 2,], "b": 2}',
  '{"a": [1 2], "b": 2, "c": 3}',
  '{"aaaaaaaaaaaaaaaa": 1}x{"b": 2}',
  '{"a": 1, "b": "never closed',
  '{"a": 1, "b": 12345678901234567890',
  '{"a": 1, "b": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10',
  // String values past the run's short-string bound go to the string state through the member's opening quote.
  `{"a": 1, "long": "${'x\\"y\\n'.repeat(60)}", "b": [true, "${'z'.repeat(300)}", 2], "c": "${'w'.repeat(257)}"}`,
  `{"long": "${'v'.repeat(400)}" "b": 2}`,
  `{"long": "${'v'.repeat(400)}\\q", "b": 2}`,
  `{"a": 1, "long": "${'u'.repeat(400)}`,
];

describe('native JSON member runs read what the character loop reads', () => {
  for (const args of argumentTexts) {
    it(JSON.stringify(args), () => {
      const batch = expectStreamEqualsBatch(mistralCall(args), { family: 'mistral' });
      // An independent oracle for acceptance: the arguments are a call exactly when JSON.parse accepts them.
      let valid = true;
      try {
        JSON.parse(args);
      } catch {
        valid = false;
      }
      // (Text after a complete object is not part of it, so the oracle asks only whether the whole text became a call.)
      expect(batch.tool_calls.some((call) => call.function.arguments === args)).toBe(valid);
    });
  }

  it('generated objects with random white space: the arguments are the text, streamed or not', () => {
    // Indents sit between tokens only; the space after each comma lands in strings too, where a space is still valid.
    const indent = fc.constantFrom(undefined, ' ', '\n', '\t ', '\r\n  ');
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }), indent, fc.constantFrom('', ' ', '   '), (value, before, after) => {
        const args = JSON.stringify(value, null, before).replace(/,/g, `,${after}`);
        const batch = expectStreamEqualsBatch(mistralCall(args), { family: 'mistral' });
        expect(batch.tool_calls.map((call) => JSON.parse(call.function.arguments))).toEqual([JSON.parse(args)]);
      }),
      { numRuns: 60 },
    );
  });

  it('generated objects cut or corrupted at any point: accepted exactly when JSON.parse accepts them', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 5 }), fc.nat(), fc.constantFrom('', 'x', ',', '"', '}', ']', '\\', '0', '-', '.', ' '), (value, at, insert) => {
        const text = JSON.stringify(value);
        const cut = at % (text.length + 1);
        const args = text.slice(0, cut) + insert + text.slice(cut + 1);
        let valid = true;
        try {
          const parsed: unknown = JSON.parse(args);
          valid = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
        } catch {
          valid = false;
        }
        const batch = expectStreamEqualsBatch(mistralCall(args), { family: 'mistral' });
        // White space around the object is not part of the arguments (a space inserted at the end stays valid JSON).
        expect(batch.tool_calls.some((call) => call.function.arguments === args.trim())).toBe(valid);
      }),
      { numRuns: 80 },
    );
  });
});

describe('string fragments are escaped the same by the native check and the loop', () => {
  const tools = [{ type: 'function' as const, function: { name: 'write_file', parameters: { type: 'object', properties: { content: { type: 'string' } } } } }];
  // Lengths around the loop/search threshold (8) and the JSON.stringify threshold (64), each with what must be escaped.
  const specials = ['"', '\\', '\u0000', '\u001f', '\n', '\ud83d\ude00', '\ud800', '\udc00', 'é'];
  for (const length of [1, 7, 8, 9, 12, 63, 64, 65]) {
    for (const special of specials) {
      it(`qwen3-coder: ${length} characters holding ${JSON.stringify(special)}`, () => {
        const value = ('abcdefghij'.repeat(7).slice(0, Math.max(0, length - special.length)) + special).slice(-Math.max(length, special.length));
        const text = `<tool_call>\n<function=write_file>\n<parameter=content>\n${value}\n</parameter>\n</function>\n</tool_call>`;
        const batch = expectStreamEqualsBatch(text, { family: 'qwen3-coder', tools });
        expect(batch.tool_calls.map((call) => JSON.parse(call.function.arguments))).toEqual([{ content: value }]);
      });
    }
  }
});

describe('bare tokens of the object notation end where the loop ended them', () => {
  const q = '<|"|>';
  const cases = [
    `call:f{path:${q}a.txt${q},count:42,ratio:-1.5e3,flag:true,none:null}`,
    `call:f{path:${q}a<b>c${q},n:4<2,deep:{list:[1,two<x,3]}}`,
    `call:f{long_key_name_here_for_the_run:${q}v${q},another_bare_value:12345678901234567890}`,
    `call:f{k:v<|"|>tail,z:1}`,
  ];
  for (const body of cases) {
    it(JSON.stringify(body), () => {
      expectStreamEqualsBatch(`<|tool_call>${body}<tool_call|>`, { family: 'gemma-4' });
    });
  }
});

describe('native runs stay linear on hostile argument text', () => {
  // Counted work (src/parse/engine/work.ts) must grow with the text; a run that backtracked over earlier members, or a
  // failed member re-read on every push, would also show as a stalled or time-out test here.
  const patterns = ['{"a": 1, ', '"aaaa\\"\\u00e9', '{"a": [1, 2, ', '{"a": 1e', '{"a": "x"', '[1, -', '{"a": tru', ': : :', '{"a": "\\'];
  const work = (text: string, chunked: boolean): number => {
    const before = parseWork.chars;
    if (chunked) streamDeltas(splitAt(text, Array.from({ length: Math.ceil(text.length / 256) }, (_, k) => k * 256)), { family: 'mistral' });
    else parse(text, { family: 'mistral' });
    return parseWork.chars - before;
  };
  for (const pattern of patterns) {
    it(JSON.stringify(pattern), () => {
      const small = `[TOOL_CALLS]f[ARGS]{"k": ${pattern.repeat(Math.ceil(8192 / pattern.length))}`;
      const large = `[TOOL_CALLS]f[ARGS]{"k": ${pattern.repeat(Math.ceil(81920 / pattern.length))}`;
      for (const chunked of [false, true]) {
        expect(work(large, chunked) / Math.max(1, work(small, chunked))).toBeLessThan(12);
      }
    });
  }
});

describe('harmony header words end where the loop ended them', () => {
  // A word runs to white space (any that String.prototype.trim removes) or a `<` that opens <|channel|> or <|constrain|>.
  const cases: [string, string][] = [
    ['<|channel|>commentary to=functions.f<|constrain|>json<|message|>{"a":1}<|call|>', 'f'],
    ['<|channel|>commentary\u3000to=functions.f\u2003<|constrain|>json<|message|>{"a":1}<|call|>', 'f'],
    ['<|channel|>commentary to=functions.a<b <|constrain|>json<|message|>{"a":1}<|call|>', 'a<b'],
    ['<|channel|>commentary to=functions.h<|constrai json<|message|>{}<|call|>', 'h<|constrai'],
  ];
  for (const [text, name] of cases) {
    it(JSON.stringify(text), () => {
      const batch = expectStreamEqualsBatch(text, { family: 'gpt-oss' });
      expect(batch.tool_calls.map((call) => call.function.name)).toEqual([name]);
    });
  }
});
