import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  accumulateDeltas,
  ChatfmtError,
  compileResponseTemplate,
  createStreamParser,
  detectFamily,
  exportResponseTemplate,
  loadTemplate,
  matchResponseTemplate,
  parse,
  parseResponse,
  renderConversation,
  responseTemplateFromSchema,
  type Delta,
} from '../../src/index.js';
import { codePointChunks } from '../helpers/chunkings.js';
import { hasShared, sharedDir } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const model = (name: string) => new URL(`../../fixtures/models/${name}`, import.meta.url).pathname;
const idGenerator = ({ index }: { index: number }) => `call_${index}`;
const tmp = tempDir();

const qwenCompletion =
  '<think>\nParis first.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}\n</tool_call>\n<|im_end|>';

function openaiStream(chunks: readonly string[], responseTemplate: Record<string, unknown>): Delta[] {
  const parser = createStreamParser({ responseTemplate, output: 'openai', idGenerator });
  const deltas: Delta[] = [];
  for (const chunk of chunks) deltas.push(...parser.push(chunk));
  deltas.push(...parser.finish());
  return deltas;
}

describe('loadTemplate reads response templates', () => {
  it('exposes a model folder\'s response_template and still renders its chat template', () => {
    const loaded = loadTemplate({ template: model('qwen3-response-template') });
    const config = JSON.parse(readFileSync(join(model('qwen3-response-template'), 'tokenizer_config.json'), 'utf8'));
    expect(loaded.responseTemplate).toEqual(config.response_template);
    expect(loaded.responseTemplateKey).toBe('response_template');
    expect(renderConversation(loaded, { messages: [{ role: 'user', content: 'hi' }], add_generation_prompt: true }).text).toMatch(/<\|im_start\|>assistant\n$/);
  });

  it('reads response_template from a tokenizer_config.json path too, and has none for a bare .jinja', () => {
    const file = tmp.write('cfg/tokenizer_config.json', JSON.stringify({ chat_template: 'x', response_template: { fields: { content: {} }, start_anchor: 'A' } }));
    expect(loadTemplate({ template: file }).responseTemplate).toEqual({ fields: { content: {} }, start_anchor: 'A' });
    expect(loadTemplate({ template: tmp.write('plain.jinja', 'x') }).responseTemplate).toBeUndefined();
  });

  it('converts a legacy response_schema and prefers response_template when both are present', () => {
    const legacy = loadTemplate({ template: model('qwen3-response-schema') });
    expect(legacy.responseTemplateKey).toBe('response_schema');
    expect(legacy.responseSchema).toBeDefined();
    expect(legacy.responseTemplate).toMatchObject({ fields: { tool_calls: { repeats: true, content: 'json' } } });
    const both = tmp.write('both/tokenizer_config.json', JSON.stringify({ chat_template: 'x', response_template: { fields: { a: {} }, start_anchor: 'A' }, response_schema: { type: 'object' } }));
    expect(loadTemplate({ template: both }).responseTemplateKey).toBe('response_template');
  });

  it('records, without failing the load, a response key chatfmt cannot use', () => {
    const bad = tmp.write('bad/tokenizer_config.json', JSON.stringify({ chat_template: 'hi', response_schema: { type: 'object', properties: { a: { type: 'string' } } } }));
    const loaded = loadTemplate({ template: bad });
    expect(loaded.responseTemplate).toBeUndefined();
    expect(loaded.responseTemplateError).toMatch(/response_schema cannot be converted to a response template: no top-level "x-regex"/);
    expect(renderConversation(loaded, { messages: [{ role: 'user', content: 'x' }] }).text).toBe('hi');
    const notObject = tmp.write('bad2/tokenizer_config.json', JSON.stringify({ chat_template: 'hi', response_template: 'nope' }));
    expect(loadTemplate({ template: notObject }).responseTemplateError).toMatch(/"response_template" is not a JSON object/);
  });
});

