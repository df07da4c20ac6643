#!/usr/bin/env node
// Writes the playground page's script (dist/playground/playground.js) with the same build the CLI falls back to,
// from the compiled dist/playground/node/bundle.js: run it after tsc (`npm run build` and `prepare` do).
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
try {
  const { buildPlaygroundBundle, PLAYGROUND_BUNDLE } = await import('../dist/playground/node/bundle.js');
  const text = await buildPlaygroundBundle(root, root + PLAYGROUND_BUNDLE);
  if (!process.argv.includes('--quiet')) console.log(`${PLAYGROUND_BUNDLE}: ${(text.length / 1024).toFixed(0)} KB`);
} catch (error) {
  console.error(`build-playground: ${String(error?.message ?? error).split('\n')[0]}`);
  process.exit(1);
}
