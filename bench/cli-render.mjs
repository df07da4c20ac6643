// CLI render end to end: a JSONL file of agent conversations in, a JSONL file of prompts out, `chatfmt render FILE -o
// OUT` against bench/jinja2-render-file.py doing the same work with jinja2 set up as transformers sets it up (template
// compiled once, each row json.loads'ed, rendered, json.dumps'ed, written). Both outputs must be byte-identical.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, hasShared, median, root, shared, table } from './lib.mjs';
import { loadAverage, timeInterleaved } from './processes.mjs';
import { WARM_UP_RANGES, threadSplit, warmUpCurve } from './cli-render-costs.mjs';

const NOW = '2025-01-15T12:00:00';
const cases = [
  { name: 'Qwen3', dir: 'qwen3', file: 'Qwen-Qwen3-0.6B.jinja' },
  { name: 'gpt-oss', dir: 'gpt-oss', file: 'openai-gpt-oss-20b.jinja' },
  { name: 'GLM-4.6', dir: 'glm', file: 'zai-org-GLM-4.6.jinja' },
];

// What each change bought, measured by hand on 2026-11-26 (issue 18): the build before the change and after it, run
// interleaved on the same files (bench/data/medium.json rows as below), best of 3-4 runs, process CPU time (user +
// system, every thread) and wall. Other jobs kept the load average at 11-17 on the 2 cores, so wall times are several
// times an idle machine's and single figures move by 20-30% between runs: ranges are over three such comparisons.
const CHANGES_HEADER = ['build', '1,500 rows CPU s (Qwen3; gpt-oss; GLM)', 'Qwen3 15,000 rows CPU s', 'Qwen3 15,000 rows wall s'];
const CHANGES = [
  ['before: a row at a time through four async generators', '0.71; 0.87; 0.79', '2.44–3.06', '7.2–11.3'],
  ['rows read a chunk at a time, rendered 64 to a batch (`--workers 1`)', '0.59; 0.72; 0.64', '2.49–2.81', '7.4–9.3'],
  ['+ this thread and a worker share the batches (the default from 8 MB of input on 2 cores)', '(one thread below 8 MB)', '2.66–3.55', '4.9–7.7'],
  ['+ the exact-number check clears plain rows with one regular-expression pass (`needsPythonReader`)', 'within the noise (load 6–15)', 'within the noise', 'within the noise'],
  ['+ the template variables copy the row in one `Object.assign` (src/render/render.ts)', 'within the noise (load 6–15)', 'within the noise', 'within the noise'],
  ['+ rows handed on ~64 K characters at a time, not a 1 MB chunk\'s worth (src/readers/jsonl.ts)', '0.70 → 0.64 GLM, others within the noise (medians of 9, load 9–11)', 'not measured', 'not measured'],
  ['+ block reuse: the tools\' macro or loop runs once per distinct tools (src/jinja/reuse.ts; 2026-11-27, load 0–1, medians of 7; bench/README.md "Block reuse")', '0.33 → 0.33; 0.49 → 0.44; 0.39 → 0.41 (Qwen3-Coder-30B 0.42 → 0.37)', 'not measured (gpt-oss 2.2 → 2.1, Qwen3-Coder 1.9 → 1.8)', 'not measured (gpt-oss 1.33 → 1.25, Qwen3-Coder 1.20 → 1.10)'],
  ['+ rows that repeat a tools text get one parsed, frozen value, keyed by identity (src/validate/repeated-tools.ts, shareJson; 2026-11-27, load ~1, medians of 9–11; this thread\'s CPU, from /proc schedstat; bench/README.md "Rows that repeat their tools")', 'this thread 0.268 → 0.264; 0.291 → 0.272; 0.265 → 0.231 (Qwen3-Coder-30B 0.258 → 0.225; GLM-4.6 rows whose tools all differ 0.240 → 0.240)', 'not measured (GLM-4.6 this thread 0.83 → 0.78, two threads)', 'not measured (GLM-4.6 1.14 → 1.08)'],
];
const CHANGES_NOTES = [
  'What each change bought, measured by hand on 2026-11-26 at a load average of 11–17 (the build before and after',
  'interleaved, best of 3–4 runs; CPU time counts every thread; ranges over three comparisons). Batching took a sixth',
  'of the CPU time off 1,500 rows; at 15,000 the one-thread difference is within the noise. Two threads at 1,500 rows',
  'cost 0.2–0.3 s more CPU (a worker loads the modules and the template and warms its own JIT) and, on that busy',
  'machine, wall time too, hence the 8 MB default. Where a row\'s time goes on one thread (CPU profile, Qwen3, 15,000',
  'rows): the template ~40%, JSON.parse of the row plus the exact-number check (`parsePythonJson`) ~18%, garbage',
  'collection ~8–10%, `JSON.stringify` of the prompt ~9% (half of it flattening the string the template built),',
  'reading and writing ~6%.',
  '',
  'The exact-number check (does a row hold `1.0`, an integer past 2^53, a key like "10", NaN, deep nesting?) ran a',
  'JavaScript loop over every token; most rows are strings, short integers and punctuation, which one sticky regular',
  'expression (native code, linear on any input) now clears, an indexOf count bounding the depth; the loop runs only',
  'for the rest. The check alone, CPU ms over the rows in a fresh process (as the CLI sees them, mostly unoptimised),',
  'median of 5–7, before and after, at a load average of 6–15: 1,500 Qwen3 rows 17 → 7.5, 15,000 rows 90 → 56. That is',
  '1–2% of a run\'s CPU time, below what whole-process timing on that machine could tell apart (the rows above); this',
  'run\'s figure is under the table below. The template variables added each key of the row other than the four',
  'transformers names (here the special tokens the row carries) one at a time, every one a new property through a',
  'cold keyed store: 16–20 ms CPU over the 1,500 rows in a fresh process; one `Object.assign` of the row, the four',
  'set over it, makes the same values in ~1 ms. Together ~25 ms of the ~450 ms a 1,500-row run spends.',
  '',
  'The reader decoded a whole 1 MB chunk of input into row strings before the first of its ~500 agent rows rendered;',
  'held that long, they outlived young-generation collections, were copied, then moved to the old generation, which',
  'then needed a full collection. Handed on ~64 K characters at a time (32 of these rows), a 1,500-row run promotes',
  'a third of the bytes (`--trace-gc-nvp`, summed `promoted`: GLM-4.6 5.1 → 1.6 MB, gpt-oss 7.3 → 2.1–2.8 MB, Qwen3',
  'alike) and runs no full collection (1 → 0). Promoted bytes and collection counts do not depend on the machine\'s',
  'load as times do; this run\'s are under the table below. Where the rest of a 1,500-row run goes, from CPU profiles',
  '(gpt-oss and GLM-4.6, one thread): the template itself 60–70% of the row work; `JSON.parse` of the rows ~10% and',
  'the exact-number check 2–4%; the prompt\'s `JSON.stringify` 3–8% (for gpt-oss the flattening of the template\'s',
  'string happens inside the render already: its `strftime_now` check calls `includes` on the output); garbage',
  'collection 5–7%.',
];

