#!/usr/bin/env node
// The CLI as one bundled CommonJS file (dist/bin/chatfmt.cjs, scripts/bundle-cli.mjs), run with a V8 code cache kept
// in the user's cache folder (bin/code-cache.js; CHATFMT_CODE_CACHE=0 turns it off): a run starts from compiled code
// instead of parsing and compiling the CLI again. A dist/ built without the bundle step runs from dist/cli/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultCacheDir, loadWithCodeCache } from './code-cache.js';

const argv = process.argv.slice(2);
const bundle = fileURLToPath(new URL('../dist/bin/chatfmt.cjs', import.meta.url));
let main;
if (existsSync(bundle)) {
  // Each command compiles different code: the cache learns each one's on its first run.
  const variant = /^[a-z]+$/.test(argv[0] ?? '') ? argv[0] : 'other';
  const cli = loadWithCodeCache(bundle, { cacheDir: defaultCacheDir(), variant });
  process.once('exit', cli.save);
  main = cli.exports.main;
} else {
  ({ main } = await import('../dist/cli/process.js'));
}
await main(argv);
