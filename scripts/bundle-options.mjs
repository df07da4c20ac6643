// What the CLI bundle (bundle-cli.mjs) and the library bundle (bundle-lib.mjs) share: code for Node 20 in files that
// sit two folders below the package (dist/bin/, dist/lib/), like the files tsc writes (dist/cli/, dist/node/), so
// paths relative to a module (../../templates/, the dataset worker) hold in either.
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

export const nodeBundleOptions = {
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  minify: true,
  // Class and function names stay: errors and stack traces name what they name in src/.
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
};
