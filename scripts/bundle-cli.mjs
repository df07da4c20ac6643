#!/usr/bin/env node
// Bundles the CLI (src/cli/process.ts) into dist/bin/: chatfmt.js plus a chunk per lazily loaded command or library
// part. Loading ~60 separate ES modules cost more start-up time than running a render (each one is resolved, stat'ed,
// read and linked on its own); a handful of bundled chunks load in a fraction of that. Dynamic imports stay chunks, so
// a command still loads only what it uses. commander is bundled in (a CommonJS package: it gets a `require`); the other
// dependencies are loaded only by commands that need them and stay in node_modules.
// bin/chatfmt.js runs dist/cli/ when dist/bin/ is missing (a dist/ built before this step existed).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { nodeBundleOptions, root } from './bundle-options.mjs';

const outdir = `${root}dist/bin`;

rmSync(outdir, { recursive: true, force: true });
try {
  await build({
    ...nodeBundleOptions,
    entryPoints: { chatfmt: 'src/cli/process.ts' },
    outdir,
    external: ['ajv', 'ajv/*', 're2js', '@huggingface/tokenizers'],
    banner: { js: "import { createRequire as chatfmtCreateRequire } from 'node:module'; const require = chatfmtCreateRequire(import.meta.url);" },
  });
} catch {
  // esbuild has printed the errors.
  process.exit(1);
}
