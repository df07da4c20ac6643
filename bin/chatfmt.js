#!/usr/bin/env node
// The CLI as a bundled CommonJS file (dist/bin/chatfmt.cjs, scripts/bundle-cli.mjs), run with a V8 code cache kept in
// the user's cache folder (bin/code-cache.js; CHATFMT_CODE_CACHE=0 turns it off): a run starts from compiled code
// instead of parsing and compiling the CLI again. A command with a bundle of its own (dist/bin/render.cjs: that
// command alone) runs from it when it is the first word. A dist/ built without the bundle step runs from dist/cli/.
// This file and code-cache.js are CommonJS (bin/package.json): an ES module entry point would start Node's ES module
// loader, which a run of the bundle never needs otherwise.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);
const command = /^[a-z]+$/.test(argv[0] ?? '') ? argv[0] : undefined;
const bundles = join(__dirname, '..', 'dist', 'bin');
const solo = command === undefined ? undefined : join(bundles, `${command}.cjs`);
const bundle = solo !== undefined && existsSync(solo) ? solo : join(bundles, 'chatfmt.cjs');
if (existsSync(bundle)) {
  const { defaultCacheDir, loadWithCodeCache } = require('./code-cache.js');
  // Each command compiles different code: the cache learns each one's on its first run that got to work. A usage
  // error (exit 2) or an interrupted run compiled little of it, and a variant once recorded is not written again.
  const cli = loadWithCodeCache(bundle, { cacheDir: defaultCacheDir(), variant: command ?? 'other' });
  process.once('exit', (code) => {
    if (code === 0 || code === 1) cli.save();
  });
  cli.exports.main(argv);
} else {
  import('../dist/cli/process.js').then(({ main }) => main(argv));
}
