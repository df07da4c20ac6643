// `chatfmt/ai-sdk` is an optional subpath: the AI SDK packages are optional peers, nothing else in chatfmt reaches
// them, and the subpath itself needs neither at runtime (type imports only) nor any Node API (it runs on edge runtimes).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

const AI_SDK = /^(ai|@ai-sdk\/[^/]+)(\/|$)/;

/** Every module path a bundle of `entry` imports, packages left external so they show as bare specifiers. */
async function importsOf(entry: string, platform: 'node' | 'browser'): Promise<{ inputs: string[]; external: string[]; code: string }> {
  const result = await build({ absWorkingDir: repoRoot, entryPoints: [entry], bundle: true, write: false, metafile: true, platform, format: 'esm', packages: 'external', logLevel: 'silent' });
  const meta: Metafile = result.metafile!;
  const external = Object.values(meta.inputs).flatMap((input) => input.imports.filter((imported) => imported.external).map((imported) => imported.path));
  return { inputs: Object.keys(meta.inputs), external: [...new Set(external)], code: result.outputFiles![0]!.text };
}

describe('the ai-sdk subpath', () => {
  it('is exported, with the AI SDK as optional peer dependencies kept for development', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    expect(pkg.exports['./ai-sdk']).toEqual({ types: './dist/ai-sdk/index.d.ts', import: './dist/ai-sdk/index.js' });
    for (const name of ['ai', '@ai-sdk/provider']) {
      expect(pkg.peerDependencies[name]).toBeTypeOf('string');
      expect(pkg.peerDependenciesMeta[name]).toEqual({ optional: true });
      expect(pkg.devDependencies[name]).toBeTypeOf('string');
      expect(pkg.dependencies[name]).toBeUndefined();
    }
  });

  it.each([
    ['src/index.ts', 'node'],
    ['src/core.ts', 'browser'],
    ['src/gateway/index.ts', 'node'],
  ] as const)('%s never reaches the AI SDK or src/ai-sdk', async (entry, platform) => {
    const { inputs, external } = await importsOf(entry, platform);
    expect(inputs.length).toBeGreaterThan(10);
    expect(inputs.filter((input) => input.startsWith('src/ai-sdk/'))).toEqual([]);
    expect(external.filter((path) => AI_SDK.test(path))).toEqual([]);
  });

  it('loads nothing from the AI SDK at runtime and bundles for the browser without Node APIs', async () => {
    const { inputs, external, code } = await importsOf('src/ai-sdk/index.ts', 'browser');
    expect(inputs).toContain('src/ai-sdk/provider.ts');
    expect(inputs).toContain('src/gateway/core/session.ts');
    expect(inputs.filter((input) => input.startsWith('src/gateway/node/') || input.startsWith('src/node/') || input.startsWith('src/cli/'))).toEqual([]);
    expect(external.filter((path) => AI_SDK.test(path) || path.startsWith('node:'))).toEqual([]);
    expect(code).not.toMatch(/\bprocess\.|\bBuffer\b|["']node:/);
  });

  it('is checked by tsconfig.core.json, the no-Node type check', () => {
    const config = JSON.parse(readFileSync(join(repoRoot, 'tsconfig.core.json'), 'utf8'));
    expect(config.files).toContain('src/ai-sdk/index.ts');
    expect(config.compilerOptions.types).toEqual([]);
  });
});
