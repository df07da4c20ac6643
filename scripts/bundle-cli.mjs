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

// commander requires node:child_process (and with it net, dgram and streams) at load, for executable subcommands,
// which chatfmt has none of: every run paid for loading it. Its one use, spawn, now loads it when called.
const commanderSpawnOnUse = {
  name: 'commander-spawn-on-use',
  setup(builder) {
    builder.onResolve({ filter: /^node:child_process$/ }, ({ importer }) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(importer) ? { path: 'child_process', namespace: 'spawn-on-use' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'spawn-on-use' }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};
// commander is CommonJS and needs `require`; created on its first call, so chunks that never call it pay nothing.
const requireOnUse = [
  "import { createRequire as chatfmtCreateRequire } from 'node:module';",
  'let chatfmtRequire;',
  'const require = (id) => (chatfmtRequire ??= chatfmtCreateRequire(import.meta.url))(id);',
].join(' ');

rmSync(outdir, { recursive: true, force: true });
try {
  await build({
    ...nodeBundleOptions,
    entryPoints: { chatfmt: 'src/cli/process.ts' },
    outdir,
    external: ['ajv', 'ajv/*', 're2js', '@huggingface/tokenizers'],
    banner: { js: requireOnUse },
    plugins: [commanderSpawnOnUse],
  });
} catch {
  // esbuild has printed the errors.
  process.exit(1);
}
