// Where a `chatfmt render` of many rows spends its time, for bench/cli-render.mjs: how a row's cost falls as V8 warms
// to the template (this thread's CPU time over ranges of rows), and how much CPU the process's other threads take
// (V8's optimising compiler and the garbage collector's helpers). CPU time, not wall: the figures mean something on a
// busy machine too. This thread's time is read from /proc (Linux); elsewhere the process's time stands in for it.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, root } from './lib.mjs';

/**
 * Row ranges (1-based, inclusive) of the warm-up curve; multiples of the CLI's 64-row batches after the first row. The
 * first row's figure includes compiling the code it runs (no code cache here, unlike the CLI).
 */
export const WARM_UP_RANGES = [
  [1, 1],
  [2, 64],
  [65, 320],
  [321, 768],
  [769, 1536],
  [1537, 3008],
  [3009, 15000],
];

const THREAD_CPU = [
  "const threadCpu = () => { try { return Number(require('node:fs').readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6; }",
  '  catch { const c = process.cpuUsage(); return (c.user + c.system) / 1000; } };',
].join('\n');

/**
 * This thread's CPU µs per row over each of `ranges` (median of `runs` fresh processes), rendering the rows of `input`
 * as the CLI does on one thread: the template loaded once, then batches of 64 through the row renderer.
 */
export function warmUpCurve(template, input, ranges, runs) {
  const dist = (path) => JSON.stringify(pathToFileURL(join(root, 'dist', path)).href);
  const script = [
    "import { readFileSync } from 'node:fs';",
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    THREAD_CPU,
    `const { loadTemplate } = await import(${dist('node/load.js')});`,
    `const { createRowRenderer } = await import(${dist('validate/render-rows.js')});`,
    'const [template, input, ranges] = [process.argv[1], process.argv[2], JSON.parse(process.argv[3])];',
    'const loaded = loadTemplate({ template });',
    "const run = await createRowRenderer({ args: 'keep', now: new Date('2025-01-15T12:00:00'), offsets: 'utf16' }, loaded);",
    "const records = readFileSync(input, 'utf8').split('\\n').filter(Boolean).map((text, i) => ({ text, line: i + 1, row: i + 1 }));",
    'const perRow = [];',
    'for (const [first, last] of ranges) {',
    '  const end = Math.min(last, records.length);',
    '  const start = threadCpu();',
    '  for (let i = first - 1; i < end; i += 64) if (run(records.slice(i, Math.min(i + 64, end))).failed > 0) throw new Error("a row failed");',
    '  perRow.push(((threadCpu() - start) * 1000) / (end - first + 1));',
    '}',
    'console.log(JSON.stringify(perRow));',
  ].join('\n');
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, template, input, JSON.stringify(ranges)], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`the warm-up timing failed: ${result.stderr.trim().split('\n').pop()}`);
    samples.push(JSON.parse(result.stdout));
  }
  return ranges.map((_, k) => median(samples.map((sample) => sample[k])));
}

/**
 * CPU ms of one CLI run (`render`: { command, args }), this thread and the whole process (median of `runs`): the
 * difference is the other threads', V8's background compiler and the garbage collector's helpers.
 */
export function threadSplit(render, work, runs) {
  const preload = join(work, 'thread-cpu.cjs');
  writeFileSync(preload, [
    THREAD_CPU,
    "process.on('exit', () => { const c = process.cpuUsage(); require('node:fs').writeSync(2, `\\nCHATFMT-THREAD-CPU ${threadCpu()} ${(c.user + c.system) / 1000}\\n`); });",
  ].join('\n'));
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const result = spawnSync(render.command, ['-r', preload, ...render.args], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const line = /CHATFMT-THREAD-CPU (\S+) (\S+)/.exec(result.stderr);
    if (result.status !== 0 || !line) throw new Error(`the thread CPU run failed: ${result.stderr.trim().split('\n').pop()}`);
    samples.push({ main: Number(line[1]), total: Number(line[2]) });
  }
  return { main: median(samples.map((s) => s.main)), others: median(samples.map((s) => s.total - s.main)) };
}
