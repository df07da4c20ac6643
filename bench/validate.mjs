#!/usr/bin/env node
// Benchmark of `chatfmt validate` (not a test): generates a synthetic SFT dataset in a temp folder, then times
// the CLI (from dist/, so run `npm run build` first) at 1 and 2 workers, schema-only and with --family qwen3
// (render + round trip), and reports rows/s and the peak RSS of the whole process (worker threads included).
// Then times `chatfmt convert` of the same rows to OpenAI JSONL and to qwen3 training records at 1 and 2 workers.
// Usage: node bench/validate.mjs [--rows 200000] [--template-rows N] [--convert-rows 20000] [--keep]
// Prints markdown on stdout.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const rows = flag('--rows', 200_000);
const templateRows = flag('--template-rows', rows);
const convertRows = flag('--convert-rows', 20_000);

const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Get the weather for a city.', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] } } },
  { type: 'function', function: { name: 'search_docs', description: 'Search the documentation.', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['query'] } } },
];
const cities = ['Paris', 'Tokyo', 'Lima', 'Oslo', 'Cairo', 'Quito', 'Hanoi', 'Perth'];

/** Deterministic rows: mostly one or two tool calls, some plain chats, ~2% with a planted fault. */
function row(k) {
  const city = cities[k % cities.length];
  const id = `call_${k}`;
  const user = { role: 'user', content: `Row ${k}: what is the weather in ${city}, and find docs about topic ${k % 97}?` };
  if (k % 7 === 0) return { messages: [user, { role: 'assistant', content: `Plain answer number ${k} about ${city}. `.repeat(3) }] };
  const calls = [{ id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city, unit: 'celsius' }) } }];
  if (k % 3 === 0) calls.push({ id: `${id}b`, type: 'function', function: { name: 'search_docs', arguments: JSON.stringify({ query: `topic ${k % 97}`, limit: 3 }) } });
  const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: JSON.stringify({ ok: true, value: k }) }));
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }, user, { role: 'assistant', content: '', tool_calls: calls }, ...results, { role: 'assistant', content: `In ${city} it is ${k % 30} degrees.` }];
  if (k % 50 === 1) results[0].tool_call_id = 'wrong';
  if (k % 50 === 2) calls[0].function.arguments = '{"city": ';
  if (k % 50 === 3) calls[0].function.name = 'get_wether';
  return { messages, tools };
}

function generate(dir, count) {
  const file = join(dir, `bench-${count}.jsonl`);
  const parts = [];
  let chunk = '';
  for (let k = 0; k < count; k++) {
    chunk += `${JSON.stringify(row(k))}\n`;
    if (chunk.length > 1 << 20) {
      parts.push(chunk);
      chunk = '';
    }
  }
  parts.push(chunk);
  writeFileSync(file, parts.join(''));
  return file;
}

/** Runs the CLI in a child that reports its own peak RSS (process.resourceUsage covers worker threads). */
function runCli(cliArgs) {
  const main = pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href;
  const io = pathToFileURL(join(root, 'dist', 'cli', 'io.js')).href;
  const script = `
    const { run } = await import(${JSON.stringify(main)});
    const { processIO } = await import(${JSON.stringify(io)});
    const code = await run(${JSON.stringify(cliArgs)}, { ...processIO(), stderrIsTTY: false });
    process.stderr.write('\\nBENCH ' + JSON.stringify({ code, maxRSS: process.resourceUsage().maxRSS }) + '\\n');`;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const marker = err.lastIndexOf('BENCH ');
      if (marker === -1) return reject(new Error(`benchmark child failed: ${err.slice(-500)}`));
      const { code, maxRSS } = JSON.parse(err.slice(marker + 6));
      resolve({ seconds, code, maxRssMB: maxRSS / 1024, out, err: err.slice(0, marker) });
    });
  });
}

/** convert at 1 and 2 workers, each target in the same run; the outputs must be the same bytes. */
async function benchConvert(file, count) {
  console.log('');
  console.log(`## chatfmt convert (node ${process.version})`);
  console.log('');
  console.log('| target | rows | workers | seconds | rows/s | vs 1 worker | peak RSS MB |');
  console.log('|---|---|---|---|---|---|---|');
  for (const target of ['openai', 'qwen3']) {
    const outputs = [];
    let base;
    for (const workers of [1, 2]) {
      const output = join(dirname(file), `convert-${target}-${workers}.jsonl`);
      const result = await runCli(['convert', '--from', 'openai', '--to', target, '--no-progress', '--workers', String(workers), '-o', output, file]);
      if (!result.err.includes(`${count} row(s)`)) throw new Error(`convert did not read ${count} rows: ${result.err.slice(0, 300)}`);
      base ??= result.seconds;
      outputs.push(readFileSync(output));
      const rate = Math.round(count / result.seconds);
      console.log(`| ${target} | ${count.toLocaleString('en-US')} | ${workers} | ${result.seconds.toFixed(1)} | ${rate.toLocaleString('en-US')} | ${(base / result.seconds).toFixed(2)}× | ${result.maxRssMB.toFixed(0)} |`);
    }
    if (!outputs[0].equals(outputs[1])) throw new Error(`convert --to ${target}: --workers 2 wrote other bytes than --workers 1`);
  }
  console.log('');
  console.log('Same rows as validate (first N); outputs at 1 and 2 workers are checked byte-identical. Wall-clock time of the whole CLI process. Without `--workers`, `--to openai` runs on one thread (a second one has not paid for itself here) and training records on one thread per core.');
  console.log('');
  console.log(LONG_CONVERSATIONS.join('\n'));
}