describe('parse({responseTemplate})', () => {
  const template = loadTemplate({ template: model('qwen3-response-template') }).responseTemplate!;

  it('gives transformers\' dict, exactly what parseResponse gives, with prefix "" by default', () => {
    const dict = parse(qwenCompletion, { responseTemplate: template });
    expect(dict).toEqual(parseResponse(qwenCompletion, template, { prefix: '' }));
    expect(Object.keys(dict)).toEqual(Object.keys(parseResponse(qwenCompletion, template, { prefix: '' })));
    expect(dict).toEqual({
      role: 'assistant',
      reasoning_content: 'Paris first.',
      content: 'Let me check.',
      tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris', days: 2 } } }],
    });
  });

  it('passes prefix and tools through (a prompt ending in <think> starts inside reasoning; tools cast arguments)', () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: { n: { type: 'integer' } } } } }];
    const coder = exportResponseTemplate('qwen3-coder').template;
    const text = 'Hmm.</think>\n<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>';
    const prompt = '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n';
    expect(parse(text, { responseTemplate: coder, prefix: prompt, tools })).toEqual(parseResponse(text, coder, { prefix: prompt, tools }));
    expect(parse(text, { responseTemplate: coder, prefix: prompt, tools })).toMatchObject({ thinking: 'Hmm.', tool_calls: [{ function: { arguments: { n: 7 } } }] });
    expect(parse(text, { responseTemplate: coder, prefix: prompt })).toMatchObject({ tool_calls: [{ function: { arguments: { n: '7' } } }] });
  });

  it('streams transformers\' events and dict with createStreamParser', () => {
    const parser = createStreamParser({ responseTemplate: template });
    const events = [...parser.initialEvents];
    for (const chunk of codePointChunks(qwenCompletion)) events.push(...parser.push(chunk));
    const { message, events: last } = parser.finish();
    events.push(...last);
    expect(message).toEqual(parse(qwenCompletion, { responseTemplate: template }));
    // TRL's call close eats the newline before <|im_end|>, so no content region follows the call.
    expect(events.filter((e) => e.type === 'region_close').map((e) => e.field)).toEqual(['reasoning_content', 'content', 'tool_calls']);
  });

  it('throws a ChatfmtError with the Python error type when transformers would raise', () => {
    const broken = '<tool_call>\n{"name": "f", "arguments": {"a": 1</tool_call>';
    let caught: unknown;
    try {
      parse(broken, { responseTemplate: template });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ChatfmtError);
    expect((caught as { pythonType?: string; cause?: { pythonType?: string } }).pythonType ?? (caught as { cause: { pythonType: string } }).cause.pythonType).toBe('ValueError');
    expect(() => parse('x', { responseTemplate: { fields: {} } })).toThrow(ChatfmtError);
  });
});

