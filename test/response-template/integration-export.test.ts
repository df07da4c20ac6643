import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  accumulateDeltas,
  compileResponseTemplate,
  COMMON_LOSSES,
  createStreamParser,
  exportResponseTemplate,
  familyIds,
  parse,
  parserFamily,
  type Delta,
  type ParsedMessage,
} from '../../src/index.js';
import { codePointChunks } from '../helpers/chunkings.js';
import { loadParseFixtures, type ParseFixture } from '../helpers/parse-fixtures.js';

const idGenerator = ({ index }: { index: number }) => `call_${index}`;

/** What the comparison covers: text, reasoning, and each call's name and parsed arguments. */
function essence(message: ParsedMessage) {
  return {
    content: message.content,
    reasoning_content: message.reasoning_content,
    calls: message.tool_calls.map((call) => [call.function.name, parseArgs(call.function.arguments)]),
  };
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Well-formed by rule: the fixture expects no diagnostics and chatfmt's own parse reports none (so malformed,
 * truncated, undeclared and salvaged cases are out, whatever their folder name says).
 */
function wellFormed(fixture: ParseFixture): boolean {
  if (fixture.expected.diagnostics !== undefined && fixture.expected.diagnostics.length > 0) return false;
  return ownParse(fixture).diagnostics.length === 0;
}

function ownParse(fixture: ParseFixture): ParsedMessage {
  return parse(fixture.completion, { family: fixture.family, tools: fixture.tools ?? null, ...(fixture.prefix !== undefined ? { prefix: fixture.prefix } : {}), idGenerator });
}

/** The exported template gets the same prompt tail chatfmt's parser assumes: the fixture's, else the family default. */
function templateParse(fixture: ParseFixture, chunks?: readonly string[]): ParsedMessage {
  const options = {
    responseTemplate: exportResponseTemplate(fixture.family).template,
    output: 'openai' as const,
    prefix: fixture.prefix ?? parserFamily(fixture.family).defaultPrefix,
    tools: fixture.tools ?? null,
    idGenerator,
  };
  if (!chunks) return parse(fixture.completion, options);
  const parser = createStreamParser(options);
  const deltas: Delta[] = [];
  for (const chunk of chunks) deltas.push(...parser.push(chunk));
  deltas.push(...parser.finish());
  return accumulateDeltas(deltas);
}

const hasPythonRegex = spawnSync('python3', ['-c', 'import regex'], { encoding: 'utf8' }).status === 0;

function patternsOf(template: Record<string, unknown>): string[] {
  const patterns = typeof template.start_anchor_pattern === 'string' ? [template.start_anchor_pattern] : [];
  for (const field of Object.values(template.fields as Record<string, Record<string, unknown>>)) {
    for (const key of ['open_pattern', 'close_pattern']) if (typeof field[key] === 'string') patterns.push(field[key] as string);
    const tag = (field.content_args as { tag_pattern?: unknown } | undefined)?.tag_pattern;
    if (typeof tag === 'string') patterns.push(tag);
  }
  return patterns;
}

const fixtures = loadParseFixtures().filter(wellFormed);
const byFamily = new Map<string, ParseFixture[]>();
for (const fixture of fixtures) byFamily.set(fixture.family, [...(byFamily.get(fixture.family) ?? []), fixture]);

