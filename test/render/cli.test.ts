import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { familyIds } from '../../src/index.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir();
const weather = 'fixtures/conversations/weather.json';

async function cli(argv: string[], stdin = '') {
  const io = memoryIO(stdin);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('chatfmt render', () => {
  it('renders the quick-start example as a Qwen3 prompt, with no newline added', async () => {
    const { code, out, err } = await cli(['render', '--family', 'qwen3', '-g', weather]);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out.startsWith('<|im_start|>system\nYou are a helpful assistant.')).toBe(true);
    expect(out).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>');
    expect(out.endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('reads stdin, prints {text, generation_spans} with --json', async () => {
    const input = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] });
    const { code, out } = await cli(['render', '--family', 'qwen2.5', '--json'], input);
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { text: string; generation_spans: Array<[number, number]> };
    expect(parsed.generation_spans.map(([s, e]) => parsed.text.slice(s, e))).toEqual(['hello<|im_end|>']);
  });

  it('renders JSONL line by line and reports a bad line without stopping', async () => {
    const good = JSON.stringify({ messages: [{ role: 'user', content: 'one' }] });
    const file = tmp.write('batch.jsonl', `${good}\nnot json\n\n${good.replace('one', 'two')}\n`);
    const { code, out } = await cli(['render', '--family', 'qwen3', file]);
    const lines = out.trimEnd().split('\n').map((line) => JSON.parse(line) as { text?: string; error?: string });
    expect(lines).toHaveLength(3);
    expect(lines[0]!.text).toContain('one');
    expect(lines[1]!.error).toMatch(/^line 2: /);
    expect(lines[2]!.text).toContain('two');
    expect(code).toBe(1);
  });

  it('takes --var as JSON when it parses, else as a string', async () => {
    const file = tmp.write('vars.jinja', '{{ a }}|{{ b }}|{{ c }}');
    const { out } = await cli(['render', '--template', file, '--var', 'a=false', '--var', 'b=high', '--var', 'c={"k": [1, 2.0]}'], '{"messages": []}');
    expect(out).toBe("False|high|{'k': [1, 2.0]}");
  });

  it('exits 1 with one line when the template rejects the input, 2 for usage and syntax errors', async () => {
    const rejecting = tmp.write('reject.jinja', '{{ raise_exception("System role not supported") }}');
    let result = await cli(['render', '--template', rejecting], '{"messages": []}');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^chatfmt: .*System role not supported\n$/);

    const broken = tmp.write('broken.jinja', '{% for m in messages %}');
    result = await cli(['render', '--template', broken], '{"messages": []}');
    expect(result.code).toBe(2);
    expect(result.err.split('\n').filter(Boolean)).toHaveLength(1);

    for (const argv of [['render', weather], ['render', '--family', 'nope', weather], ['render', '--family', 'qwen3', 'missing.json'], ['render', '--family', 'qwen3', 'fixtures']]) {
      result = await cli(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toMatch(/^chatfmt: [^\n]+\n$/);
    }
    result = await cli(['render', '--family', 'qwen3'], '{"messages": [');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/not valid JSON/);
  });

  it('--args keep passes messages through as transformers does', async () => {
    const input = JSON.stringify({
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name: 'f', arguments: { a: 1 } } }] }],
    });
    const auto = await cli(['render', '--family', 'deepseek-v3.1'], input);
    expect(auto.code).toBe(0);
    expect(auto.out).toContain('f<｜tool▁sep｜>{"a": 1}');
    const keep = await cli(['render', '--family', 'deepseek-v3.1', '--args', 'keep'], input);
    expect(keep.code).toBe(1);
    expect(keep.out).toBe('');
    expect(keep.out + keep.err).not.toContain('[object');
  });
});

describe('chatfmt families', () => {
  it('lists every family with aliases, format and models', async () => {
    const { code, out } = await cli(['families', '--json']);
    expect(code).toBe(0);
    const rows = JSON.parse(out) as Array<{ id: string; aliases: string[]; format: string; models: string[] }>;
    expect(rows.map((r) => r.id)).toEqual([...familyIds]);
    expect(rows.every((r) => r.models.length > 0 && r.format.length > 0)).toBe(true);
  });
});
