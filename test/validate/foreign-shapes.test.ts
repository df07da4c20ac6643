import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliProcess } from '../helpers/cli-process.js';
import { repoRoot } from '../helpers/shared.js';

// Issue 16 §4: rows of another format get one hint each (ROW_WRONG_SHAPE), from validate and convert alike, never a
// wall of structure errors; LLaMA-Factory v1 rows are imported (--from llamafactory).
const chatfmt = cliProcess();

const turns = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
const foreign: Array<[string, unknown, string, string[]]> = [
  ['a DPO pair with its prompt as messages', { messages: turns.slice(0, 1), chosen: turns.slice(1), rejected: turns.slice(1) }, 'preference pair', ['openai']],
  ['a LLaMA-Factory ShareGPT pair', { conversations: [{ from: 'human', value: 'hi' }], chosen: { from: 'gpt', value: 'a' }, rejected: { from: 'gpt', value: 'b' } }, 'preference pair', ['sharegpt']],
  ['a KTO example', { prompt: 'hi', completion: 'hello', label: true }, 'KTO', ['openai', 'sharegpt', 'xlam']],
  ['a ShareGPT row read as OpenAI', { conversations: [{ from: 'human', value: 'hi' }, { from: 'gpt', value: 'yo' }] }, '--from sharegpt', ['openai']],
  ['an OpenAI row read as ShareGPT', { messages: turns }, '--from openai', ['sharegpt']],
  ['an OpenAI row read as xLAM', { messages: turns }, '--from openai', ['xlam']],
  ['a LLaMA-Factory v1 row read as OpenAI', { messages: [{ role: 'user', content: [{ type: 'text', value: 'hi' }], loss_weight: 0 }, { role: 'assistant', content: [{ type: 'text', value: 'yo' }], loss_weight: 1 }] }, '--from llamafactory', ['openai']],
];

describe('foreign shapes: one hint per row', () => {
  it.each(foreign)('%s', async (_name, row, hint, shapes) => {
    const input = `${JSON.stringify(row)}\n${JSON.stringify(row)}\n`;
    for (const shape of shapes) {
      const validate = await chatfmt(['validate', '-', '--from', shape, '--format', 'json', '--workers', '1'], { stdin: input });
      expect(validate.code, shape).toBe(1);
      const summary = JSON.parse(validate.out) as { byCode: Record<string, { count: number }>; examples: Array<{ message: string }> };
      expect(Object.keys(summary.byCode), shape).toEqual(['ROW_WRONG_SHAPE']);
      expect(summary.byCode.ROW_WRONG_SHAPE!.count).toBe(2);
      expect(summary.examples[0]!.message).toContain(hint);
      const convert = await chatfmt(['convert', '-', '--from', shape, '--to', 'openai'], { stdin: input });
      expect(convert.code, shape).toBe(1);
      expect(convert.out).toBe('');
      expect(convert.err).toMatch(/ROW_WRONG_SHAPE +2 errors\n/);
      expect(convert.err).toContain(hint);
    }
  });

  it('auto-detected validate of a v1 file names --from llamafactory instead of listing every part', async () => {
    const file = join(repoRoot, 'fixtures/convert/llamafactory/rows.jsonl');
    const { code, out } = await chatfmt(['validate', file, '--format', 'json', '--workers', '1']);
    expect(code).toBe(1);
    const summary = JSON.parse(out) as { byCode: Record<string, { count: number }> };
    expect(Object.keys(summary.byCode)).toEqual(['ROW_WRONG_SHAPE']);
  });
});

describe('LLaMA-Factory v1 rows (--from llamafactory)', () => {
  const file = join(repoRoot, 'fixtures/convert/llamafactory/rows.jsonl');

  it('become OpenAI messages: text, reasoning and tool_call parts, loss_weight 0 on an assistant turn as weight 0', async () => {
    const { code, out, err } = await chatfmt(['convert', file, '--from', 'llamafactory', '--to', 'openai']);
    expect(code).toBe(1);
    const rows = out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { messages: Array<Record<string, unknown>> });
    expect(rows).toHaveLength(4);
    expect(rows[0]!.messages[2]).toMatchObject({ role: 'assistant', content: null, reasoning_content: 'Need the tool.', tool_calls: [{ function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] });
    expect(rows[1]!.messages[1]).toEqual({ role: 'assistant', content: 'Hello!', weight: 0 });
    expect(err).toMatch(/IMPORT_LOSS_WEIGHT +2 warnings\n/);
    expect(err).toContain('part type "image_url" is not text, reasoning or tool_call → at messages[0].content[0].type (line 3)');
  });

  it('render the same training text as the OpenAI rows they import to', async () => {
    const imported = await chatfmt(['convert', file, '--from', 'llamafactory', '--to', 'openai']);
    const direct = await chatfmt(['convert', '-', '--from', 'openai', '--to', 'qwen3'], { stdin: imported.out });
    const viaV1 = await chatfmt(['convert', file, '--from', 'llamafactory', '--to', 'qwen3']);
    expect(viaV1.out).toBe(direct.out);
    expect(viaV1.out.split('\n').filter(Boolean)).toHaveLength(4);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(8);
  });
});
