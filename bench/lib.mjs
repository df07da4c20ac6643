// Shared helpers for the benchmark sections: timing with medians over passes, machine facts, tables.
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

export const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const shared = resolve(root, '..', 'shared');
export const renderRef = join(shared, 'tools', 'render_ref.py');
export const hasShared = existsSync(renderRef);

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Operations per second: `passes` passes of about `seconds` each; median and range of the passes. */
/** What the last `flat` read, kept so the optimiser cannot drop the read. */
export let flatSink = 0;

/**
 * The text as a flat string. A render built by `+=` is a rope; jinja2's `''.join` hands back a flat string and pays for
 * it inside its render, and every real use of the text (writing it, JSON.stringify, a search) flattens it first, so a
 * fair timing flattens ours too. Reading one code unit makes V8 flatten the rope.
 */
export function flat(text) {
  flatSink ^= text.length === 0 ? 0 : text.charCodeAt(text.length - 1);
  return text;
}

export function rate(fn, { seconds = 0.25, passes = 3 } = {}) {
  fn();
  const rates = [];
  for (let p = 0; p < passes; p++) {
    let n = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      fn();
      n++;
      elapsed = performance.now() - start;
    } while (elapsed < seconds * 1000);
    rates.push((n * 1000) / elapsed);
  }
  return { median: median(rates), min: Math.min(...rates), max: Math.max(...rates), all: rates };
}

/** Milliseconds per call: median of `runs` single timed calls. */
export function millis(fn, runs = 15) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn(i);
    times.push(performance.now() - start);
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

export function fmt(value, digits = 0) {
  if (value === undefined || value === null || Number.isNaN(value)) return 'n/a';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export const range = (r, digits = 0) => `${fmt(r.median, digits)} (${fmt(r.min, digits)}–${fmt(r.max, digits)})`;

export function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export function machine() {
  const cpu = cpus();
  let python = 'n/a';
  let jinja2 = 'n/a';
  try {
    python = execFileSync('python3', ['--version'], { encoding: 'utf8' }).trim();
    jinja2 = execFileSync('python3', ['-c', 'import jinja2; print(jinja2.__version__)'], { encoding: 'utf8' }).trim();
  } catch {}
  const version = (name) => {
    try {
      return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return 'n/a';
    }
  };
  return [
    `- CPU: ${cpu[0]?.model ?? 'unknown'} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    `- Node ${process.version}; ${python}, jinja2 ${jinja2}`,
    `- chatfmt ${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}; @huggingface/jinja ${version('@huggingface/jinja')}`,
  ].join('\n');
}