// Round 7 (issue 18): where the rows' time goes, measured by hand on 2026-11-26 at a load average of 2–12 (CPU time of
// the main thread from /proc, A/B runs interleaved); nothing below beat the noise, so no change was kept this round.
const WARM_UP_NOTES = [
  'Where the rows\' time goes (round 7). A row costs this thread several times what a warm render does until V8 has',
  'optimised the template\'s code, which takes thousands of rows (table below: this thread\'s CPU µs per row over ranges',
  'of the rows, rendered as the CLI renders them on one thread, in a fresh process; median of the runs). A 1,500-row run',
  'ends before that. Meanwhile the optimising compiler works on its own thread: `--trace-opt` counted 69–100 functions',
  'optimised over 1,500 rows, their compile jobs 0.27 s (Qwen3), 0.78 s (gpt-oss) and 0.63 s (GLM-4.6) in all (one run',
  'each, at a load of 3–6), more than this thread\'s own work; in a GLM-4.6 run the longest were functions run once or a',
  'few times a row that pull much in (`tojson` 76 ms, the template\'s `render` 64 ms, `renderConversation` 22 ms,',
  '`needsPythonReader` 13 ms), while the small closures run thousands of times a row took 1–3 ms each and waited behind',
  'them (V8 queues 8 jobs). No deoptimisation loop: 0 (Qwen3),',
  '4–5 (gpt-oss) and 3 (GLM-4.6) deoptimisations over the 1,500 rows; few megamorphic sites (attribute reads on the',
  'rows\' dicts, whose shapes differ by nature). The tools, the same in every row, are a large share: with them taken out',
  'of the rows (another output, a measure only) this thread\'s CPU over 1,500 rows falls by 65–95 ms (Qwen3), 100–190 ms',
  '(gpt-oss: its TypeScript-like namespace is built by macros) and 10–75 ms (GLM-4.6). Of that, `tojson` of the three',
  'tools is 11–14 ms (with `ensure_ascii=False`, as GLM-4.6 calls it, 23–28 ms); a cache of it keyed by the row\'s raw',
  'tools text would first have to find that text without parsing the row (a JavaScript scan costs about what',
  '`JSON.parse` of the row does), so it was not built. The rest of a row: `JSON.parse` 25–35 ms over the 1,500 rows,',
  '`JSON.stringify` of the prompts 15–25 ms (10–17 µs a row, flattening included; mostly escapes), decoding 5–7 ms.',
  '',
  'Tried and not kept: V8 flags (`--interrupt-budget` at 16 K and 132 K, `--always-sparkplug`, `--maglev`,',
  '`--max-inlined-bytecode-size-cumulative` 200 and 460, `--no-turbo-inlining`, `--min-semi-space-size` 8 and 16 MB):',
  'this thread\'s CPU within the noise or worse, 5–11 interleaved runs each. `--workers 2` at 1,500 rows: +45% CPU and',
  'slower (load 9). A code cache that learns each template: a gpt-oss or GLM-4.6 batch run after the cache was written',
  'by a one-conversation Qwen3 render compiles ~56 functions lazily; letting the cache record them took 7–11 ms off a',
  '2-row run (best of 15) but made the cache 80 KB larger, which cost a one-conversation render ~6 ms (best of 21),',
  'against the start-up goal. `TextDecoder` for the rows instead of `isUtf8` and `toString`: the same time.',
  '`--no-turbo-inlining` again in round 10, by wall time as well (interleaved, 15–21 runs, each flag set with its own',
  'code cache): this thread\'s CPU the same, the other threads\' 0.13 s less (the optimising compiler\'s jobs), and',
  'with fewer of them crowding this thread on 2 cores, 1,500 rows GLM-4.6 0.385 → 0.336 s, Qwen3 0.352 → 0.332,',
  'gpt-oss 0.339 → 0.330; but 15,000 GLM-4.6 rows on one thread 1.08 → 1.14 s (optimised code without inlining is',
  'slower), on two 1.35 → 1.35. Not kept: a dataset\'s long runs would pay for the short ones. Before the rows reach',
  'chatfmt\'s code, Node itself takes 73–112 ms of a run on this machine today (`node -e 0` 75–89 ms to its first line).',
];

