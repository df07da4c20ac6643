// Response-template benchmark: a family's exported response template run by chatfmt's executor (transformers'
// algorithm on chatfmt's own Python-regex matcher) against transformers' own Python ResponseParser on the same
// completion (bench/transformers_anchor.py, when transformers is installed), plus the 66 shared transformers vectors in
// one pass. chatfmt's own parser of the family is shown too, as a second reference that needs no Python.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createResponseParser, exportResponseTemplate, parse, parseResponse } from '../dist/index.js';
import { bigCompletion } from './parse.mjs';
import { fmt, rate, root, shared, table } from './lib.mjs';

function feedInChunks(text, template, prefix, chunkSize) {
  const parser = createResponseParser(template, { prefix });
  for (let i = 0; i < text.length; i += chunkSize) parser.feed(text.slice(i, i + chunkSize));
  const message = parser.finalize().message;
  return { message, stats: parser.stats };
}

/**
 * CPU milliseconds per call: the best of `passes` passes of about `seconds` each, in this process's CPU time (what
 * transformers_anchor.py reports as "cpu"); on a machine shared with other jobs wall time mostly measures the wait.
 */
function cpuBest(fn, { seconds, passes = 3 }) {
  fn();
  let best = Infinity;
  for (let p = 0; p < passes; p++) {
    const start = performance.now(), cpu = process.cpuUsage();
    let calls = 0;
    do { fn(); calls++; } while (performance.now() - start < seconds * 1000);
    const used = process.cpuUsage(cpu);
    best = Math.min(best, (used.user + used.system) / 1000 / calls);
  }
  return best;
}

