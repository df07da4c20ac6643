import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readDatasetRecords, validateDataset, type DatasetRecord } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';
import { collect } from './helpers.js';

// Issue 17 items 4, 6 and 7: what the reader does with hostile or damaged input.

async function read(source: Readable | string, options: { maxRowBytes?: number } = {}): Promise<DatasetRecord[]> {
  const out: DatasetRecord[] = [];
  for await (const record of readDatasetRecords(source, options)) out.push(record);
  return out;
}
const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return 'NOT JSON';
  }
};
const summary = (records: DatasetRecord[]) => records.map((r) => [r.line, r.row, r.text === undefined ? r.problem.code : parsed(r.text)]);

describe('JSON arrays with a broken element', () => {
  const good = (n: number) => JSON.stringify({ n, s: 'a, {b} [c]' });

  it('an unclosed string in a JSONL-style array costs that element only', async () => {
    const text = `[\n${good(1)},\n{"n": 2, "s": "never closed},\n${good(3)},\n${good(4)}\n]\n`;
    expect(summary(await read(Readable.from([Buffer.from(text)])))).toEqual([
      [2, 1, { n: 1, s: 'a, {b} [c]' }],
      [3, 2, 'NOT JSON'],
      [4, 3, { n: 3, s: 'a, {b} [c]' }],
      [5, 4, { n: 4, s: 'a, {b} [c]' }],
    ]);
  });

  it('an unclosed string in an indented array resumes at the next element, not at nested lines', async () => {
    const pretty = (n: number) => JSON.stringify({ n, list: [{ k: n }] }, null, 2).replace(/^/gm, '  ');
    const text = `[\n${pretty(1)},\n  {\n    "n": "broken,\n    "list": [\n      {"k": 2}\n    ]\n  },\n${pretty(3)}\n]`;
    const got = await read(Readable.from([Buffer.from(text)]));
    expect(got.map((r) => r.row)).toEqual([1, 2, 3]);
    expect(() => JSON.parse(got[1]!.text!)).toThrow();
    expect(JSON.parse(got[2]!.text!)).toEqual({ n: 3, list: [{ k: 3 }] });
  });

  it('a mismatched bracket in a minified array closes at the nearest opener of its kind', async () => {
    const text = `[${good(1)},{"n": 2, "list": [1, 2},${good(3)},${good(4)}]`;
    const got = await read(Readable.from([Buffer.from(text)]));
    expect(got.map((r) => [r.row, r.text])).toEqual([
      [1, good(1)],
      [2, '{"n": 2, "list": [1, 2}'],
      [3, good(3)],
      [4, good(4)],
    ]);
  });

  it('stray closers under a deep stack of the other kind are read in linear time (this took minutes)', async () => {
    // Each `]` with only `{` open used to scan the whole stack (up to 65,536 tracked openers) for a `[`.
    const depth = 65_536;
    const broken = '{'.repeat(depth) + ']'.repeat(1_000_000) + '}'.repeat(depth);
    const got = await read(Readable.from([Buffer.from(`[${broken},${good(2)}]`)]));
    expect(got.map((r) => [r.row, r.text === broken])).toEqual([[1, true], [2, false]]);
    expect(JSON.parse(got[1]!.text!)).toEqual({ n: 2, s: 'a, {b} [c]' });
  });

  it('validate reports one issue for the broken element and checks the rows after it', async () => {
    const row = (content: string) => JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content }] });
    const text = `[\n${row('one')},\n{"messages": [{"role": "user", "content": "cut},\n${row('')},\n${row('four')}\n]\n`;
    const issues = await collect(validateDataset(Readable.from([Buffer.from(text)])));
    expect(issues.map((issue) => [issue.row, issue.code])).toEqual([[2, 'ROW_INVALID_JSON'], [3, 'MSG_ASSISTANT_EMPTY']]);
  });
});

describe('truncated gzip', () => {
  const tmp = tempDir();

  it('reports the rows read before the cut, then one DATASET_TRUNCATED issue', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => JSON.stringify({ messages: [{ role: 'user', content: `q${i} ${'x'.repeat(i % 97)}` }, { role: 'assistant', content: i === 3 ? '' : `a${i}` }] }));
    const gz = gzipSync(Buffer.from(`${rows.join('\n')}\n`));
    const file = tmp.write('cut.jsonl.gz', '');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, gz.subarray(0, Math.floor(gz.length * 0.6)));
    const validation = validateDataset(file);
    const issues = await collect(validation);
    const result = await validation.summary();
    expect(issues.map((issue) => issue.code)).toEqual(['MSG_ASSISTANT_EMPTY', 'DATASET_TRUNCATED']);
    expect(issues[1]!.message).toContain('truncated');
    expect(result.rows).toBeGreaterThan(10);
    expect(result.rows).toBeLessThan(400);
  });
});

describe('leading whitespace', () => {
  it('is held only up to the row limit, then read as lines (memory stays bounded)', async () => {
    const maxRowBytes = 1 << 20;
    const chunk = 1 << 20;
    const total = 160;
    let produced = 0;
    let peakHeld = 0;
    const baseline = process.memoryUsage().arrayBuffers;
    // Fresh buffers every time, so holding them is what costs memory; the source notes how much is alive.
    async function* spaces(): AsyncGenerator<Buffer> {
      for (let i = 0; i < total; i++) {
        peakHeld = Math.max(peakHeld, process.memoryUsage().arrayBuffers - baseline);
        produced++;
        yield Buffer.alloc(chunk, 0x20);
      }
      yield Buffer.from('\n{"messages": []}\n');
    }
    const got = await read(Readable.from(spaces(), { objectMode: true }) as Readable, { maxRowBytes });
    expect(produced).toBe(total);
    expect(summary(got)).toEqual([
      [1, 1, 'ROW_TOO_LARGE'],
      [2, 2, { messages: [] }],
    ]);
    // 160 MB of spaces went through; the reader never held more than a few row limits of it. arrayBuffers is
    // process-wide and other test files run in threads beside this one, so the bound leaves room for their buffers;
    // a reader that holds the whitespace holds all 160 MB.
    expect(peakHeld).toBeLessThan(100 * chunk);
  });
});