/** CPU ms (median over fresh processes) of the exact-number check and of JSON.parse over the rows of `file`. */
function rowCheckCost(file, runs) {
  const script = [
    "import { readFileSync } from 'node:fs';",
    `const { needsPythonReader } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'jinja', 'json.js')).href)});`,
    'const lines = readFileSync(process.argv[1], "utf8").split("\\n").filter(Boolean);',
    'const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };',
    'let start = cpu(); let hits = 0;',
    'for (const line of lines) if (needsPythonReader(line)) hits++;',
    'const check = cpu() - start; start = cpu();',
    'for (const line of lines) if (JSON.parse(line) === null) hits++;',
    'console.log(JSON.stringify({ check, parse: cpu() - start, hits }));',
  ].join('\n');
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, file], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`the row check timing failed: ${result.stderr.trim().split('\n').pop()}`);
    samples.push(JSON.parse(result.stdout));
  }
  return { check: median(samples.map((s) => s.check)), parse: median(samples.map((s) => s.parse)), hits: samples[0].hits };
}

export function cliRenderSection({ quick = false } = {}) {
  if (!hasShared) return '## CLI render end to end\n\nskipped: ../shared (the official templates) not found';
  const work = mkdtempSync(join(tmpdir(), 'chatfmt-bench-cli-'));
  try {
    return measure(work, quick);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Bytes promoted to the old generation and collections run by one `chatfmt render` of `input` (`--trace-gc-nvp`):
 * what the garbage collector had to keep, which unlike time does not move with the machine's load.
 */
function gcWork(render) {
  const { command, args } = render;
  const result = spawnSync(command, ['--trace-gc-nvp', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0) throw new Error(`the GC count run failed: ${result.stderr.trim().split('\n').pop()}`);
  let promoted = 0;
  let collections = 0;
  let full = 0;
  for (const line of result.stdout.split('\n')) {
    const kind = /\bgc=(\w+)/.exec(line)?.[1];
    if (kind === undefined) continue;
    collections++;
    if (kind === 'mc' || kind === 'ms') full++;
    promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { promoted, collections, full };
}

/** `count` rows of the medium agent conversation, each a little different (the user's request is numbered). */
function writeRows(file, count, tokens) {
  const conversation = JSON.parse(readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8'));
  const user = conversation.messages.findIndex((message) => message.role === 'user');
  const lines = [];
  for (let i = 0; i < count; i++) {
    const messages = conversation.messages.slice();
    messages[user] = { ...messages[user], content: `${messages[user].content} (request ${i + 1})` };
    lines.push(JSON.stringify({ ...conversation, messages, ...tokens }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function measure(work, quick) {
  const tokens = JSON.parse(readFileSync(join(shared, 'templates', 'special_tokens.json'), 'utf8'));
  const sizes = quick ? [{ rows: 300, runs: 2 }, { rows: 3000, runs: 1 }] : [{ rows: 1500, runs: 9 }, { rows: 15000, runs: 3 }];
  const rows = [];
  const ratios = new Map();
  let checkCost;
  const gc = [];
  const threads = [];
  const warmUp = [];
  const warmUpRanges = WARM_UP_RANGES.filter(([first]) => first <= sizes[1].rows).map(([first, last]) => [first, Math.min(last, sizes[1].rows)]);
  for (const { rows: count, runs } of sizes) {
    for (const c of cases) {
      const template = join(shared, 'templates', 'official', c.dir, c.file);
      const input = join(work, `${c.dir}-${count}.jsonl`);
      writeRows(input, count, tokens[c.dir] ?? {});
      if (count === sizes[0].rows && c.dir === 'qwen3') checkCost = rowCheckCost(input, quick ? 3 : 7);
      const ours = join(work, 'chatfmt.jsonl');
      const oneThread = join(work, 'chatfmt-1.jsonl');
      const theirs = join(work, 'jinja2.jsonl');
      const render = (out, extra) => ({ command: process.execPath, args: [join(root, 'bin', 'chatfmt.js'), 'render', '--template', template, '--args', 'keep', '--now', NOW, input, '-o', out, ...extra] });
      const [chatfmt, single, jinja2] = timeInterleaved(
        [render(ours, []), render(oneThread, ['--workers', '1']), { command: 'python3', args: [join(root, 'bench', 'jinja2-render-file.py'), template, input, theirs, '--now', NOW] }],
        runs,
      );
      if (count === sizes[0].rows) {
        gc.push([c.name, gcWork(render(oneThread, ['--workers', '1']))]);
        threads.push([c.name, threadSplit(render(oneThread, ['--workers', '1']), work, quick ? 1 : 3)]);
      }
      if (count === sizes[1].rows) warmUp.push([c.name, ...warmUpCurve(template, input, warmUpRanges, quick ? 1 : 3).map((us) => fmt(us))]);
      for (const file of [ours, oneThread]) if (!readFileSync(file).equals(readFileSync(theirs))) throw new Error(`${c.name}, ${count} rows: chatfmt's output differs from jinja2's`);
      const ratio = jinja2.wall / chatfmt.wall;
      ratios.set(count, [...(ratios.get(count) ?? []), ratio]);
      const seconds = (timing) => `${fmt(timing.wall / 1000, 2)} (${fmt(timing.min / 1000, 2)})`;
      const cpuRatio = (timing) => (timing.cpu ? `${fmt(jinja2.cpu / timing.cpu, 2)}×` : 'n/a');
      rows.push([c.name, fmt(count), seconds(chatfmt), seconds(jinja2), `**${fmt(ratio, 2)}×**`, cpuRatio(chatfmt), seconds(single), `${fmt(jinja2.wall / single.wall, 2)}×`, cpuRatio(single)]);
    }
  }
  const [small, large] = sizes.map(({ rows: count }) => Math.min(...ratios.get(count)));
  return [
    '## CLI render end to end',
    '',
    '`chatfmt render --template T --args keep FILE -o OUT` against `bench/jinja2-render-file.py T FILE OUT` (jinja2 as',
    'transformers sets it up; the template compiled once; each row parsed, rendered, serialised and written: the same',
    'work). Rows: the medium agent conversation (12 messages, 3 tools, 3 tool calls), numbered so no two are alike, with',
    'the family\'s special tokens. Both outputs are checked byte for byte. Seconds, process start included: median (best)',
    `of the runs, interleaved. Load average while measuring: ${loadAverage()}.`,
    '',
    '`chatfmt` is the default: from 8 MB of input it renders on up to 4 threads (this one and workers it does not wait',
    'for, see `render --help`); `--workers 1` renders on this thread alone. CPU time counts every thread: the speed-up in',
    'CPU time is jinja2\'s CPU time over chatfmt\'s.',
    '',
    table(['template', 'rows', 'chatfmt s', 'jinja2 s', 'speed-up (wall)', 'speed-up (CPU time)', '`--workers 1` s', 'speed-up (wall)', 'speed-up (CPU time)'], rows),
    '',
    `Goals: ≥ 3× jinja2 at ${fmt(sizes[0].rows)} rows (this run: ${fmt(small, 2)}× at worst), ≥ 5× at ${fmt(sizes[1].rows)} (this run: ${fmt(large, 2)}× at worst).`,
    '',
    ...CHANGES_NOTES,
    '',
    table(CHANGES_HEADER, CHANGES),
    '',
    `This run, the ${fmt(sizes[0].rows)} Qwen3 rows in a fresh process (CPU ms, median of ${quick ? 3 : 7}): the exact-number check ${fmt(checkCost.check, 1)},`,
    `\`JSON.parse\` ${fmt(checkCost.parse, 1)}; ${fmt(checkCost.hits)} row(s) needed the Python-faithful reader.`,
    `This run, garbage collection over the ${fmt(sizes[0].rows)} rows (\`--workers 1\`): ${gc.map(([name, g]) => `${name} ${fmt(g.promoted / 1e6, 2)} MB promoted, ${g.collections} collections (${g.full} full)`).join('; ')}.`,
    '',
    ...WARM_UP_NOTES,
    '',
    table(['template', ...warmUpRanges.map(([first, last]) => (first === last ? `row ${fmt(first)}` : `rows ${fmt(first)}–${fmt(last)}`))], warmUp),
    '',
    `This run, CPU ms of the ${fmt(sizes[0].rows)}-row \`--workers 1\` run (median of ${quick ? 1 : 3}), this thread / the process's other threads: ${threads.map(([name, t]) => `${name} ${fmt(t.main, 0)} / ${fmt(t.others, 0)}`).join('; ')}.`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(`${cliRenderSection({ quick: process.argv.includes('--quick') })}\n`);