describe('exportResponseTemplate', () => {
  it.each(familyIds)('%s: a template transformers accepts (validated like its load step), with losses', (id) => {
    const exported = exportResponseTemplate(id);
    expect(() => compileResponseTemplate(exported.template)).not.toThrow();
    expect(Object.keys(exported.template).every((key) => ['version', 'defaults', 'fields', 'start_anchor', 'start_anchor_pattern'].includes(key))).toBe(true);
    expect(exported.losses.slice(-COMMON_LOSSES.length)).toEqual([...COMMON_LOSSES]);
    if (exported.verdict === 'partial') expect(exported.losses.length).toBeGreaterThan(COMMON_LOSSES.length);
  });

  it.skipIf(!hasPythonRegex)('every pattern compiles with the Python `regex` module transformers uses (DOTALL)', () => {
    const patterns = familyIds.flatMap((id) => patternsOf(exportResponseTemplate(id).template));
    const script = 'import json,sys,regex\nfor p in json.load(sys.stdin): regex.compile(p, regex.DOTALL)\nprint("ok")';
    const result = spawnSync('python3', ['-c', script], { input: JSON.stringify(patterns), encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('ok');
  });

  it('resolves aliases and variants to their family, and refuses unknown ids with a coded error', () => {
    expect(exportResponseTemplate('qwen3-thinking').family).toBe('qwen3');
    expect(() => exportResponseTemplate('nope')).toThrow(expect.objectContaining({ code: 'UNKNOWN_FAMILY' }));
  });

  describe('the four newer families, on what their fixtures do not show', () => {
    /** Through the exported template, in one piece and a code point at a time (both must agree). */
    function viaTemplate(family: string, completion: string, prefix = '') {
      const options = { responseTemplate: exportResponseTemplate(family).template, output: 'openai' as const, prefix, idGenerator };
      const batch = parse(completion, options);
      const parser = createStreamParser(options);
      const deltas: Delta[] = [];
      for (const chunk of codePointChunks(completion)) deltas.push(...parser.push(chunk));
      deltas.push(...parser.finish());
      expect(accumulateDeltas(deltas)).toEqual(batch);
      return batch;
    }

    it('gemma-4: the `thought⏎` label is the opener\'s, a text that only starts like it is reasoning', () => {
      expect(viaTemplate('gemma-4', '<|channel>thought\nPlan.<channel|>Hi.<turn|>')).toMatchObject({ reasoning_content: 'Plan.', content: 'Hi.' });
      expect(viaTemplate('gemma-4', '<|channel>thousand reasons<channel|>Hi.<turn|>')).toMatchObject({ reasoning_content: 'thousand reasons', content: 'Hi.' });
      expect(viaTemplate('gemma-4', '<|channel>thought\nPlan.<|tool_call>call:f{a:1}<turn|>')).toMatchObject({ reasoning_content: 'Plan.', tool_calls: [{ function: { name: 'f', arguments: '{"a":1}' } }] });
    });

    it('mistral: the model\'s [CALL_ID] is the call id; a call ends at the next opener, `</s>` or a line of text', () => {
      const message = viaTemplate('mistral', '[TOOL_CALLS]f[CALL_ID]a1B2c3D4e[ARGS]{"a": {"b": 1}}[TOOL_CALLS]g[ARGS]{}\nDone.</s>');
      expect(message.tool_calls.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([['a1B2c3D4e', 'f', '{"a":{"b":1}}'], ['call_1', 'g', '{}']]);
      expect(message.content).toBe('Done.');
      expect(viaTemplate('mistral', '[THINK]Maybe [TOOL_CALLS]f[ARGS]{}[/THINK]No.</s>')).toMatchObject({ reasoning_content: 'Maybe [TOOL_CALLS]f[ARGS]{}', content: 'No.', tool_calls: [] });
    });

    it('llama-3: calls at the start or after <|python_tag|>, separated by `;`; a JSON object after prose is text', () => {
      const message = viaTemplate('llama-3', '{"name": "f", "parameters": {"a": {"b": 1}}}; {"name": "g", "arguments": {}}<|eot_id|>');
      expect(message.tool_calls.map((call) => [call.function.name, call.function.arguments])).toEqual([['f', '{"a":{"b":1}}'], ['g', '{}']]);
      expect(viaTemplate('llama-3', 'Use {"name": "f", "parameters": {}} like this.<|eot_id|>')).toMatchObject({ content: 'Use {"name": "f", "parameters": {}} like this.', tool_calls: [] });
      expect(viaTemplate('llama-3', 'Checking.<|python_tag|>{"name": "f", "parameters": {"a": 1}}<|eom_id|>')).toMatchObject({ content: 'Checking.', tool_calls: [{ function: { name: 'f' } }] });
    });

    it('deepseek-v3.2: both wrappers and the string attribute are read; string="false" values wait for tools= to type them', () => {
      const call = (wrapper: string, attribute: string) =>
        `</think><｜DSML｜${wrapper}>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="n"${attribute}>42</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜${wrapper}>`;
      for (const wrapper of ['function_calls', 'tool_calls']) {
        for (const attribute of [' string="false"', ' string="true"', '']) {
          expect(viaTemplate('deepseek-v3.2', call(wrapper, attribute), '<think>').tool_calls[0]!.function.arguments).toBe('{"n":"42"}');
        }
      }
      const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: { n: { type: 'integer' } } } } }];
      const typed = parse(call('function_calls', ' string="false"'), { responseTemplate: exportResponseTemplate('deepseek-v3.2').template, output: 'openai', prefix: '<think>', tools, idGenerator });
      expect(typed.tool_calls[0]!.function.arguments).toBe('{"n":42}');
    });
  });

  it('every family has well-formed fixtures to compare on', () => {
    for (const id of familyIds) expect(byFamily.get(id)?.length ?? 0, id).toBeGreaterThan(3);
  });

  describe.each([...byFamily.keys()])('%s fixtures through the exported template', (family) => {
    const cases = byFamily.get(family)!;
    const exported = exportResponseTemplate(family);

    it(`reproduces chatfmt's parse on the well-formed fixtures (${exported.verdict})`, () => {
      const differing: string[] = [];
      for (const fixture of cases) {
        const mine = essence(templateParse(fixture));
        if (JSON.stringify(mine) !== JSON.stringify(essence(ownParse(fixture)))) differing.push(fixture.name);
      }
      // Every difference is a known case, explained by one of the losses the export reports.
      const known = KNOWN_DIFFERENCES[family] ?? {};
      expect(differing, `differing: ${differing.join(', ')}`).toEqual(Object.keys(known).sort());
      for (const [name, loss] of Object.entries(known)) {
        const reported = exported.losses.find((text) => text.includes(loss));
        expect(reported, `${name}: no loss mentions "${loss}"`).toBeDefined();
        // An exact family differs only where every response template would.
        if (exported.verdict === 'exact') expect(COMMON_LOSSES, name).toContain(reported);
      }
      expect(differing.length, 'most well-formed output agrees').toBeLessThan(cases.length * (SHARE_DIFFERING[family] ?? 1 / 3));
    });

    it('streams to the same result a code point at a time', () => {
      for (const fixture of cases) {
        expect(templateParse(fixture, codePointChunks(fixture.completion)), fixture.name).toEqual(templateParse(fixture));
      }
    });
  });
});

