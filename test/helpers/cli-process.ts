import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { repoRoot } from './shared.js';

/**
 * The CLI bundled once per test file (see cliProcess), as a file to run with `node`; removed after the file's tests.
 */
export function cliBundle(): () => Promise<string> {
  let bundle: string | undefined;
  let folder: string | undefined;
  afterAll(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });
  return async (): Promise<string> => {
    if (bundle) return bundle;
    const { build: esbuild } = await import('esbuild');
    folder = mkdtempSync(join(repoRoot, 'node_modules', '.chatfmt-cli-test-'));
    const entry = join(folder, 'entry.ts');
    writeFileSync(entry, `import { main } from ${JSON.stringify(join(repoRoot, 'src', 'cli', 'process.ts'))};\nawait main(process.argv.slice(2));\n`);
    bundle = join(folder, 'chatfmt.mjs');
    await esbuild({ entryPoints: [entry], outfile: bundle, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'silent' });
    return bundle;
  };
}

/**
 * The `chatfmt` executable as a process, for what only a real process shows (a stdout that fails, a closed pipe).
 * src/cli/process.ts is bundled once per test file with esbuild, two folders below the checkout so the bundled
 * templates path (../../templates) still points at the repository's; dependencies stay external and resolve from
 * node_modules. The folder is removed after the file's tests.
 */
export function cliProcess(): (argv: string[], options?: { stdin?: string; stdout?: 'pipe' | number; closeStdout?: boolean; cwd?: string; env?: Record<string, string> }) => Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const build = cliBundle();
  return async (argv, options = {}) => {
    const file = await build();
    const child = spawn(process.execPath, [file, ...argv], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', options.stdout ?? 'pipe', 'pipe'],
    });
    // A reader that has gone away before the first write, as `| head -1` is after its line.
    if (options.closeStdout) child.stdout?.destroy();
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.stdin ?? '');
    const [code, signal] = await new Promise<[number | null, string | null]>((done) => child.on('close', (c, s) => done([c, s])));
    return { code, signal, out, err };
  };
}
