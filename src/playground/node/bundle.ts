// The page's script: src/playground/page/main.ts bundled with esbuild for browsers. `npm run build` (and `prepare`)
// write it to dist/playground/playground.js; a checkout whose bundle is missing or older than its sources builds it
// on demand, which needs esbuild (a dev dependency).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout or package root: the nearest folder above this module with chatfmt's package.json (this module may be compiled to dist/ or bundled elsewhere). */
export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && /"name":\s*"chatfmt"/.test(readFileSync(manifest, 'utf8'))) return dir;
    if (dirname(dir) === dir) return resolve(from, '../../..');
  }
}
export const PLAYGROUND_ENTRY = 'src/playground/page/main.ts';
export const PLAYGROUND_BUNDLE = 'dist/playground/playground.js';

/** Builds the page script; returns its text, and writes it to `outfile` when given. */
export async function buildPlaygroundBundle(root = packageRoot, outfile?: string): Promise<string> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    throw new Error(`the playground page is not built (${PLAYGROUND_BUNDLE} is missing or out of date) and esbuild is not installed to build it: run \`npm install\` (or \`npm run build\`) in ${root}`);
  }
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [PLAYGROUND_ENTRY],
    bundle: true,
    // 'browser' with no Node polyfills: a node: import reaching the page is a build error, not a broken page.
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    outfile: join(root, PLAYGROUND_BUNDLE),
  });
  const text = result.outputFiles[0]!.text;
  if (outfile) {
    await mkdir(dirname(outfile), { recursive: true });
    await writeFile(outfile, text);
  }
  return text;
}

/** The newest modification time under a folder (0 when it does not exist). */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/**
 * The script to serve: the built bundle when it is at least as new as the sources (a package has no sources), else
 * one built now. `note` says when the built one was stale and could not be rebuilt.
 */
export async function playgroundScript(root = packageRoot): Promise<{ text: string; note?: string }> {
  const built = join(root, PLAYGROUND_BUNDLE);
  const hasSources = existsSync(join(root, PLAYGROUND_ENTRY));
  const builtTime = existsSync(built) ? statSync(built).mtimeMs : 0;
  if (builtTime > 0 && (!hasSources || builtTime >= newest(join(root, 'src')))) return { text: await readFile(built, 'utf8') };
  if (!hasSources) throw new Error(`the playground page is missing (${built}): reinstall chatfmt`);
  try {
    return { text: await buildPlaygroundBundle(root) };
  } catch (error) {
    if (builtTime === 0) throw error;
    return { text: await readFile(built, 'utf8'), note: `${PLAYGROUND_BUNDLE} is older than src/ and could not be rebuilt (${(error as Error).message}); serving it as it is` };
  }
}
