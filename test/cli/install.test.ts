import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 16 §1: `npm install /path/to/clone` failed with "tsc: not found", because prepare ran without dev dependencies.
const npmWorks = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };

function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...env } });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** The runtime dependencies and theirs, as the lockfile places them: enough to install offline beside the tarball. */
function runtimePackages(): string[] {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev && !entry.devOptional)
    .map(([path]) => path);
}

describe('prepare', () => {
  const dir = tempDir('chatfmt-prepare-');
  const run = () => sh(process.execPath, [join(dir.path, 'scripts', 'prepare.mjs')], dir.path);

  it('a checkout with no dist/ and no TypeScript fails with one line saying what to do', () => {
    mkdirSync(join(dir.path, 'scripts'), { recursive: true });
    cpSync(join(repoRoot, 'scripts', 'prepare.mjs'), join(dir.path, 'scripts', 'prepare.mjs'));
    dir.write('package.json', '{"name": "x", "type": "module"}');
    dir.write('src/index.ts', 'export const x = 1;\n');
    const result = run();
    expect(result.code).toBe(1);
    expect(result.err).toBe(`chatfmt prepare: dist/ is missing and TypeScript is not installed in ${dir.path}: run \`npm install\` there first (it installs the compiler and builds dist/), or install a tarball made by \`npm pack\`\n`);
  });

  it('a built checkout installs as it is, with no compiler', () => {
    const index = dir.write('dist/index.js', 'export const x = 1;\n');
    const later = new Date(Date.now() + 60_000);
    utimesSync(index, later, later);
    expect(run()).toMatchObject({ code: 0, err: '' });
  });
});

describe.skipIf(!npmWorks)('installing chatfmt into a project', () => {
  const dir = tempDir('chatfmt-install-');

  it('npm pack, then an offline install of the tarball gives a working `npx chatfmt`', () => {
    const packed = sh('npm', ['pack', '--silent', '--pack-destination', dir.path], repoRoot);
    expect(packed.code, packed.err).toBe(0);
    const tarball = join(dir.path, packed.out.trim().split('\n').pop()!);
    const listing = sh('tar', ['tzf', tarball], dir.path).out.split('\n');
    expect(listing).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/lib/index.js', 'package/dist/cli/main.js', 'package/dist/bin/chatfmt.cjs', 'package/bin/chatfmt.js', 'package/bin/code-cache.js', 'package/bin/package.json', 'package/dist/bin/render.cjs', 'package/templates/qwen3.jinja']));
    expect(listing.some((path) => path.startsWith('package/src/') || path.startsWith('package/test/'))).toBe(false);

    // No network in tests: the runtime dependencies are put in place first, so npm resolves them from disk.
    const project = join(dir.path, 'project');
    for (const path of runtimePackages()) cpSync(join(repoRoot, path), join(project, path), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    const installed = sh('npm', ['install', '--offline', tarball], project);
    expect(installed.code, installed.err).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies.chatfmt).toMatch(/chatfmt-.*\.tgz$/);

    const version = sh('npx', ['--offline', 'chatfmt', '--version'], project);
    expect([version.code, version.out.trim()]).toEqual([0, manifest.version]);
    const rendered = spawnSync('npx', ['--offline', 'chatfmt', 'render', '--family', 'qwen3', '-'], { cwd: project, encoding: 'utf8', input: '{"messages": [{"role": "user", "content": "hi"}]}' });
    expect([rendered.status, rendered.stdout]).toEqual([0, '<|im_start|>user\nhi<|im_end|>\n']);
  }, 600_000);
});
