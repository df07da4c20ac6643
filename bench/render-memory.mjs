// Render memory on JSONL: peak RSS of `chatfmt render` on a file and on one 4× its size, in child processes. Streaming
// keeps the peak flat: the ratio, not the megabytes, is the figure (issue 10 item 12: 180 MB in used to peak at 409 MB).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, root, table } from './lib.mjs';

const conversation = (i) => ({
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: `Question ${i}: ${'lorem ipsum dolor sit amet '.repeat(20)}` },
    { role: 'assistant', content: `Answer ${i}: ${'consectetur adipiscing elit '.repeat(20)}` },
  ],
});

const runner = `
const { run } = await import(${JSON.stringify(join(root, 'dist', 'cli', 'main.js'))});
const { processIO } = await import(${JSON.stringify(join(root, 'dist', 'cli', 'io.js'))});
const code = await run(process.argv.slice(1), processIO());
process.stderr.write(JSON.stringify({ code, maxRssKb: process.resourceUsage().maxRSS }) + '\\n');
`;

function peak(file) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', runner, 'render', '--family', 'qwen3', file, '-o', '/dev/null'], { encoding: 'utf8' });
  const line = result.stderr.trim().split('\n').pop();
  return JSON.parse(line).maxRssKb / 1024;
}

export function renderMemorySection({ quick = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'chatfmt-render-mem-'));
  try {
    const rows = quick ? 4_000 : 20_000;
    const rowsOf = (n) => Array.from({ length: n }, (_, i) => JSON.stringify(conversation(i))).join('\n') + '\n';
    const small = join(dir, 'small.jsonl');
    const large = join(dir, 'large.jsonl');
    writeFileSync(small, rowsOf(rows));
    writeFileSync(large, rowsOf(rows * 4));
    const a = peak(small);
    const b = peak(large);
    const mb = (file) => statSync(file).size / 2 ** 20;
    return [
      '## Render memory (JSONL streaming)',
      'Peak RSS of `chatfmt render --family qwen3 FILE -o /dev/null` in a child process; flat memory means a ratio near 1.',
      table(['input', 'size', 'peak RSS'], [
        ['1×', `${fmt(mb(small), 1)} MB`, `${fmt(a, 0)} MB`],
        ['4×', `${fmt(mb(large), 1)} MB`, `${fmt(b, 0)} MB`],
      ]),
      `Peak RSS 4× / 1×: ${fmt(b / a, 2)} (input grew 4×).`,
    ].join('\n\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
