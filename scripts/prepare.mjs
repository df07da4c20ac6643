#!/usr/bin/env node
// npm runs `prepare` on `npm install` in a checkout, before `npm pack`, for git dependencies (after installing their
// dev dependencies) and for folder dependencies (without them). It builds dist/ only when dist/ is missing or older
// than the sources, and only with a TypeScript compiler this checkout can resolve; a folder install of a checkout
// that was built already therefore needs no compiler, and one that was never built says what to do in one line.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const packing = process.env.npm_command === 'pack' || process.env.npm_command === 'publish';

/** The newest modification time under a folder (0 when it does not exist). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function fail(message) {
  process.stderr.write(`chatfmt prepare: ${message}\n`);
  process.exit(1);
}

/** Runs one build step with this Node; a failure ends prepare with `what` and its exit status. */
function step(what, ...args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) fail(`${what} failed (exit ${result.status ?? result.signal})`);
}

const sources = Math.max(newest(join(root, 'src')), newest(join(root, 'templates')), newest(join(root, 'tsconfig.json')), newest(join(root, 'tsconfig.build.json')));
const built = existsSync(join(root, 'dist', 'index.js')) ? newest(join(root, 'dist')) : 0;
if (built >= sources) process.exit(0);

let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  if (built > 0 && !packing) {
    process.stderr.write('chatfmt prepare: dist/ is older than src/ and TypeScript is not installed here: using dist/ as it is\n');
    process.exit(0);
  }
  fail(
    `dist/ is ${built > 0 ? 'out of date' : 'missing'} and TypeScript is not installed in ${root}: run \`npm install\` there ` +
      'first (it installs the compiler and builds dist/), or install a tarball made by `npm pack`',
  );
}
// The family templates are compiled into the core as a generated module; regenerate it before compiling.
step('generating the family templates module', join(root, 'scripts', 'family-templates.mjs'));
step('the TypeScript build', tsc, '-p', join(root, 'tsconfig.build.json'));
// The library's and the CLI's bundles (dist/lib/; dist/bin/, what bin/chatfmt.js runs) and the playground page's
// script need esbuild, a dev dependency like the compiler; without it the package runs the modules tsc wrote (only
// slower to start), and `chatfmt playground` says what to run.
let esbuildFound = true;
try {
  createRequire(join(root, 'package.json')).resolve('esbuild');
} catch {
  esbuildFound = false;
  process.stderr.write('chatfmt prepare: esbuild is not installed here: the CLI runs from dist/cli/ (slower start-up)\n');
}
if (esbuildFound) {
  step('bundling the library', join(root, 'scripts', 'bundle-lib.mjs'));
  step('bundling the CLI', join(root, 'scripts', 'bundle-cli.mjs'));
  step('building the playground page', join(root, 'scripts', 'build-playground.mjs'), '--quiet');
}
