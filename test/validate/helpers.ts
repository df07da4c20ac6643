import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import type { DatasetIssue } from '../../src/index.js';

export const root = join(import.meta.dirname, '..', '..');
export const datasets = join(root, 'fixtures', 'datasets');

/** A temp folder removed after the file's tests. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chatfmt-validate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function cli(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO(stdin, root);
  const code = await run(['validate', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

export function readReport(path: string): DatasetIssue[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as DatasetIssue);
}

export function pairs(issues: Array<Pick<DatasetIssue, 'line' | 'code'>>): string[] {
  return issues.map((issue) => `${issue.line} ${issue.code}`).sort();
}

export async function collect(iterable: AsyncIterable<DatasetIssue>): Promise<DatasetIssue[]> {
  const issues: DatasetIssue[] = [];
  for await (const issue of iterable) issues.push(issue);
  return issues;
}
