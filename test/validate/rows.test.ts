import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

// Issue 10 item 5: a minified JSON array put every issue at "line 1" and counted one row with errors.
const row = (content: string, args?: string) => ({
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content, ...(args ? { tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: args } }] } : {}) },
  ],
  tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
});

describe('row indices', () => {
  it('a minified JSON array reports rows, not "line 1", and counts the rows with errors', async () => {
    const input = JSON.stringify([row('ok'), row(''), row('ok'), row('', '{bad'), row('ok')]);
    const { code, out } = await cli(['--format', 'json', '-'], input);
    expect(code).toBe(1);
    const summary = JSON.parse(out);
    expect(summary).toMatchObject({ rows: 5, rowsWithErrors: 2, errors: 2 });
    expect(summary.examples.map((issue: { row: number; line: number }) => [issue.row, issue.line])).toEqual([[2, 0], [4, 0]]);
    const human = await cli(['-'], input);
    expect(human.out).toContain('(row 2)');
    expect(human.out).toContain('(row 4)');
    expect(human.out).not.toContain('line 1');
  });

  it('JSONL keeps its line numbers', async () => {
    const input = [row('ok'), row('')].map((r) => JSON.stringify(r)).join('\n\n');
    const { out } = await cli(['-'], input);
    expect(out).toContain('(line 3)');
  });
});

// Issue 10 item 10: a wrong input shape gave a wall of errors (34 for one pretty-printed conversation).
describe('input shape hints', () => {
  it('a pretty-printed single conversation is one row', async () => {
    const { code, out } = await cli(['fixtures/conversations/weather.json']);
    expect(code).toBe(0);
    expect(out).toContain('1 row (openai)');
  });

  it('JSONL whose first line is broken is still read line by line', async () => {
    const { out } = await cli(['--format', 'json', '-'], '{"messages": [\n{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}\n');
    expect(JSON.parse(out)).toMatchObject({ rows: 2, errors: 1, byCode: { ROW_INVALID_JSON: { count: 1 } } });
  });

  it.each([
    [{ query: 'q', tools: '[]', answers: '[]' }, 'xLAM', '--from xlam'],
    [{ instruction: 'i', input: '', output: 'o' }, 'Alpaca', 'instruction'],
    [{ chosen: [], rejected: [] }, 'preference pair', 'chosen/rejected'],
  ])('one hint per row for %j', async (row, name, advice) => {
    const { code, out } = await cli(['--format', 'json', '-'], `${JSON.stringify(row)}\n${JSON.stringify(row)}\n`);
    expect(code).toBe(1);
    const summary = JSON.parse(out);
    expect(summary).toMatchObject({ rows: 2, errors: 2, byCode: { ROW_WRONG_SHAPE: { count: 2 } } });
    expect(Object.keys(summary.byCode)).toEqual(['ROW_WRONG_SHAPE']);
    expect(summary.examples[0].message).toContain(name);
    expect(summary.examples[0].message).toContain(advice);
  });
});
