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
    cases.push({ name: family, text, prefix, template, message, stats, mb, calls: own.tool_calls.length, batch, streamed, familyParse });
  }
  const loaded = loadVectors();
  const vectorPass = loaded ? rate(() => runVectors(loaded), { seconds: seconds * 2, passes: 3 }) : null;
  const anchor = transformersAnchor(loaded, cases, seconds);
  const ratios = [];
  const rows = cases.map((c) => {
    const tf = anchor.error ? undefined : anchor.cases[c.name];
    if (tf && !isDeepStrictEqual(tf.message, asJson(c.message))) throw new Error(`${c.name}: transformers and chatfmt's executor read different messages`);
    const ms = 1000 / c.batch.median;
    if (tf) ratios.push(tf.median / ms);
    return [c.name, fmt(c.mb, 2), String(c.calls), fmt(ms, 1), tf ? fmt(tf.median, 0) : 'n/a', tf ? `${fmt(tf.median / ms, 1)}×` : 'n/a',
      fmt(1000 / c.streamed.median, 1), fmt(1000 / c.familyParse.median, 1), fmt(c.stats.steps / c.text.length, 2), fmt(c.stats.memoPeak / 8 / 1024, 1)];
  });
  let vectorLine = 'The 66 shared vectors: skipped (../shared not found).';
  if (loaded) {
    const ours = 1000 / vectorPass.median;
    const tf = anchor.error ? undefined : anchor.vectors;
    vectorLine = `The ${loaded.vectors.length} shared transformers vectors in one pass (template loaded per vector, as \`parse_response\` does): chatfmt ${fmt(ours, 2)} ms a pass (${fmt(1000 / vectorPass.max, 2)}–${fmt(1000 / vectorPass.min, 2)}), ${fmt(ours * 1000 / loaded.vectors.length, 1)} µs a vector`
      + (tf ? `; transformers ${fmt(tf.median, 2)} ms (${fmt(tf.min, 2)}–${fmt(tf.max, 2)}): **${fmt(tf.median / ours, 1)}× faster** (goal ≥ 2×).` : '.');
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
    'Steps = regex matcher steps per character; memo = the largest visited-state memo one search held.',
    '',
    table(['family', 'MB', 'calls', 'executor ms', 'transformers ms', 'speed-up', 'executor, 16-char feeds ms', 'family parse ms', 'steps/char', 'memo KiB'], rows),
    '',
    ratios.length > 0 ? `1 MB completions: the executor is ${fmt(Math.min(...ratios), 1)}× to ${fmt(Math.max(...ratios), 1)}× faster than transformers (goal ≥ 2×).` : '',
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
  ].join('\n');
}
