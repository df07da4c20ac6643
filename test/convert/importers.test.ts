import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importDataset, importRow, isImportShape, type ImportedRow } from '../../src/index.js';

// Data-driven: fixtures/convert/<shape>/rows.jsonl is the input, expected.jsonl says per line what must come out
// (the conversation, or null, and the issues as {code, severity, path}).
const root = join(import.meta.dirname, '../../fixtures/convert');

interface Expected {
  line: number;
  conversation: unknown;
  issues: Array<{ code: string; severity: string; path: string }>;
}

function readExpected(shape: string): Expected[] {
  return readFileSync(join(root, shape, 'expected.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Expected);
}

describe.each(readdirSync(root).filter(isImportShape))('importer %s', (shape) => {
  it('maps every fixture row as expected.jsonl says, dropping none', async () => {
    const rows: ImportedRow[] = [];
    for await (const row of importDataset(join(root, shape, 'rows.jsonl'), { from: shape })) rows.push(row);
    const expected = readExpected(shape);
    expect(rows.map((r) => r.line)).toEqual(expected.map((e) => e.line));
    for (const [i, row] of rows.entries()) {
      const want = expected[i]!;
      expect({ line: row.line, conversation: row.conversation }).toEqual({ line: want.line, conversation: want.conversation });
      expect(row.issues.map(({ code, severity, path }) => ({ code, severity, path }))).toEqual(want.issues);
      for (const issue of row.issues) {
        expect(issue.line).toBe(row.line);
        expect(issue.message.length).toBeGreaterThan(0);
      }
    }
  });
});

describe('importRow', () => {
  it('never throws on junk rows, it reports them', () => {
    for (const shape of ['openai', 'sharegpt', 'hermes-text', 'xlam'] as const) {
      for (const junk of [null, 42, 'text', [], {}, { conversations: 'x' }, { messages: [1] }]) {
        const result = importRow(junk, shape, 3);
        expect(result.conversation).toBeNull();
        expect(result.issues.some((i) => i.severity === 'error' && i.line === 3)).toBe(true);
      }
    }
  });

  it('rejects an unknown shape with a ChatfmtError', () => {
    expect(() => importRow({}, 'alpaca' as never)).toThrow(/unknown dataset shape/);
  });
});
