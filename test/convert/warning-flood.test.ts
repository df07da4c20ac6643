import { describe, expect, it } from 'vitest';
import { cliProcess } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 16 §4: a flood of warnings is summarised (a count per code and a few examples) and never hides the errors,
// which come first; --report keeps every issue.
const chatfmt = cliProcess();

const warned = (k: number) => ({
  messages: [
    { role: 'user', content: `q${k}` },
    { role: 'assistant', tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: `c${k}`, content: 'ok' },
    { role: 'assistant', content: 'done' },
  ],
});
const broken = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 42 }] };

describe('convert: warning floods', () => {
  const tmp = tempDir();

  it('500 warnings and one error: a count per code, three examples each, the error block first', async () => {
    const rows = [...Array.from({ length: 500 }, (_, k) => warned(k)), broken];
    const file = tmp.write('flood.jsonl', rows.map((row) => JSON.stringify(row)).join('\n'));
    const report = `${file}.report`;
    const { code, err } = await chatfmt(['convert', file, '--from', 'openai', '--to', 'openai', '--report', report]);
    expect(code).toBe(1);
    const lines = err.trimEnd().split('\n');
    expect(lines[0]).toBe('chatfmt convert: 501 row(s), 500 converted, 1 not converted, 500 warning(s)');
    expect(lines[1]).toMatch(/^  MSG_WRONG_TYPE +1 error$/);
    expect(lines[2]).toMatch(/^    ✖ .*line 501\)$/);
    expect(lines[3]).toMatch(/^  TOOLS_NOT_DECLARED +500 warnings$/);
    expect(lines.slice(4)).toHaveLength(3);
    for (const line of lines.slice(4)) expect(line).toMatch(/^    ⚠ /);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(report, 'utf8').split('\n').filter(Boolean)).toHaveLength(501);
  });
});
