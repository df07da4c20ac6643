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