/** The shared vectors with their templates, or null without ../shared. */
function loadVectors() {
  const dir = join(shared, 'response-templates');
  if (!existsSync(join(dir, 'vectors.jsonl'))) return null;
  const vectors = readFileSync(join(dir, 'vectors.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  const templates = new Map(vectors.map((v) => [v.template, JSON.parse(readFileSync(join(dir, 'templates', `${v.template}.json`), 'utf8'))]));
  return { vectors, templates };
}

/** Every vector once, as transformers' `parse_response` would run it (errors are expected outcomes for some). */
function runVectors({ vectors, templates }) {
  for (const v of vectors) {
    try {
      parseResponse(v.input, templates.get(v.template), { prefix: v.prefix, tools: v.tools ?? null });
    } catch (error) {
      if (!v.expected_error) throw error;
    }
  }
}

// Measured once by hand on 2026-11-25 (not part of `npm run bench`): median ms per batch parse, the six builds interleaved
// in one process on the shared 2-core machine under load from other jobs, so read them to about ±30%; the vector column is
// a separate warm run (ms per pass of all 66, each template compiled per vector).
const CHANGES = [
  ['before (one memo table per search, sized to the rest of the buffer; no prefilter)', '241', '593', '593', '289', '6.69'],
  ['+ paged memo reused across searches, literal prefilter kept across searches, lazy `.*?` skip', '50', '115', '164', '49', '4.21'],
  ['+ JSON strings decoded natively when well formed', '32', '121', '121', '35', '4.41'],
  ['+ per-search working memory reused by the pattern', '30', '113', '121', '19', '4.11'],
  ['+ executor watch lists built once, next delimiter picked in one pass', '23', '104', '131', '23', '3.69'],
  ['+ lazy-loop landing by indexOf, memo marked a page at a time', '28', '54', '68', '18', '3.73'],
];

/**
 * transformers' ResponseParser on the same inputs, in a Python child process (bench/transformers_anchor.py): ms per
 * vector pass and per case, or { error } when python3 or transformers is missing.
 */
function transformersAnchor(loaded, cases, seconds) {
  const job = {
    seconds,
    vectors: loaded ? loaded.vectors.map((v) => ({ input: v.input, template: loaded.templates.get(v.template), prefix: v.prefix, tools: v.tools ?? null, expected_error: Boolean(v.expected_error) })) : null,
    cases: cases.map(({ name, text, prefix, template }) => ({ name, text, prefix, template })),
  };
  const result = spawnSync('python3', [join(root, 'bench', 'transformers_anchor.py')], { input: JSON.stringify(job), encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.error || result.status !== 0) return { error: result.error?.message ?? result.stderr.trim().split('\n').pop() ?? 'python3 failed' };
  return JSON.parse(result.stdout);
}

/** The message as JSON carries it (Python's output went through json.dumps). */
const asJson = (value) => JSON.parse(JSON.stringify(value));

// Measured by hand on 2026-11-26 (CPU ms per parse, the base build and this one interleaved in one process, best of 3).
const CHANGES_NOTES = [
  'Then (CPU ms, the base build and the new one interleaved, best of 3): JSON strings ended by indexOf on the closing quote and',
  'decoded by JSON.parse (the per-character scan was 43% of the qwen3 parse), captures reset once per search: qwen3 16.7 → 12.4,',
  'qwen3-coder 47.9 → 43.0, gemma-4 45.0 → 43.3, gpt-oss 15.8 → 11.1; the 66 vectors unchanged (5.1 → 5.5, noise).',
];

// Issue 18 (executor), measured by hand on 2026-11-26 at load average 12–14 on the 2 cores: CPU ms per parse (the 66
// vectors: per pass), each build's best of 9 passes of 80 ms, the five builds interleaved in one process
// (each build cumulative; read them to about ±10%).
const CHANGES_EXECUTOR = [
  ['base (this round\'s start)', '8.53', '29.3', '32.1', '9.86', '8.57'],
  ['+ JSON documents read by JSON.parse when json.loads would agree (no -0, ±inf, deep nesting), else the exact decoder', '7.06', '30.5', '34.0', '8.29', '10.2'],
  ["+ literal prefilter state kept per literal and shared by the delimiters (Qwen3's im_end token was scanned once per delimiter)", '6.95', '27.5', '31.2', '8.45', '10.7'],
  ['+ compiled templates cached by exact JSON (64 entries; compiled from the re-read JSON)', '5.76', '32.2', '29.1', '6.75', '5.54'],
  ['+ literal-only patterns searched without the VM; template cache looked up by object first', '6.24', '34.4', '32.1', '6.97', '5.89'],
];

const CHANGES_EXECUTOR_NOTES = [
  "Profiled first (node --cpu-prof, self time). The 66 vectors: 20% of a pass was validating and compiling the template again",
  "(parse_response's contract), 12% the start anchor's finditer, 33% regex searches; the cache takes the first away for any caller",
  "that passes an equal template, and is exact: only JSON-exact templates are cached (undefined, -0, NaN, holes, class instances",
  "are compiled per call), an entry is compiled from its key's JSON so no caller's later mutation reaches it, and a lookup by the",
  "same object is confirmed against that JSON copy. qwen3 at 1 MB: 43% of the time was JSON (string by string) and 38% indexOf,",
  "6 MB of it for 1 MB of text; JSON.parse now reads the whole document (3.0 → 1.2 ms a MB) and each literal is scanned once.",
  "The last row against the one before it again, 13 passes: qwen3 6.52 → 5.93, qwen3-coder 36.7 → 31.2, vectors 6.56 → 5.25.",
  "A joint scan of all still-unseen literals in one pass (a JS RegExp alternation) was tried and measured slower; not kept.",
];

export async function responseTemplateSection({ quick = false } = {}) {
  const seconds = quick ? 0.1 : 0.3;
  const size = quick ? 100_000 : 1_000_000;
  const cases = [];
  for (const family of ['qwen3', 'qwen3-coder', 'gemma-4', 'gpt-oss']) {
    const { text, prefix } = bigCompletion(family, size);
    const { template } = exportResponseTemplate(family);
    const own = parse(text, { family, prefix });
    const { message, stats } = feedInChunks(text, template, prefix, text.length);
    // The template and the family parser must read the same calls, or the comparison means nothing.
    if ((message.tool_calls ?? []).length !== own.tool_calls.length) throw new Error(`${family}: the exported template read ${(message.tool_calls ?? []).length} calls, chatfmt ${own.tool_calls.length}`);
    const mb = Buffer.byteLength(text) / 2 ** 20;
    const batch = rate(() => feedInChunks(text, template, prefix, text.length), { seconds, passes: 3 });
    const streamed = rate(() => feedInChunks(text, template, prefix, 16), { seconds, passes: 3 });
    const familyParse = rate(() => parse(text, { family, prefix }), { seconds, passes: 3 });
    const batchCpu = cpuBest(() => feedInChunks(text, template, prefix, text.length), { seconds, passes: 3 });
    cases.push({ name: family, text, prefix, template, message, stats, mb, calls: own.tool_calls.length, batch, batchCpu, streamed, familyParse });
  }
  const loaded = loadVectors();
  const vectorPass = loaded ? rate(() => runVectors(loaded), { seconds: seconds * 2, passes: 3 }) : null;
  const vectorCpu = loaded ? cpuBest(() => runVectors(loaded), { seconds: seconds * 2, passes: 3 }) : null;
  const anchor = transformersAnchor(loaded, cases, seconds);
  const ratios = [], cpuRatios = [];
  const rows = cases.map((c) => {
    const tf = anchor.error ? undefined : anchor.cases[c.name];
    if (tf && !isDeepStrictEqual(tf.message, asJson(c.message))) throw new Error(`${c.name}: transformers and chatfmt's executor read different messages`);
    const ms = 1000 / c.batch.median;
    if (tf) ratios.push(tf.median / ms);
    if (tf) cpuRatios.push(tf.cpu / c.batchCpu);
    return [c.name, fmt(c.mb, 2), String(c.calls), fmt(ms, 1), tf ? fmt(tf.median, 0) : 'n/a', tf ? `${fmt(tf.median / ms, 1)}×` : 'n/a',
      fmt(c.batchCpu, 1), tf ? fmt(tf.cpu, 1) : 'n/a', tf ? `${fmt(tf.cpu / c.batchCpu, 1)}×` : 'n/a',
      fmt(1000 / c.streamed.median, 1), fmt(1000 / c.familyParse.median, 1), fmt(c.stats.steps / c.text.length, 2), fmt(c.stats.memoPeak / 8 / 1024, 1)];
  });
  let vectorLine = 'The 66 shared vectors: skipped (../shared not found).';
  if (loaded) {
    const ours = 1000 / vectorPass.median;
    const tf = anchor.error ? undefined : anchor.vectors;
    vectorLine = `The ${loaded.vectors.length} shared transformers vectors in one pass (template loaded per vector, as \`parse_response\` does): chatfmt ${fmt(ours, 2)} ms a pass (${fmt(1000 / vectorPass.max, 2)}–${fmt(1000 / vectorPass.min, 2)}), ${fmt(ours * 1000 / loaded.vectors.length, 1)} µs a vector`
      + (tf ? `; transformers ${fmt(tf.median, 2)} ms (${fmt(tf.min, 2)}–${fmt(tf.max, 2)}): **${fmt(tf.median / ours, 1)}× faster** (goal ≥ 2×).` : '.')
      + ` In CPU time (best pass): chatfmt ${fmt(vectorCpu, 2)} ms` + (tf ? `, transformers ${fmt(tf.cpu, 2)} ms: **${fmt(tf.cpu / vectorCpu, 1)}×**.` : '.');
  }
  const anchorLine = anchor.error
    ? `transformers' \`ResponseParser\` could not be run (${anchor.error}); \`pip install transformers\` adds the anchor columns.`
    : `Anchor: transformers ${anchor.version}'s own \`parse_response\` (Python ${'`regex`'} module), run by bench/transformers_anchor.py in a child process on the same inputs; its messages equal the executor's on every completion (checked). 1 MB completions slower than a pass are timed twice and the better kept.`;
  return [
    '## Response templates',
    '',
    `Each family's exported response template on a completion of about ${fmt(size / 1e6, 1)} MB (the parse section's), run by the`,
    "executor in one feed and in 16-character feeds, against transformers' own parser and chatfmt's family parser on the same text.",
    anchorLine,
    'CPU ms = the best pass in each process\'s own CPU time (process.cpuUsage, time.process_time), next to the wall-clock medians.',
    'Steps = regex matcher steps per character; memo = the largest visited-state memo one search held.',
    '',
    table(['family', 'MB', 'calls', 'executor ms', 'transformers ms', 'speed-up', 'executor CPU ms', 'transformers CPU ms', 'CPU speed-up', 'executor, 16-char feeds ms', 'family parse ms', 'steps/char', 'memo KiB'], rows),
    '',
    ratios.length > 0 ? `1 MB completions: the executor is ${fmt(Math.min(...ratios), 1)}× to ${fmt(Math.max(...ratios), 1)}× faster than transformers in wall time, ${fmt(Math.min(...cpuRatios), 1)}× to ${fmt(Math.max(...cpuRatios), 1)}× in CPU time (goal ≥ 2×).` : '',
    '',
    vectorLine,
    '',
    '### What each change bought (batch, ms per parse of the 1 MB completions above; the 66 vectors per pass)',
    '',
    "Issue 18's profile put 42% of the time in the memo (a bit table sized to the rest of the buffer, zeroed for every search: every",
    'commit of every delimiter) and 27% in GC. The memo is now paged (1,024 positions a page), allocated where an attempt goes,',
    'freed behind the current start and reused by the next search, and capped at 8 MiB (RESPONSE_TEMPLATE_LIMIT beyond). Patterns',
    "that must start with one of a few literals find them with indexOf, remembered across the searches of a growing buffer, so",
    'a close list like `<tool_call|>`/`<turn|>` no longer rescans to the end after every call. A lazy `.*?` whose continuation',
    'starts with one of a few characters steps over the rest, marking the memo as it goes.',
    '',
    table(['build', 'qwen3', 'qwen3-coder', 'gemma-4', 'gpt-oss', '66 vectors'], CHANGES),
    '',
    ...CHANGES_NOTES,
    '',
    '### Issue 18: the executor (CPU ms per parse, 1 MB completions; the 66 vectors per pass)',
    '',
    table(['build', 'qwen3', 'qwen3-coder', 'gemma-4', 'gpt-oss', '66 vectors'], CHANGES_EXECUTOR),
    '',
    ...CHANGES_EXECUTOR_NOTES,
  ].join('\n');
}
