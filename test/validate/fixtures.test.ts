import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateDataset } from '../../src/index.js';
import { cli, collect, datasets, pairs, readReport, tempDir } from './helpers.js';

// Each invalid/<name>.jsonl (and template/<name>.jsonl, checked with a family) has a sidecar
// <name>.expected.json: extra CLI args and every expected [line, code].
const invalid = ['invalid', 'template'].flatMap((folder) =>
  readdirSync(join(datasets, folder))
    .filter((f) => f.endsWith('.expected.json'))
    .map((f) => join(folder, f)),
);
const valid = readdirSync(join(datasets, 'valid'));
const dir = tempDir();

describe('planted faults', () => {
  it.each(invalid)('%s: the CLI reports exactly the planted issues and exits 1', async (sidecar) => {
    const { args, expected } = JSON.parse(readFileSync(join(datasets, sidecar), 'utf8')) as { args: string[]; expected: Array<[number, string]> };
    const data = join(datasets, sidecar.replace('.expected.json', '.jsonl'));
    const report = join(dir, `${sidecar.replace('/', '-')}.report.jsonl`);
    const result = await cli(['--workers', '1', '--report', report, ...args, data]);
    expect(result.err).toBe('');
    expect(result.code).toBe(1);
    const issues = readReport(report);
    expect(pairs(issues)).toEqual(pairs(expected.map(([line, code]) => ({ line, code: code as never }))));
    for (const issue of issues) {
      expect(Object.keys(issue).sort()).toEqual(['code', 'line', 'message', 'path', 'row', 'severity']);
      expect(issue.message).not.toBe('');
    }
    // The report is in input order.
    expect(issues.map((i) => i.line)).toEqual([...issues.map((i) => i.line)].sort((a, b) => a - b));
  });

  it('gives the same issues through the library API', async () => {
    const { expected } = JSON.parse(readFileSync(join(datasets, 'invalid', 'sharegpt.expected.json'), 'utf8')) as { expected: Array<[number, string]> };
    const validation = validateDataset(join(datasets, 'invalid', 'sharegpt.jsonl'));
    const issues = await collect(validation);
    expect(pairs(issues)).toEqual(pairs(expected.map(([line, code]) => ({ line, code: code as never }))));
    const summary = await validation.summary();
    expect(summary.shape).toBe('sharegpt');
    expect(summary.errors).toBe(issues.filter((i) => i.severity === 'error').length);
  });

  it('prints paths and line numbers in the human summary', async () => {
    const result = await cli(['--workers', '1', join(datasets, 'invalid', 'openai.jsonl')]);
    expect(result.code).toBe(1);
    expect(result.out).toContain('✖ arguments is not valid JSON');
    expect(result.out).toContain('→ at messages[1].tool_calls[0].function.arguments (line 15)');
    expect(result.out).toContain('ARGS_INVALID_JSON');
    expect(result.out).not.toContain('\x1b[');
  });
});

describe('clean datasets', () => {
  it.each(valid)('%s: exit 0, no issues', async (file) => {
    const result = await cli(['--workers', '1', '--format', 'json', join(datasets, 'valid', file)]);
    expect(result.err).toBe('');
    const summary = JSON.parse(result.out);
    expect(summary).toMatchObject({ errors: 0, warnings: 0, byCode: {} });
    expect(summary.rows).toBeGreaterThan(2);
    expect(result.code).toBe(0);
  });

  it('forcing the wrong shape gives each row one hint naming the shape it has', async () => {
    const result = await cli(['--workers', '1', '--format', 'json', '--input-format', 'openai', join(datasets, 'valid', 'sharegpt.jsonl')]);
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.out) as { byCode: Record<string, { count: number }>; examples: Array<{ message: string }> };
    expect(Object.keys(summary.byCode)).toEqual(['ROW_WRONG_SHAPE']);
    expect(summary.byCode.ROW_WRONG_SHAPE!.count).toBe(3);
    expect(summary.examples[0]!.message).toContain('--from sharegpt');
  });
});
