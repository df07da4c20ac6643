import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliProcess } from '../helpers/cli-process.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 16 §4: error messages stay on one line, even when they quote a row. Rows here hold line breaks (\n, \r,
// U+2028) in every place a message quotes: roles, tool names, ids, pseudo-types, weights, a pretty-printed array that
// is not JSON (JSON.parse quotes the lines around the fault), and a template that raises with the row's text.
const chatfmt = cliProcess();
const lineBreak = /[\r\n\u2028\u2029]/;

const rows = [
  { messages: [{ role: 'user\nx', content: 'hi' }, { role: 'assistant', content: 'yo' }] },
  {
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', tool_calls: [{ id: 'a\rb', type: 'function', function: { name: 'get\nweather', arguments: '{"a":\n 1' } }] },
      { role: 'tool', tool_call_id: 'z\u2028y', content: 'x' },
    ],
    tools: [{ type: 'function', function: { name: 'f\ng', parameters: { type: 'dict\nx', properties: { 'q\nr': { type: 'str,\noptional' } } } } }],
  },
  { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo', weight: '2\n' }] },
  { messages: [{ role: 'user', content: 'raise\nthis' }, { role: 'assistant', content: 'yo' }] },
];

/** Every line of a human summary is one of its known kinds; a message broken over lines makes a line that is none. */
const summaryLine = /^(|\S.*: [\d,]+ rows? \(.*\)|chatfmt convert: .*|  [A-Z_]+ +[\d,]+ (errors?|warnings?)|    [✖⚠] .*|[✖✔] .*)$/;

describe('issue messages stay on one line', () => {
  const tmp = tempDir();
  const jsonl = tmp.write('rows.jsonl', rows.map((row) => JSON.stringify(row)).join('\n'));
  const array = tmp.write('array.json', '[\n {"messages": [\n  {"role": "user", "content": "hi"},\n  oops\n ]}\n]\n');
  const template = tmp.write('raise.jinja', "{% for m in messages %}{% if m.content.startswith('raise') %}{{ raise_exception(m.content) }}{% endif %}{{ m.content }}{% endfor %}");

  const reportLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { message: string; path: string });

  it.each([
    ['JSONL rows', jsonl, []],
    ['a pretty-printed array that is not JSON', array, []],
    ['JSONL rows and a template that raises', jsonl, ['--template', template]],
  ])('validate, %s: --report, JSON summary and human summary', async (_name, input, extra) => {
    const report = `${input}.${extra.length}.validate`;
    const human = await chatfmt(['validate', input, '--workers', '1', '--report', report, ...extra]);
    expect(human.code).toBe(1);
    const issues = reportLines(report);
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue.message + issue.path).not.toMatch(lineBreak);
    for (const line of human.out.split('\n')) expect(line).toMatch(summaryLine);
    const json = await chatfmt(['validate', input, '--workers', '1', '--json', ...extra]);
    for (const example of (JSON.parse(json.out) as { examples: Array<{ message: string }> }).examples) expect(example.message).not.toMatch(lineBreak);
  });

  it.each([
    ['JSONL rows', jsonl, ['--to', 'openai']],
    ['a pretty-printed array that is not JSON', array, ['--to', 'openai']],
    ['JSONL rows and a template that raises', jsonl, ['--template', template]],
  ])('convert, %s: --report and the stderr summary', async (_name, input, target) => {
    const report = `${input}.${target[0]}.convert`;
    const { code, err } = await chatfmt(['convert', input, '--from', 'openai', ...target, '--report', report]);
    expect(code).toBe(1);
    for (const issue of reportLines(report)) expect(issue.message + issue.path).not.toMatch(lineBreak);
    for (const line of err.replace(/\n$/, '').split('\n')) expect(line).toMatch(summaryLine);
  });

  it('render: a batch row\'s error and a single conversation\'s stderr line', async () => {
    const batch = await chatfmt(['render', '--template', template, jsonl]);
    expect(batch.code).toBe(1);
    for (const line of batch.out.split('\n').filter(Boolean)) expect((JSON.parse(line) as { error?: string }).error ?? '').not.toMatch(lineBreak);
    const single = await chatfmt(['render', '--template', template, '-'], { stdin: JSON.stringify(rows[3]) });
    expect(single.code).toBe(1);
    expect(single.err).toMatch(/^chatfmt: [^\n]*raise\\nthis[^\n]*\n$/);
  });
});
