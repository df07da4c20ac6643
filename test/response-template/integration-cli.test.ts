import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { compileResponseTemplate, exportResponseTemplate } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

const model = (name: string) => new URL(`../../fixtures/models/${name}`, import.meta.url).pathname;
const tmp = tempDir();

async function cli(argv: string[], stdin = '') {
  const io = memoryIO(stdin);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

const completion = '<think>\nParis first.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<|im_end|>';

describe('chatfmt parse --template <folder with a response template>', () => {
  it('prints transformers\' dict', async () => {
    const { code, out, err } = await cli(['parse', '--template', model('qwen3-response-template')], completion);
    expect([code, err]).toEqual([0, '']);
    expect(out).toBe(
      `${JSON.stringify({ role: 'assistant', reasoning_content: 'Paris first.', content: 'Let me check.', tool_calls: [{ type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] }, null, 2)}\n`,
    );
  });

  it('--openai prints chatfmt\'s message; --prompt is transformers\' prefix, cut at the start anchor', async () => {
    const prompt = tmp.write('prompt.txt', '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n');
    const { code, out } = await cli(['parse', '--template', model('qwen3-response-template'), '--openai', '--prompt', prompt], 'Short.</think>Sunny.');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ role: 'assistant', content: 'Sunny.', reasoning_content: 'Short.', tool_calls: [], diagnostics: [] });
  });

  it('--openai --stream prints OpenAI deltas', async () => {
    const { code, out } = await cli(['parse', '--template', model('qwen3-response-template'), '--openai', '--stream'], completion);
    expect(code).toBe(0);
    const deltas = out.trim().split('\n').map((line) => JSON.parse(line));
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('Paris first.');
    expect(deltas.find((d) => d.tool_calls)?.tool_calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
  });

  it('--stream prints transformers\' events, then the dict', async () => {
    const { code, out } = await cli(['parse', '--template', model('qwen3-response-template'), '--stream'], completion);
    expect(code).toBe(0);
    const lines = out.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({ type: 'region_open', field: 'reasoning_content' });
    expect(lines.at(-1)).toEqual({ message: expect.objectContaining({ content: 'Let me check.' }) });
  });

  it('exits 1 with transformers\' error in one line when the output does not fit (dict mode), keeps it as content with --openai', async () => {
    const broken = '<tool_call>\n{"name": "f", "arguments": {"a": </tool_call>';
    const strict = await cli(['parse', '--template', model('qwen3-response-template')], broken);
    expect(strict.code).toBe(1);
    expect(strict.out).toBe('');
    expect(strict.err).toMatch(/^chatfmt: ValueError: json parser could not parse region as JSON\. [^\n]+\n$/);
    const lenient = await cli(['parse', '--template', model('qwen3-response-template'), '--openai'], broken);
    expect(lenient.code).toBe(0);
    expect(JSON.parse(lenient.out)).toMatchObject({ content: broken, diagnostics: [{ code: 'PARSE_RESPONSE_TEMPLATE', severity: 'error' }] });
  });

  it('uses a converted legacy response_schema, and names one it cannot convert', async () => {
    const { code, out } = await cli(['parse', '--template', model('qwen3-response-schema')], completion);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ reasoning_content: 'Paris first.', content: 'Let me check.' });
    const dir = tmp.path + '/unsupported';
    tmp.write('unsupported/tokenizer_config.json', JSON.stringify({ chat_template: 'x', response_schema: { type: 'object', 'x-regex': '(?P<a>x)|(?P<b>y)', properties: { a: {}, b: {} } } }));
    const bad = await cli(['parse', '--template', dir], 'x');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^chatfmt: .*tokenizer_config\.json: response_schema cannot be converted to a response template: the top-level x-regex is an alternation \(give --family to parse with a chatfmt family instead\)\n$/);
  });

  it('a bad response template is one line, exit 2', async () => {
    const dir = tmp.path + '/badtpl';
    tmp.write('badtpl/tokenizer_config.json', JSON.stringify({ chat_template: 'x', response_template: { fields: {}, start_anchor: 'A' } }));
    const { code, err } = await cli(['parse', '--template', dir], 'x');
    expect(code).toBe(2);
    expect(err).toMatch(/^chatfmt: [^\n]+\n$/);
  });

  it('--family still wins over the folder\'s response template', async () => {
    const { code, out } = await cli(['parse', '--family', 'qwen3', '--template', model('qwen3-response-template')], completion);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ content: 'Let me check.', diagnostics: [] });
  });
});

describe('chatfmt families --response-template', () => {
  it('prints a template the executor loads, and its losses on stderr', async () => {
    const { code, out, err } = await cli(['families', '--response-template', 'qwen3']);
    expect(code).toBe(0);
    const template = JSON.parse(out);
    expect(template).toEqual(exportResponseTemplate('qwen3').template);
    expect(() => compileResponseTemplate(template)).not.toThrow();
    expect(err.split('\n')[0]).toBe("qwen3: partial; what the template loses against chatfmt's parser:");
    for (const loss of exportResponseTemplate('qwen3').losses) expect(err).toContain(`  - ${loss}\n`);
  });

  it('--json returns template and losses together; -o writes a loadable file', async () => {
    const json = await cli(['families', '--response-template', 'gpt-oss', '--json']);
    expect(JSON.parse(json.out)).toEqual(JSON.parse(JSON.stringify(exportResponseTemplate('gpt-oss'))));
    expect(json.err).toBe('');
    const file = tmp.path + '/kimi.json';
    const written = await cli(['families', '--response-template', 'kimi-k2', '-o', file]);
    expect(written.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(exportResponseTemplate('kimi-k2').template);
  });

  it('an unknown family is one line, exit 2', async () => {
    const { code, out, err } = await cli(['families', '--response-template', 'nope']);
    expect([code, out]).toEqual([2, '']);
    expect(err).toMatch(/^chatfmt: unknown family "nope" \(known: [^\n]+\)\n$/);
  });
});

describe('chatfmt detect with a response template', () => {
  it('reports it and the families it parses like', async () => {
    const { code, out } = await cli(['detect', model('qwen3-response-template'), '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.matches[0].family).toBe('qwen3');
    expect(report.responseTemplate).toMatchObject({ key: 'response_template', agrees: expect.arrayContaining(['qwen3']) });
    expect(report.matches[0].evidence).toContain('its response_template parses the qwen3 probe completions as chatfmt does');
    const text = await cli(['detect', model('qwen3-response-template')]);
    expect(text.out).toMatch(/\nresponse template: response_template \(parses like [^)]*qwen3[^)]*\)\n/);
  });

  it('says why a response key cannot be used', async () => {
    const dir = tmp.path + '/unusable';
    tmp.write('unusable/tokenizer_config.json', JSON.stringify({ chat_template: '{{ messages[0].content }}', response_schema: { type: 'object' } }));
    const { code, out } = await cli(['detect', dir]);
    expect(code).toBe(1);
    expect(out).toMatch(/\nresponse template: unusable\n  - .*response_schema cannot be converted to a response template: no top-level "x-regex"[^\n]*\n$/);
  });

  it('finds the family through an exported template when nothing renders alike', async () => {
    const dir = tmp.path + '/exported';
    tmp.write('exported/tokenizer_config.json', JSON.stringify({ chat_template: '{{ messages[0].content }}', response_template: exportResponseTemplate('kimi-k2').template }));
    const { code, out } = await cli(['detect', dir, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report.responseTemplate.exported).toBe('kimi-k2');
    expect(report.matches[0]).toMatchObject({ family: 'kimi-k2', method: 'response-template' });
  });
});
