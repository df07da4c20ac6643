import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readDatasetRecords, type DatasetRecord } from '../../src/index.js';

async function records(bytes: Buffer, cuts: number[], options: { maxRowBytes?: number; container?: 'auto' | 'jsonl' | 'array' } = {}): Promise<DatasetRecord[]> {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  const out: DatasetRecord[] = [];
  for await (const record of readDatasetRecords(Readable.from(chunks.filter((c) => c.length > 0)), options)) out.push(record);
  return out;
}

const jsonl = Buffer.concat([
  Buffer.from('\ufeff{"a": "é ü 漢字 🎉"}\r\n\n  \n{"b": 1}\n'),
  Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a]),
  Buffer.from(`{"long": "${'x'.repeat(300)}"}\n{"c": [1, {"d": "]"}]}`),
]);
const array = Buffer.from('\ufeff [\n  {"a": "x,]}{\\"[", "b": [1, 2]},\n  {"c": "é 🎉"}\n  ,\n  3,\n  {"long": "' + 'y'.repeat(300) + '"},\n  {"e": {}}\n]\n');

describe('readDatasetRecords', () => {
  it('JSONL: line numbers, CRLF, BOM, blank lines, invalid UTF-8 and size cap', async () => {
    const got = await records(jsonl, [], { maxRowBytes: 200 });
    expect(got).toEqual([
      { line: 1, row: 1, text: '{"a": "é ü 漢字 🎉"}' },
      { line: 4, row: 2, text: '{"b": 1}' },
      { line: 5, row: 3, problem: { code: 'ROW_INVALID_UTF8', message: 'line is not valid UTF-8 (first bad byte at offset 2)' } },
      { line: 6, row: 4, problem: expect.objectContaining({ code: 'ROW_TOO_LARGE' }) },
      { line: 7, row: 5, text: '{"c": [1, {"d": "]"}]}' },
    ]);
  });

  it('JSON array: elements with the line they start on', async () => {
    const got = await records(array, [], { maxRowBytes: 200 });
    expect(got.map((r) => [r.line, r.text === undefined ? r.problem.code : JSON.parse(r.text)])).toEqual([
      [2, { a: 'x,]}{"[', b: [1, 2] }],
      [3, { c: 'é 🎉' }],
      [5, 3],
      [6, 'ROW_TOO_LARGE'],
      [7, { e: {} }],
    ]);
  });

  it('any chunking gives the same records (multi-byte characters and CRLF split anywhere)', async () => {
    for (const [input, options] of [[jsonl, { maxRowBytes: 200 }], [array, { maxRowBytes: 200 }]] as const) {
      const whole = await records(input, []);
      const capped = await records(input, [], options);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
          expect(await records(input, cuts)).toEqual(whole);
          expect(await records(input, cuts, options)).toEqual(capped);
        }),
        { numRuns: 60 },
      );
    }
  });

  it('reports an unclosed array and text after it', async () => {
    const open = await records(Buffer.from('[{"a": 1},\n{"b": 2}'), []);
    expect(open.map((r) => [r.line, r.text ?? r.problem.code])).toEqual([[1, '{"a": 1}'], [2, '{"b": 2}'], [2, 'ROW_INVALID_JSON']]);
    const trailing = await records(Buffer.from('[{"a": 1}]\n{"b": 2}\n'), []);
    expect(trailing.map((r) => [r.line, r.text ?? r.problem.code])).toEqual([[1, '{"a": 1}'], [2, 'ROW_INVALID_JSON']]);
  });

  it('container: jsonl reads a leading "[" line as a row', async () => {
    const got = await records(Buffer.from('[1, 2]\n{"a": 1}\n'), [], { container: 'jsonl' });
    expect(got).toEqual([{ line: 1, row: 1, text: '[1, 2]' }, { line: 2, row: 2, text: '{"a": 1}' }]);
  });

  // Issue 10 item 5: in a minified array every element starts on line 1; rows are told apart by index.
  it('minified JSON array: rows numbered, lines dropped where elements share them', async () => {
    const got = await records(Buffer.from('[{"a":1},{"b":2},\n{"c":3}\n,{"d":4},{"e":5}]'), []);
    expect(got.map((r) => [r.row, r.line])).toEqual([[1, 0], [2, 0], [3, 2], [4, 0], [5, 0]]);
    const unclosed = await records(Buffer.from('[{"a":1},{"b":2}'), []);
    expect(unclosed.map((r) => [r.row, r.problem?.code ?? 'ok'])).toEqual([[1, 'ok'], [2, 'ok'], [0, 'ROW_INVALID_JSON']]);
  });
});
