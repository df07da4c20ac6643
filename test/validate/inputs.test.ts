import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isChatfmtError, validateDataset } from '../../src/index.js';
import { cli, collect, datasets, readReport, tempDir } from './helpers.js';

const dir = tempDir();
const invalidJsonl = join(datasets, 'invalid', 'openai.jsonl');
const validJsonl = join(datasets, 'valid', 'openai.jsonl');
const ok = '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}';

async function reportOf(args: string[], stdin?: string): Promise<{ code: number; issues: string[] }> {
  const report = join(dir, `r${Math.random().toString(36).slice(2)}.jsonl`);
  const result = await cli(['--workers', '1', '--max-row-bytes', '4096', '--report', report, ...args], stdin);
  return { code: result.code, issues: readReport(report).map((i) => `${i.line} ${i.code} ${i.path}`) };
}

describe('input forms', () => {
  it('reads gzip (detected by magic bytes) like the plain file', async () => {
    const gz = join(dir, 'data.jsonl.gz');
    writeFileSync(gz, gzipSync(readFileSync(invalidJsonl)));
    const plain = await reportOf([invalidJsonl]);
    expect(plain.issues.length).toBeGreaterThan(20);
    expect(await reportOf([gz])).toEqual(plain);
  });

  it('reads stdin for "-" and for no file', async () => {
    const plain = await reportOf([invalidJsonl]);
    // memoryIO encodes stdin as UTF-8; use a file without the invalid-UTF-8 line for an exact comparison.
    const utf8Lines = readFileSync(invalidJsonl, 'utf8');
    const fromDash = await reportOf(['-'], utf8Lines);
    const fromNone = await reportOf([], utf8Lines);
    expect(fromDash).toEqual(fromNone);
    // Same issues except that line 21 is now valid UTF-8 (U+FFFD replaced the bad byte).
    expect(fromDash.issues).toEqual(plain.issues.filter((i) => !i.startsWith('21 ')));
  });

  it('reads a JSON array (issues on the lines where elements start)', async () => {
    const rows = readFileSync(invalidJsonl, 'utf8').split('\n').filter((l) => l.trim() !== '' && l.startsWith('{"messages"') && !l.includes('\ufffd'));
    const parsed = rows.flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
    const arrayFile = join(dir, 'rows.json');
    // One element per line, after a "[" line: element k starts on line k + 2.
    writeFileSync(arrayFile, `[\n${parsed.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
    const lines = join(dir, 'rows.jsonl');
    writeFileSync(lines, parsed.map((r) => JSON.stringify(r)).join('\n'));
    const fromArray = await reportOf([arrayFile]);
    const fromLines = await reportOf([lines]);
    expect(fromArray.issues.length).toBeGreaterThan(10);
    expect(fromArray.issues).toEqual(fromLines.issues.map((i) => i.replace(/^\d+/, (n) => String(Number(n) + 1))));
  });

  it('reads a pretty-printed array with brackets, braces and quotes inside strings', async () => {
    const rows = [
      { messages: [{ role: 'user', content: 'a ] b } c [ d { "quoted" \\ e' }, { role: 'assistant', content: '],[' }] },
      { messages: [] },
    ];
    const file = join(dir, 'pretty.json');
    writeFileSync(file, JSON.stringify(rows, null, 2));
    const issues = await collect(validateDataset(file));
    const secondStart = JSON.stringify(rows, null, 2).split('\n').findIndex((l, k) => k > 0 && l === '  {' && k > 3) + 1;
    expect(issues.map((i) => [i.line, i.code])).toEqual([[secondStart, 'MSG_EMPTY_MESSAGES']]);
  });

  it('accepts an AsyncIterable of lines and a readable stream', async () => {
    const lines = ['', ok, 'nope', ok];
    async function* gen() {
      yield* lines;
    }
    expect((await collect(validateDataset(gen()))).map((i) => [i.line, i.code])).toEqual([[3, 'ROW_INVALID_JSON']]);
    const stream = Readable.from([Buffer.from(`${ok}\r\nnope\r\n`)]);
    expect((await collect(validateDataset(stream))).map((i) => [i.line, i.code])).toEqual([[2, 'ROW_INVALID_JSON']]);
  });
});

describe('bad input never crashes', () => {
  it('missing file: one line on stderr, exit 2', async () => {
    const result = await cli(['--workers', '1', 'no/such/file.jsonl']);
    expect(result.code).toBe(2);
    expect(result.err).toBe('chatfmt: no/such/file.jsonl: no such file\n');
  });

  it('a directory: one line, exit 2', async () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    const result = await cli(['--workers', '1', folder]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^chatfmt: .*folder: is a directory, not a dataset file\n$/);
  });

  it('binary data: one line, exit 2', async () => {
    const file = join(dir, 'blob.bin');
    writeFileSync(file, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    const result = await cli(['--workers', '1', file]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^chatfmt: .*blob\.bin: binary data \(NUL byte at offset 8\), not JSONL or JSON\n$/);
  });

  it('corrupt gzip: one line, exit 2', async () => {
    const file = join(dir, 'bad.gz');
    writeFileSync(file, Buffer.concat([gzipSync(Buffer.from(`${ok}\n`.repeat(100))).subarray(0, 30), Buffer.from('garbage')]));
    const result = await cli(['--workers', '1', file]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^chatfmt: .*bad\.gz: not valid gzip data: .*\n$/);
  });

  it('an empty (or blank) file is an error issue, exit 1', async () => {
    for (const content of ['', '\n  \n\n']) {
      const file = join(dir, 'empty.jsonl');
      writeFileSync(file, content);
      const result = await cli(['--workers', '1', '--format', 'json', file]);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.out)).toMatchObject({ rows: 0, errors: 1, byCode: { DATASET_EMPTY: { count: 1 } } });
    }
  });

  it('invalid UTF-8 is an issue on its line; the run goes on', async () => {
    const file = join(dir, 'latin1.jsonl');
    writeFileSync(file, Buffer.concat([Buffer.from(`${ok}\n`), Buffer.from('{"messages": "caf\xe9"}\n', 'latin1'), Buffer.from(`${ok}\n{}\n`)]));
    const issues = await collect(validateDataset(file));
    expect(issues.map((i) => [i.line, i.code])).toEqual([[2, 'ROW_INVALID_UTF8'], [4, 'MSG_MISSING_FIELD']]);
    expect(issues[0]!.message).toContain('offset 17');
  });

  it('a 33 MB single line is ROW_TOO_LARGE with the default cap, streamed without holding it', async () => {
    const chunk = Buffer.alloc(1 << 20, 0x61);
    async function* bytes() {
      yield Buffer.from(`${ok}\n{"messages": "`);
      for (let k = 0; k < 33; k++) yield chunk;
      yield Buffer.from(`"}\n${ok}\nnot json\n`);
    }
    const issues = await collect(validateDataset(Readable.from(bytes())));
    expect(issues.map((i) => [i.line, i.code])).toEqual([[2, 'ROW_TOO_LARGE'], [4, 'ROW_INVALID_JSON']]);
  });

  it('bad options are usage errors, not stack traces', async () => {
    for (const args of [['--workers', '0'], ['--shard', '3/2'], ['--shard', 'x'], ['--max-length', '10'], ['--family', 'qwen3', '--template', 'x.jinja']]) {
      const result = await cli([...args, validJsonl]);
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/^chatfmt: [^\n]+\n$/);
    }
    expect(() => validateDataset(validJsonl, { workers: 1.5 })).toThrowError(expect.objectContaining({ code: 'INPUT_INVALID' }));
    await expect(collect(validateDataset(join(dir, 'missing.jsonl')))).rejects.toSatisfy(isChatfmtError);
  });
});
