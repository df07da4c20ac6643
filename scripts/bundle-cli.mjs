#!/usr/bin/env node
// Bundles the CLI (src/cli/process.ts) into one CommonJS file, dist/bin/chatfmt.cjs, which bin/chatfmt.js runs with a
// V8 code cache (bin/code-cache.js): Node 20 can cache compiled code for a vm.Script, not for ES modules, and parsing
// and compiling the CLI's code was most of what a `chatfmt render` of one row cost over `node -e 0`. One file rather
// than ~60 separate modules also spares resolving, reading and linking each. Code behind a dynamic import (a command's
// action) is still only run, and so only compiled, when it is used. commander is bundled in; the other dependencies
// are loaded only by commands that need them and stay in node_modules. The file's first line names the build (a hash
// of its content), which keys the code cache. bin/chatfmt.js runs dist/cli/ when dist/bin/ is missing (a dist/ built
// without esbuild).
//
// The commands run most often, one row at a time from scripts (SOLO_COMMANDS), also get a bundle of their own,
// dist/bin/<command>.cjs, holding that command and nothing of the others: bin/chatfmt.js runs it when the command is
// the first word, as the full CLI would then register that command alone anyway. Half the code to read, and a code
// cache of its own to read and deserialise, each run.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { familyTemplatesKnownAhead, nodeBundleOptions, root } from './bundle-options.mjs';

// `--outdir DIR` (tests) writes elsewhere: DIR must sit two folders below a folder holding templates/, as dist/bin/ does.
const outdirFlag = process.argv.indexOf('--outdir');
const outdir = outdirFlag > 0 ? resolve(process.argv[outdirFlag + 1]) : `${root}dist/bin`;
/** Commands with a bundle of their own (see above); the name is the file's, dist/bin/<command>.cjs. */
const SOLO_COMMANDS = ['render'];

// commander requires node:child_process (and with it net and dgram) at load, for executable subcommands, which chatfmt
// has none of: every run paid for loading it. Its one use, spawn, now loads it when called.
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

/**
 * A one-command bundle: the command table (src/cli/commands/index.ts) imports every other command's module from this
 * stand-in instead, so none of their code is in the file. bin/chatfmt.js never runs it for another command.
 */
const onlyCommand = (command) => ({
  name: 'only-command',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/[a-z-]+\.js$/ }, ({ path, importer }) =>
      /[\\/]src[\\/]cli[\\/]commands[\\/]index\.ts$/.test(importer) && path !== `./${command}.js` ? { path, namespace: 'other-command' } : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'other-command' }, ({ path }) => ({
      contents: `export const register = () => { throw new Error(${JSON.stringify(`${path} is not in the ${command} bundle`)}); };`,
      loader: 'js',
    }));
  },
});

/** Bundles the CLI into dist/bin/<name>.cjs, its first line naming the build. */
async function bundle(name, plugins) {
  const outfile = `${outdir}/${name}.cjs`;
  await build({
    ...nodeBundleOptions,
    entryPoints: ['src/cli/process.ts'],
    outfile,
    splitting: false,
    format: 'cjs',
    external: ['ajv', 'ajv/*', 're2js', '@huggingface/tokenizers', 'esbuild'],
    // The sources are ES modules: strict, and locating files beside them by import.meta.url.
    banner: { js: "'use strict'; const chatfmtModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { 'import.meta.url': 'chatfmtModuleUrl' },
    // bin/code-cache.js runs the bundle as a vm.Script, which has no ES module loader behind it: an import() left in
    // the file (a built-in module or a dependency loaded on first use: node:zlib for gzip input, node:stream, esbuild)
    // failed with "A dynamic import callback was not specified". Lowered, each is a require() behind a promise.
    supported: { 'dynamic-import': false },
    plugins: [commanderSpawnOnUse, knownAhead, ...plugins],
  });
  const code = readFileSync(outfile, 'utf8');
  writeFileSync(outfile, `// chatfmt build ${createHash('sha256').update(code).digest('hex').slice(0, 32)}\n${code}`);
}

rmSync(outdir, { recursive: true, force: true });
let knownAhead;
try {
  // `--without-known-ahead`: a build that parses and probes the family templates at run time, as before it
  // (bench/startup-forms.mjs compares the two).
  knownAhead = process.argv.includes('--without-known-ahead') ? { name: 'nothing-known-ahead', setup() {} } : await familyTemplatesKnownAhead(outdir);
  await bundle('chatfmt', []);
  for (const command of SOLO_COMMANDS) await bundle(command, [onlyCommand(command)]);
} catch {
  // esbuild has printed the errors.
  process.exit(1);
}
