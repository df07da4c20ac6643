import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { formatIssue, type DatasetIssue } from '../../src/index.js';
import { datasets, root } from './helpers.js';

const invalid = join(datasets, 'invalid', 'sharegpt.jsonl');

describe('human output', () => {
  it('formats one issue zod-style', () => {
    const issue: DatasetIssue = { line: 812, code: 'ARGS_INVALID_JSON', severity: 'error', path: 'messages[3].tool_calls[0].function.arguments', message: 'arguments is not valid JSON' };
    expect(formatIssue(issue)).toBe('✖ arguments is not valid JSON → at messages[3].tool_calls[0].function.arguments (line 812)');
    expect(formatIssue({ ...issue, severity: 'warning', path: '' })).toBe('⚠ arguments is not valid JSON → line 812');
  });

  it('colours on a TTY (unless NO_COLOR), plain otherwise', async () => {
    const tty = { ...memoryIO('', root), stdoutIsTTY: true };
    expect(await run(['validate', '--workers', '1', invalid], tty)).toBe(1);
    expect(tty.out()).toContain('\x1b[31m');
    const noColor = { ...memoryIO('', root), stdoutIsTTY: true, env: { NO_COLOR: '1' } };
    await run(['validate', '--workers', '1', invalid], noColor);
    expect(noColor.out()).not.toContain('\x1b[');
    expect(noColor.out()).toBe(tty.out().replace(/\x1b\[\d+m/g, ''));
  });

  it('summary lists counts per code with examples, and a final verdict', async () => {
    const io = memoryIO('', root);
    await run(['validate', '--workers', '1', '--examples', '1', invalid], io);
    const out = io.out();
    expect(out).toMatch(/sharegpt\.jsonl: 14 rows \(sharegpt\)/);
    expect(out).toMatch(/SHAREGPT_ROLE_ORDER +2 errors\n +✖ turn 0 is "gpt"[^\n]+→ at conversations\[0\]\.from \(line 2\)\n\n/);
    expect(out.trimEnd().split('\n').at(-1)).toBe('✖ 12 errors in 12 rows');
    const clean = memoryIO('', root);
    expect(await run(['validate', '--workers', '1', join(datasets, 'valid', 'sharegpt.jsonl')], clean)).toBe(0);
    expect(clean.out().trimEnd().split('\n').at(-1)).toBe('✔ no errors');
  });

  it('draws a progress bar on a TTY stderr and clears it', async () => {
    const io = { ...memoryIO('', root), stderrIsTTY: true };
    await run(['validate', '--workers', '1', invalid], io);
    expect(io.err()).toMatch(/^\r\x1b\[2K\[#+\] 100% 14 rows +[\d,]+ rows\/s +12 errors, 0 warnings +ETA 0:00\r\x1b\[2K$/);
    const quiet = { ...memoryIO('', root), stderrIsTTY: true };
    await run(['validate', '--workers', '1', '--no-progress', invalid], quiet);
    expect(quiet.err()).toBe('');
  });
});
