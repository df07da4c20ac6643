import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 16 §4: warnings must not talk about ids the user never wrote. Importers make up `call_N` ids for rows without
// any (ShareGPT, xLAM, Hermes text); Kimi and Mistral rewrite ids, and that rewrite was reported as if it were the user's.

const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const sharegptRow = {
  conversations: [
    { from: 'human', value: 'Weather in Paris?' },
    { from: 'function_call', value: '{"name": "get_weather", "arguments": {"city": "Paris"}}' },
    { from: 'observation', value: '18C' },
    { from: 'gpt', value: '18C.' },
  ],
  tools: JSON.stringify(tools),
};
const openaiRow = (id?: string) => ({
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', tool_calls: [{ ...(id ? { id } : {}), type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', ...(id ? { tool_call_id: id } : {}), content: '18C' },
    { role: 'assistant', content: '18C.' },
  ],
  tools,
});

describe('id rewrites are reported only for ids the row wrote', () => {
  const tmp = tempDir();

  async function bothReports(rows: unknown[], from: string, family: string): Promise<{ validate: Array<Record<string, unknown>>; convert: Array<Record<string, unknown>> }> {
    const file = tmp.write(`${from}-${family}-${rows.length}-${Math.random().toString(36).slice(2)}.jsonl`, rows.map((row) => JSON.stringify(row)).join('\n'));
    const read = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(await run(['validate', file, '--from', from, '--family', family, '--workers', '1', '--report', `${file}.v`], memoryIO())).toBe(0);
    expect(await run(['convert', file, '--from', from, '--to', family, '--report', `${file}.c`], memoryIO())).toBe(0);
    return { validate: read(`${file}.v`), convert: read(`${file}.c`) };
  }

  it.each([['kimi-k2'], ['mistral']])('%s: a ShareGPT row (no ids at all) gets no id warning from validate or convert', async (family) => {
    const { validate, convert } = await bothReports([sharegptRow], 'sharegpt', family);
    expect(validate.filter((issue) => issue.code === 'TEMPLATE_IDS_REWRITTEN')).toEqual([]);
    expect(convert.filter((issue) => issue.code === 'TEMPLATE_IDS_REWRITTEN')).toEqual([]);
  });

  it.each([['kimi-k2'], ['mistral']])('%s: an OpenAI call without an id gets none either', async (family) => {
    const { validate, convert } = await bothReports([openaiRow()], 'openai', family);
    expect([...validate, ...convert].map((issue) => String(issue.message))).not.toContainEqual(expect.stringContaining('call_1'));
  });

  it('an id the row wrote is still reported, at the same path by both commands', async () => {
    const { validate, convert } = await bothReports([openaiRow('call_abc')], 'openai', 'kimi-k2');
    const rewrites = (issues: Array<Record<string, unknown>>) => issues.filter((issue) => issue.code === 'TEMPLATE_IDS_REWRITTEN').map(({ path, message }) => ({ path, message }));
    expect(rewrites(validate)).toEqual([{ path: 'messages[1].tool_calls[0].id', message: expect.stringContaining('"call_abc"') as unknown }]);
    expect(rewrites(convert)).toEqual(rewrites(validate));
  });
});