/**
 * Long conversations in training records (issue 18, twelfth round), measured by hand on 2026-11-27 at a load average
 * of 3–4: `convert --from openai --to qwen3 --workers 1` of each file, the build before (main 5a48ca3 + the re-run
 * bench section) and this one alternating, two runs each; wall seconds and peak RSS (/usr/bin/time) of the process.
 */
const LONG_CONVERSATIONS = [
  '### Long conversations in training records',
  '',
  'A training record finds each assistant turn by rendering the conversation up to it, so a row costs the square of its',
  'length. Most of a long row\'s time was two JavaScript loops comparing each turn\'s render with the whole text character',
  'by character; they now compare blocks natively. The renders kept for reuse were every prefix of the row (a 30 MB row',
  'exhausted the 4 GB heap); they are now capped at 64 Mi characters, and span finding and the prefix check take each',
  'turn together so the renders they share are still kept. A row past `--max-prefix-render-chars` (4 billion characters',
  'rendered, a message counting 512: ~10 s) is `CONVERT_TOO_LONG`; one of thousands of short messages is refused on its',
  'message count before any render.',
  '',
  '| row (qwen3) | before s | after s | before peak RSS MB | after peak RSS MB | after |',
  '| --- | --- | --- | --- | --- | --- |',
  '| 2,000 short agent rows (5 messages each) | 1.93, 1.69 | 1.88, 1.76 | 125 | 129 | converted |',
  '| 100 turns of 10 KB messages (2 MB) | 2.65, 2.67 | 1.66, 1.49 | 394 | 380 | converted |',
  '| 50 turns of 40 KB messages (4 MB) | 2.86, 2.65 | 1.67, 1.73 | 402 | 373 | converted |',
  '| 200 turns of 10 KB messages (4 MB) | 10.21, 9.25 | 5.03, 4.95 | 1,297 | 991 | converted |',
  '| 512 turns of one-word messages (1,025 messages) | 1.66, 1.90 | 1.48, 1.46 | 128 | 129 | converted |',
  '| 1,024 turns of one-word messages (2,049 messages) | 5.31, 5.40 | 4.89, 4.91 | 213 | 213 | converted |',
  '| 2,048 turns of one-word messages (4,097 messages) | 20.0, 19.8 (converted) | 0.47, 0.45 | 550 | 76 | `CONVERT_TOO_LONG` before any prefix render |',
  '| 100 turns of 150 KB messages (30 MB) | 31.2, 30.0: the process died, heap out of memory (4.3 GB) | 7.18, 7.41 | 4,301 | 1,413 | `CONVERT_TOO_LONG` |',
  '',
  'With `--workers 2` the 4 MB, 200-turn row converts in a worker (1 GB heap) where it killed one before (`WORKER_DIED`).',
];

const dir = mkdtempSync(join(tmpdir(), 'chatfmt-bench-'));
try {
  const schemaFile = generate(dir, rows);
  const templateFile = templateRows === rows ? schemaFile : generate(dir, templateRows);
  const sizeMB = (file) => (statSync(file).size / 1e6).toFixed(1);
  console.log(`## chatfmt validate (node ${process.version})`);
  console.log('');
  console.log('| checks | rows | MB | workers | seconds | rows/s | peak RSS MB | errors |');
  console.log('|---|---|---|---|---|---|---|---|');
  const modes = [
    { name: 'schema', file: schemaFile, count: rows, extra: [] },
    { name: 'qwen3 render + round trip', file: templateFile, count: templateRows, extra: ['--family', 'qwen3'] },
  ];
  const speedups = [];
  const measure = async (mode, workers) => {
    const result = await runCli(['validate', '--format', 'json', '--no-progress', '--workers', String(workers), ...mode.extra, mode.file]);
    result.summary = JSON.parse(result.out);
    if (result.summary.rows !== mode.count) throw new Error(`expected ${mode.count} rows, got ${result.summary.rows}`);
    const rate = Math.round(mode.count / result.seconds);
    console.log(`| ${mode.name} | ${mode.count.toLocaleString('en-US')} | ${sizeMB(mode.file)} | ${workers} | ${result.seconds.toFixed(1)} | ${rate.toLocaleString('en-US')} | ${result.maxRssMB.toFixed(0)} | ${result.summary.errors.toLocaleString('en-US')} |`);
    return result;
  };
  for (const mode of modes) {
    const one = await measure(mode, 1);
    const two = await measure(mode, 2);
    speedups.push(`${mode.name} ${(one.seconds / two.seconds).toFixed(2)}×`);
  }
  // Memory must not grow with the file: the same run on a quarter of the rows.
  const quarter = Math.max(1, Math.floor(rows / 4));
  const smallFile = generate(dir, quarter);
  await measure({ name: 'schema (¼ of the rows)', file: smallFile, count: quarter, extra: [] }, 2);
  console.log('');
  console.log(`Speed-up from 1 to 2 workers: ${speedups.join(', ')} (goal ≥ 1.8×).`);
  console.log('Wall-clock time of the whole CLI process (startup included); peak RSS from process.resourceUsage() of that process.');
  console.log('Compare the peak RSS of the ¼-size run with the full run at 2 workers: flat memory means the same figure.');
  await benchConvert(convertRows === rows ? schemaFile : generate(dir, convertRows), convertRows);
} finally {
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
}
