import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import type { DatasetIssue } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 10 item 4: on LLaMA-Factory's glaive tool-call demo, validate --family hermes reported false TEMPLATE_ERRORs on
// rows with tools "[]" that convert rendered fine, and validate --family kimi-k2 reported ROUNDTRIP_MISMATCHes because
// convert silently rewrote ids. Both commands now normalise rows one way and report every rewrite.
const data = join(import.meta.dirname, '../../fixtures/datasets/glaive-demo/glaive.jsonl');
const dir = tempDir();

async function cli(argv: string[]): Promise<number> {
  return run(argv, memoryIO('', dir.path));
}

async function report(argv: string[], name: string): Promise<DatasetIssue[]> {
  const file = join(dir.path, name);
  await cli([...argv, '--report', file]);
  const { readFileSync } = await import('node:fs');
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as DatasetIssue);
}

const rejected = (issues: DatasetIssue[]) => [...new Set(issues.filter((i) => i.severity === 'error').map((i) => i.line))].sort((a, b) => a - b);
const rewrites = (issues: DatasetIssue[]) => issues.filter((i) => i.code === 'TEMPLATE_IDS_REWRITTEN').map((i) => i.line);

describe('validate and convert agree on glaive-shaped data', () => {
  for (const family of ['hermes', 'kimi-k2', 'qwen3']) {
    it(family, async () => {
      const validated = await report(['validate', '--family', family, '--workers', '1', data], `${family}.validate.jsonl`);
      const converted = await report(['convert', data, '--from', 'sharegpt', '--to', family, '-o', join(dir.path, `${family}.out.jsonl`), '--no-prefix-check'], `${family}.convert.jsonl`);
      // The two planted faults, and nothing else, in both commands.
      expect(rejected(validated)).toEqual([8, 9]);
      expect(rejected(converted)).toEqual([8, 9]);
      expect(validated.filter((i) => i.code.startsWith('TEMPLATE_ERROR') || i.code === 'ROUNDTRIP_MISMATCH')).toEqual([]);
      expect(rewrites(validated)).toEqual(rewrites(converted));
      // ShareGPT rows have no call ids: the ones Kimi rewrites were made up by the importer, so nothing is reported.
      expect(rewrites(validated).length).toBe(0);
    });
  }
});
