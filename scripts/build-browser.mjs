#!/usr/bin/env node
// Bundles the core (src/core.ts) for browsers, Web Workers and edge runtimes:
//   chatfmt.js       ESM: <script type="module">, module Workers, edge runtimes, bundlers
//   chatfmt.iife.js  a classic script that sets globalThis.chatfmt: importScripts() in classic Workers, vm contexts
// platform 'browser' with no Node polyfills makes any node: import in the core a build error. Prints the sizes.
// Usage: node scripts/build-browser.mjs [--outdir DIR] [--json] [--entry FILE (another entry, for the build's own tests)]
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const outdirAt = argv.indexOf('--outdir');
const outdir = outdirAt >= 0 ? argv[outdirAt + 1] : root + 'dist/browser';
const entryAt = argv.indexOf('--entry');
const entry = entryAt >= 0 ? argv[entryAt + 1] : 'src/core.ts';

const common = {
  absWorkingDir: root,
  entryPoints: [entry],
  bundle: true,
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};

try {
  const esm = await build({ ...common, format: 'esm', outfile: `${outdir}/chatfmt.js` });
  await build({ ...common, format: 'iife', globalName: 'chatfmt', outfile: `${outdir}/chatfmt.iife.js` });
  const outside = Object.keys(esm.metafile.inputs).filter((input) => !input.startsWith('src/') || /^src\/(cli|node|readers|validate|convert)\//.test(input));
  if (outside.length > 0) {
    console.error(`build-browser: the core pulls in modules that are not core: ${outside.join(', ')}`);
    process.exit(1);
  }
  const sizes = {};
  for (const file of ['chatfmt.js', 'chatfmt.iife.js']) {
    const bytes = readFileSync(`${outdir}/${file}`);
    sizes[file] = { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  if (argv.includes('--json')) {
    console.log(JSON.stringify({ outdir, sizes, inputs: Object.keys(esm.metafile.inputs) }));
  } else {
    for (const [file, size] of Object.entries(sizes)) {
      console.log(`${outdir}/${file}: ${(size.bytes / 1024).toFixed(0)} KB, ${(size.gzip / 1024).toFixed(0)} KB gzipped`);
    }
  }
} catch (error) {
  // esbuild has already printed each error (e.g. a node: import it cannot resolve for the browser).
  console.error(`build-browser: ${error.message.split('\n')[0]}`);
  process.exit(1);
}
