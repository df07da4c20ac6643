import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// render --workers renders rows on worker threads (the compiled dist/validate/worker.js, as convert and validate use):
// whatever the thread count, the output file, the exit code and stderr are the same bytes. Skipped on a dist/ built
// before render rows could run on workers.
const built = existsSync(join(repoRoot, 'dist', 'validate', 'render-rows.js'));
const tmp = tempDir();

const row = (content: string) => JSON.stringify({ messages: [{ role: 'user', content }, { role: 'assistant', content: `re: ${content}` }] });

/**
 * 640 rows (ten batches of 64) with bad ones among them, early and late: not JSON, not a conversation, a template
 * error. The worker always has the first two batches; this thread renders on while it starts.
 */
function mixedRows(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 640; i++) {
    if (i === 7) lines.push('not json');
    else if (i === 100) lines.push('{"rows": []}');
    else if (i === 501) lines.push(row('fail here'));
    else if (i === 550) lines.push('');
    else if (i === 630) lines.push('[1, 2]');
    else lines.push(row(`question ${i}`));
  }
  return `${lines.join('\n')}\r\n`;
}

async function render(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const output = join(tmp.path, `${Math.random().toString(36).slice(2)}.out.jsonl`);
  const io = memoryIO('', repoRoot);
  const code = await run(['render', '-o', output, ...args], io);
  return { code, out: existsSync(output) ? readFileSync(output, 'utf8') : '', err: io.err() };
}

describe.skipIf(!built)('render --workers', () => {
  it('writes the same bytes in the same order as one thread; a bad row is its one error line and the run goes on', async () => {
    // 1.0 stays a float and {"2": …} keeps its key order only if --var values reach the workers exactly.
    const template = tmp.write(
      'rows.jinja',
      "{% if messages[0].content == 'fail here' %}{{ raise_exception('no: ' ~ messages[0].content) }}{% endif %}" +
        '{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}|{{ x }}|{{ y | tojson }}',
    );
    const input = tmp.write('mixed.jsonl', mixedRows());
    const args = ['--template', template, '--var', 'x=1.0', '--var', 'y={"2": 1.5, "1": [1e400, 10000000000000000001]}', input];
    const one = await render([...args, '--workers', '1']);
    const two = await render([...args, '--workers', '2']);
    expect(two).toEqual(one);
    expect(one.code).toBe(1);
    const lines = one.out.trimEnd().split('\n').map((line) => JSON.parse(line) as { text?: string; error?: string });
    expect(lines).toHaveLength(639);
    expect(lines[5]!.text).toBe('<user>question 6<assistant>re: question 6|1.0|{"2": 1.5, "1": [Infinity, 10000000000000000001]}');
    expect(lines.flatMap((line, i) => (line.error === undefined ? [] : [[i, line.error.slice(0, line.error.indexOf(':'))]]))).toEqual([
      [6, 'line 7'],
      [99, 'line 100'],
      [500, 'line 501'],
      [628, 'line 630'],
    ]);
    expect(lines[500]!.error).toContain('no: fail here');
    expect(lines.at(-1)!.text).toContain('question 640');
  });

  it('counts call ids rewritten on every worker in its one warning line', async () => {
    const call = (i: number) =>
      JSON.stringify({
        messages: [
          { role: 'user', content: `Weather ${i}?` },
          { role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
          { role: 'tool', tool_call_id: `call_${i}`, content: 'sunny' },
        ],
      });
    const input = tmp.write('kimi.jsonl', `${Array.from({ length: 200 }, (_, i) => call(i + 1)).join('\n')}\n`);
    const one = await render(['--family', 'kimi-k2', input, '--workers', '1']);
    const two = await render(['--family', 'kimi-k2', input, '--workers', '2']);
    expect(two).toEqual(one);
    expect(one.code).toBe(0);
    expect(one.err).toMatch(/^chatfmt: warning: CALL_IDS_REWRITTEN: 200 call id\(s\) in 200 conversation\(s\) rewritten \(first: line 1, messages\[1\]\.tool_calls\[0\]\.id: [^\n]+\n$/);
  });

  it('a template that does not compile is one error line, on workers as on one thread', async () => {
    const template = tmp.write('broken.jinja', '{% for m in messages %}');
    const input = tmp.write('plain.jsonl', `${Array.from({ length: 200 }, (_, i) => row(`q${i}`)).join('\n')}\n`);
    const one = await render(['--template', template, input, '--workers', '1']);
    const two = await render(['--template', template, input, '--workers', '2']);
    expect(two.code).toBe(2);
    expect(two.err).toMatch(/^chatfmt: [^\n]+\n$/);
    expect(two).toEqual(one);
  });

  it('--workers takes a positive whole number', async () => {
    const result = await render(['--family', 'qwen3', '--workers', '0', tmp.write('one.jsonl', `${row('hi')}\n`)]);
    expect(result.code).toBe(2);
    expect(result.err).toBe('chatfmt: --workers must be a positive integer, got "0"\n');
  });
});
