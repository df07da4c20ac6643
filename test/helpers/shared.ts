import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** ../shared beside the checkout: reference data that CI provides; suites skip without it. */
export const sharedDir = resolve(repoRoot, '..', 'shared');
export const hasShared = existsSync(join(sharedDir, 'templates', 'official'));

export function officialTemplates(): Array<{ dir: string; stem: string; path: string }> {
  const root = join(sharedDir, 'templates', 'official');
  if (!existsSync(root)) return [];
  return readdirSync(root).sort().flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((file) => file.endsWith('.jinja'))
      .sort()
      .map((file) => ({ dir, stem: file.slice(0, -'.jinja'.length), path: join(root, dir, file) })),
  );
}

export function sharedInputs(): Array<{ stem: string; path: string }> {
  const root = join(sharedDir, 'templates', 'inputs');
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((f) => f.endsWith('.json')).sort().map((f) => ({ stem: f.slice(0, -5), path: join(root, f) }));
}

/**
 * A value computed on first use and kept. Suites that read ../shared build their data with it: vitest runs a
 * `describe.skipIf` body while collecting even when the suite is skipped, so reads there would crash a clone without it.
 */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