/**
 * Families whose fixtures dwell on one thing the template cannot read: Llama 3's built-ins and raw code (one loss) are
 * six of its seventeen well-formed fixtures, the JSON calls must still agree; Qwen3-Coder's values holding markup.
 */
const SHARE_DIFFERING: Record<string, number> = {
  'llama-3': 1 / 2,
  // Qwen3-Coder's fixtures dwell on values that hold the family's own markup (issue 16): one loss, seven fixtures.
  'qwen3-coder': 1 / 2,
};

// Why a well-formed fixture reads differently through the exported template: a piece of the loss that explains it.
const IN_ARGUMENT = 'a marker written inside an argument';
const AFTER_STOP = 'text after a stop string';
const REEMITTED = 'a <think> the model writes again';
const UNTYPED = 'values stay strings unless tools= types them';
const PYTHON = 'Python-literal values';
const MISTRAL_LIST = 'the v3/v7 list form';
const LLAMA_BUILTIN = 'built-in calls after <|python_tag|>';
const MESSAGES_JOINED = 'joined with no blank line';

const KNOWN_DIFFERENCES: Record<string, Record<string, string>> = {
  hermes: { 'formats-1b-close-tag-in-string': IN_ARGUMENT, 'markers-in-string-args': IN_ARGUMENT, 'stop-string-dropped-text-kept': AFTER_STOP },
  'qwen2.5': { 'formats-1b-close-tag-in-string': IN_ARGUMENT, 'markers-in-string-args': IN_ARGUMENT, 'stop-string-dropped-text-kept': AFTER_STOP },
  qwen3: {
    'formats-1b-close-tag-in-string': IN_ARGUMENT,
    'markers-in-string-args': IN_ARGUMENT,
    'reemitted-think-absorbed': REEMITTED,
    'stop-string-dropped-text-kept': AFTER_STOP,
  },
  'qwen3-coder': {
    'missing-parameter-close-tag': 'without </parameter>',
    'no-schema-json-literals': UNTYPED,
    'no-tools-missing-close-tag': 'without </parameter>',
    'no-tools-nested-call-in-value': IN_ARGUMENT,
    'no-tools-parameter-markup-in-value': IN_ARGUMENT,
    'string-value-close-then-undeclared-key': IN_ARGUMENT,
    'string-value-holds-close-tag': IN_ARGUMENT,
    'string-value-holds-function-close': IN_ARGUMENT,
    'string-value-holds-tool-call-markup': IN_ARGUMENT,
    'undeclared-key-after-close-is-a-parameter': UNTYPED,
    'vllm-23324-typed-values-stream-equals-batch': PYTHON,
  },
  'deepseek-v3.1': { 'own-markers-in-string-args': IN_ARGUMENT, 'stop-string-dropped-text-kept': AFTER_STOP },
  'deepseek-r1': { 'reemitted-think-absorbed': REEMITTED, 'stop-string-dropped-text-kept': AFTER_STOP },
  'kimi-k2': { 'bare-counter-id-one-tool': 'bare counter id', 'own-markers-in-string-args': IN_ARGUMENT, 'stop-string-dropped-text-kept': AFTER_STOP },
  'gpt-oss': { 'own-markers-in-string-args': IN_ARGUMENT, 'preamble-final-concatenate': MESSAGES_JOINED, 'text-before-and-after': MESSAGES_JOINED },
  'glm-4.5': { 'antirez-ds4-569-typed-not-stringified': UNTYPED, 'markers-in-string-values': IN_ARGUMENT },
  'seed-oss': {
    'formats-6b-python-literal': PYTHON,
    'llama.cpp-no-schema-json-literals': UNTYPED,
    'typed-values-python-history-form': PYTHON,
  },
  'gemma-4': { 'markers-in-string-args': IN_ARGUMENT },
  'deepseek-v3.2': {
    'formats-next-2b-typed': UNTYPED,
    'markers-in-string-args': IN_ARGUMENT,
    'string-true-schema-wins': 'tools= skips `string` in a type list',
    'typing-without-tools': UNTYPED,
  },
  mistral: {
    'formats-next-4b': MISTRAL_LIST,
    'list-ids-any-key-order': MISTRAL_LIST,
    'list-trailing-text': MISTRAL_LIST,
    'two-list-blocks': MISTRAL_LIST,
    'zero-arg-list': MISTRAL_LIST,
  },
  'llama-3': {
    'builtin-call': LLAMA_BUILTIN,
    'builtin-call-literals': LLAMA_BUILTIN,
    'code-interpreter-call': LLAMA_BUILTIN,
    'code-interpreter-raw': LLAMA_BUILTIN,
    'formats-next-5c-python-builtin-call': LLAMA_BUILTIN,
    'markers-in-string-args': IN_ARGUMENT,
    'raw-code-declared-python': LLAMA_BUILTIN,
  },
};