describe("output: 'openai'", () => {
  const template = loadTemplate({ template: model('qwen3-response-template') }).responseTemplate!;

  it('maps the dict onto content, reasoning_content and tool_calls with ids and JSON arguments', () => {
    const message = parse(qwenCompletion, { responseTemplate: template, output: 'openai', idGenerator });
    expect(message).toEqual({
      role: 'assistant',
      content: 'Let me check.',
      reasoning_content: 'Paris first.',
      tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":2}' } }],
      diagnostics: [],
    });
  });

  it('writes arguments with their keys in the order the model wrote them, integer-like keys included', () => {
    // JS objects list "10" before "b"; json.loads keeps b, 10, as the model wrote them.
    const args = '{"b": 1, "10": {"z": true, "2": [{"9": null, "a": "x"}]}, "a": {"1": 0, "2": 0}, "__proto__": 5}';
    const text = `<tool_call>\n{"name": "f", "arguments": ${args}}\n</tool_call>\n<|im_end|>`;
    const written = '{"b":1,"10":{"z":true,"2":[{"9":null,"a":"x"}]},"a":{"1":0,"2":0},"__proto__":5}';
    expect(JSON.stringify(JSON.parse(args))).not.toBe(written);
    const message = parse(text, { responseTemplate: template, output: 'openai', idGenerator }) as { tool_calls: { function: { arguments: string } }[] };
    expect(message.tool_calls[0]!.function.arguments).toBe(written);
    const streamed = accumulateDeltas(openaiStream(codePointChunks(text), template));
    expect(streamed.tool_calls?.[0]?.function.arguments).toBe(written);
    // The dict itself is still a plain object, equal to what JSON.parse gives (no visible extra keys).
    const dict = parse(text, { responseTemplate: template }) as { tool_calls: { function: { arguments: unknown } }[] };
    expect(Object.keys(dict.tool_calls[0]!.function.arguments as object)).toEqual(['10', 'b', 'a', '__proto__']);
  });

  it('reads `thinking` as reasoning, gives null for absent keys, and keeps ids the template captured', () => {
    const kimi = exportResponseTemplate('kimi-k2').template;
    const text = '<think>Plan.</think><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>';
    const message = parse(text, { responseTemplate: kimi, output: 'openai', idGenerator });
    expect(message.reasoning_content).toBe('Plan.');
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([{ id: 'functions.get_weather:0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    expect(parse('', { responseTemplate: template, output: 'openai' })).toMatchObject({ content: null, reasoning_content: null, tool_calls: [] });
  });

  it('keeps the raw text as content with an error diagnostic where transformers raises, and --strict throws', () => {
    const text = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "f", "arguments": {"a": </tool_call> after';
    const message = parse(text, { responseTemplate: template, output: 'openai', idGenerator });
    expect(message.tool_calls.map((c) => c.function.name)).toEqual(['get_weather']);
    // TRL's call close eats the newline after the good call, so the raw text starts at the failing call's open.
    expect(message.content).toBe('Checking.<tool_call>\n{"name": "f", "arguments": {"a": </tool_call> after');
    // Right after text, the raw call keeps the whitespace before it, as a chatfmt family keeps it.
    expect(parse('Checking.\n<tool_call>\n{"a": </tool_call>', { responseTemplate: template, output: 'openai' }).content).toBe('Checking.\n<tool_call>\n{"a": </tool_call>');
    expect(message.diagnostics).toHaveLength(1);
    expect(message.diagnostics[0]).toMatchObject({ code: 'PARSE_RESPONSE_TEMPLATE', severity: 'error' });
    expect(message.diagnostics[0]!.message).toMatch(/^ValueError: /);
    expect(() => parse(text, { responseTemplate: template, output: 'openai', strict: true })).toThrow(/PARSE_RESPONSE_TEMPLATE/);
  });

  it('streams OpenAI deltas that accumulate to the batch result under any chunking', () => {
    const texts = [
      qwenCompletion,
      'Plain answer.  ',
      '<think>\nTruncated reasoning',
      'A\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\nB\n<tool_call>\n{"name": "g", "arguments": {"x": [1, 2]}}\n</tool_call>\nC',
      'Bad.\n<tool_call>\n{"name": "f", "arguments": {',
    ];
    for (const text of texts) {
      const batch = parse(text, { responseTemplate: template, output: 'openai', idGenerator });
      for (const chunks of [[text], codePointChunks(text), text.match(/[\s\S]{1,5}/g) ?? []]) {
        const deltas = openaiStream(chunks, template);
        expect(accumulateDeltas(deltas), `${JSON.stringify(text)} in ${chunks.length} chunks`).toEqual(batch);
      }
    }
  });

  it('a close that Python `$` ends streams as the batch reads it, line breaks and all (dict mode keeps transformers\' stream)', () => {
    // The shape of TRL's GLM-4 MoE template: content runs to the next user turn or the end. Python `$` also matches
    // before a final newline, so a stream whose chunk ends in one closed content there; each later line then opened a
    // new region, every line break at a region edge was stripped, and the text came out as one line.
    const toEnd = { start_anchor: '<|assistant|>', fields: { content: { close_pattern: '<\\|user\\|>\\s*|$', content: 'text' } } };
    const text = 'Hello there.\n\nHere is the list:\n- one\n- two\n';
    const lines = text.match(/\n+|[^\n]+/g)!;
    const batch = parse(text, { responseTemplate: toEnd, output: 'openai', idGenerator });
    expect(batch.content).toBe('Hello there.\n\nHere is the list:\n- one\n- two');
    for (const chunks of [lines, codePointChunks(text), [text]]) {
      expect(accumulateDeltas(openaiStream(chunks, toEnd)), `${chunks.length} chunks`).toEqual(batch);
    }
    // transformers' own stream, which dict mode follows: the last line's region overwrote the others.
    const dict = createStreamParser({ responseTemplate: toEnd });
    for (const line of lines) dict.push(line);
    expect(dict.finish().message).toEqual({ content: '- two' });
  });

  it('streams text before the region closes', () => {
    const parser = createStreamParser({ responseTemplate: template, output: 'openai' });
    // Trailing whitespace waits: the region's value is stripped when it closes.
    expect(parser.push('<think>\nStep one, ')).toEqual([{ reasoning_content: 'Step one,' }]);
    expect(parser.push('step two')).toEqual([{ reasoning_content: ' step two' }]);
  });

  it('takes a compiled template too, and keeps chatfmt\'s stream rules (no push after finish)', () => {
    const compiled = compileResponseTemplate(template);
    expect(parse(qwenCompletion, { responseTemplate: compiled, output: 'openai', idGenerator })).toEqual(parse(qwenCompletion, { responseTemplate: template, output: 'openai', idGenerator }));
    expect(parse(qwenCompletion, { responseTemplate: compiled })).toEqual(parse(qwenCompletion, { responseTemplate: template }));
    const parser = createStreamParser({ responseTemplate: compiled, output: 'openai' });
    parser.finish();
    expect(parser.finish()).toEqual([]);
    expect(() => parser.push('x')).toThrow(/push\(\) after finish\(\)/);
  });

  it('says so when the dict overwrote an earlier region (chatfmt keeps both texts)', () => {
    const overwriting = { start_anchor: 'A', fields: { tool_calls: { open: '<c>', close: '</c>', content: 'json' }, content: {} } };
    const text = 'one<c>{"function": {"name": "f", "arguments": {}}}</c>two';
    expect(parse(text, { responseTemplate: overwriting })).toEqual({ content: 'two', tool_calls: { function: { name: 'f', arguments: {} } } });
    const message = parse(text, { responseTemplate: overwriting, output: 'openai', idGenerator });
    expect(message.content).toBe('onetwo');
    expect(message.diagnostics).toEqual([expect.objectContaining({ code: 'PARSE_RESPONSE_TEMPLATE', severity: 'warning' })]);
  });
});

describe('legacy response_schema', () => {
  it('the converted TRL Qwen3 schema parses a completion into the schema\'s fields', () => {
    const legacy = loadTemplate({ template: model('qwen3-response-schema') }).responseTemplate!;
    expect(parse(qwenCompletion, { responseTemplate: legacy })).toEqual({
      role: 'assistant',
      reasoning_content: 'Paris first.',
      content: 'Let me check.',
      tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris', days: 2 } } }],
    });
  });

  it('refuses schemas it cannot convert with one clear line', () => {
    expect(() => responseTemplateFromSchema({ 'x-regex': '(?P<a>x)|(?P<b>y)', properties: { a: {}, b: {} } })).toThrow(/^response_schema cannot be converted to a response template: the top-level x-regex is an alternation$/);
    expect(() => responseTemplateFromSchema({ 'x-regex': '(?P<a>.*)', properties: { a: { type: 'array', items: { 'x-parser': 'yaml' } } } })).toThrow(/a field of type "array" without x-regex-iterator/);
  });

  it.skipIf(!hasShared)('converts the three shared legacy schemas into templates the executor loads', () => {
    const dir = join(sharedDir, 'response-templates', 'legacy');
    const gemmaCall = '<|channel>thought\nThink.<channel|>Sure.<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:2}<tool_call|><turn|>';
    for (const file of ['trl-qwen3', 'google-gemma-4-31B-it', 'google-gemma-4-E2B-it']) {
      const path = join(dir, `${file}.response_schema.json`);
      if (!existsSync(path)) continue;
      const template = responseTemplateFromSchema(JSON.parse(readFileSync(path, 'utf8')));
      if (file === 'trl-qwen3') expect(parse(qwenCompletion, { responseTemplate: template })).toMatchObject({ content: 'Let me check.' });
      else {
        expect(parse(gemmaCall, { responseTemplate: template })).toEqual({
          role: 'assistant',
          thinking: 'Think.',
          content: 'Sure.',
          tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris', days: 2 } } }],
        });
      }
    }
  });
});

describe('detect with a response template', () => {
  it('matchResponseTemplate names the family it was exported from and those it parses like; detectFamily adds the evidence', () => {
    const loaded = loadTemplate({ template: model('qwen3-response-template') });
    const match = matchResponseTemplate(loaded)!;
    expect(match.key).toBe('response_template');
    expect(match.exported).toBeUndefined();
    expect(match.agrees).toEqual(['hermes', 'qwen2.5', 'qwen3']);
    expect(detectFamily(loaded)[0]).toMatchObject({ family: 'qwen3', method: 'render-equivalence' });
    const exported = { ...loadTemplate({ source: 'x' }), responseTemplate: exportResponseTemplate('glm-4.5').template };
    expect(matchResponseTemplate(exported)).toMatchObject({ exported: 'glm-4.5', agrees: ['glm-4.5'] });
    expect(detectFamily(exported)[0]).toMatchObject({ family: 'glm-4.5', method: 'response-template' });
    expect(matchResponseTemplate(loadTemplate({ source: 'x' }))).toBeUndefined();
  });

  it('a response template that fails to load agrees with nothing and says why', () => {
    const broken = { ...loadTemplate({ source: 'x' }), responseTemplate: { fields: {}, start_anchor: 'A' } };
    const match = matchResponseTemplate(broken)!;
    expect(match.agrees).toEqual([]);
    expect(match.evidence.join('\n')).toMatch(/cannot be used: /);
  });
});
