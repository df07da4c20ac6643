import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { familyIds, formatTurn, parse, type FamilyId, type Message } from '../../src/index.js';
import { keepsWithCalls } from '../helpers/template-facts.js';

// parse(formatCompletion(m)) == m over generated messages: unicode, nested arguments, and strings
// holding every family's markers. Values are normalised the way the formats themselves normalise
// them (text trimmed at the edges), because no template can carry edge whitespace faithfully.
const markers = [
  '<tool_call>', '</tool_call>', '<think>', '</think>', '<function=f>', '</parameter>', '<parameter=x>',
  '<｜tool▁calls▁begin｜>', '<｜tool▁sep｜>', '<｜end▁of▁sentence｜>', '<|tool_calls_section_begin|>', '<|tool_call_begin|>',
  '<|channel|>', '<|message|>', '<|call|>', '<|end|>', '<arg_key>', '</arg_value>', '<seed:tool_call>', '<seed:eos>', '<|im_end|>',
];

/**
 * Markers a family cannot carry inside a raw (unescaped) value of its own syntax. Hermes, Qwen2.5
 * and Qwen3-Coder parsers also read <think> blocks, because Qwen3.5 and fine-tunes emit them.
 */
const ownMarkers: Record<FamilyId, string[]> = {
  hermes: ['<tool_call>', '</tool_call>', '<think>', '</think>', '<|im_end|>'],
  'qwen2.5': ['<tool_call>', '</tool_call>', '<think>', '</think>', '<|im_end|>'],
  qwen3: ['<tool_call>', '</tool_call>', '<think>', '</think>', '<|im_end|>'],
  'qwen3-coder': ['<tool_call>', '</tool_call>', '<function=f>', '</parameter>', '<parameter=x>', '<think>', '</think>', '<|im_end|>'],
  'deepseek-v3.1': ['<｜tool▁calls▁begin｜>', '<｜tool▁sep｜>', '<｜end▁of▁sentence｜>', '</think>', '<think>'],
  'deepseek-r1': ['<｜tool▁calls▁begin｜>', '<｜tool▁sep｜>', '<｜end▁of▁sentence｜>', '</think>', '<think>'],
  'kimi-k2': ['<|tool_calls_section_begin|>', '<|tool_call_begin|>', '<think>', '</think>', '<|im_end|>'],
  'gpt-oss': ['<|channel|>', '<|message|>', '<|call|>', '<|end|>'],
  'glm-4.5': ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_value>', '<think>', '</think>'],
  'seed-oss': ['<seed:tool_call>', '<seed:eos>', '</parameter>', '<parameter=x>', '<function=f>'],
  'deepseek-v3.2': ['<｜DSML｜function_calls>', '<｜DSML｜tool_calls>', '<｜DSML｜invoke name="', '<｜DSML｜parameter name="k" string="true">', '</｜DSML｜parameter>', '</｜DSML｜invoke>', '<｜end▁of▁sentence｜>', '<think>', '</think>'],
  'minimax-m2': ['<minimax:tool_call>', '</minimax:tool_call>', '<invoke name="', '</parameter>', '</invoke>', '[e~[', '<think>', '</think>'],
  'llama-3': [],
  mistral: ['[TOOL_CALLS]', '[ARGS]', '[CALL_ID]', '</s>', '[THINK]', '[/THINK]'],
  'gemma-4': ['<|tool_call>', '<tool_call|>', '<|"|>', '<|channel>', '<channel|>', '<turn|>', '<|tool_response>'],
};

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'act',
      description: 'Do something.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' }, count: { type: 'integer' }, flag: { type: 'boolean' }, options: { type: 'object' }, items: { type: 'array' } },
        required: ['text'],
      },
    },
  },
];

function textArb(family: FamilyId): fc.Arbitrary<string> {
  const allowed = markers.filter((m) => !ownMarkers[family].includes(m));
  const piece = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom(...allowed), fc.constantFrom('日本語', 'émoji 😀', 'a\nb', '"quoted"', '{braces}'));
  return fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' ').trim()).filter((s) => s.length > 0);
}

/**
 * A string argument: unlike content, which parsers trim at its edges, a value keeps its spaces and newlines there (a
 * file's content ends in its own newline). Except on Seed-OSS's wire: its template writes values with no wrapping
 * newline, but vLLM's and llama.cpp's parsers strip one at each end (a peer vector holds chatfmt to that), so a value's
 * own edge newline does not survive it.
 */
function valueArb(family: FamilyId): fc.Arbitrary<string> {
  const edge = family === 'seed-oss' ? fc.constantFrom('', ' ', '  ') : fc.constantFrom('', '\n', ' ', '\n\n', '  \n');
  return fc.tuple(edge, textArb(family), edge).map(([before, text, after]) => before + text + after);
}

function argsArb(family: FamilyId) {
  const json = fc.jsonValue({ maxDepth: 2 }).filter((v) => JSON.stringify(v) !== undefined);
  return fc.record(
    {
      text: valueArb(family),
      count: fc.integer({ min: -1000, max: 1000 }),
      flag: fc.boolean(),
      options: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }).filter((k) => k.trim() === k && k.length > 0), json, { maxKeys: 3 }),
      items: fc.array(json, { maxLength: 3 }),
    },
    { requiredKeys: ['text'] },
  ).filter((args) => family !== 'gemma-4' || bareKeysReadable(args));
}

/**
 * Gemma writes argument keys bare (`{a b:1}`), so a key holding the notation's own punctuation, the string delimiter,
 * or edge whitespace cannot be read back by any parser: the wire itself loses it.
 */
function bareKeysReadable(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(bareKeysReadable);
  if (value === null || typeof value !== 'object') return true;
  return Object.entries(value).every(([key, item]) => !/[:,{}[\]]|<\|"\|>|^\s|\s$/.test(key) && bareKeysReadable(item));
}

describe('parse(formatCompletion(m)) == m', () => {
  for (const family of familyIds) {
    it(family, () => {
      const keeps = keepsWithCalls[family];
      const single = keeps.calls === 1;
      fc.assert(
        fc.property(textArb(family), fc.array(argsArb(family), { minLength: 1, maxLength: single ? 1 : 3 }), (content, argsList) => {
          const message: Message = {
            role: 'assistant',
            content: keeps.content ? content : '',
            tool_calls: argsList.map((args, index) => ({ id: `functions.act:${index}`, type: 'function', function: { name: 'act', arguments: args } })),
          };
          const { prompt, completion } = formatTurn(message, { family, tools });
          const parsed = parse(completion, { family, tools, prefix: prompt });
          expect(parsed.diagnostics).toEqual([]);
          expect(parsed.content).toBe(keeps.content ? content : null);
          expect(parsed.tool_calls.map((c) => JSON.parse(c.function.arguments))).toEqual(argsList);
        }),
        { numRuns: 40, seed: 20261122 },
      );
    });
  }
});
