// Runs a CommonJS bundle with a V8 code cache, so a process does not parse and compile the same code again each time
// it starts (Node 20 has no module.enableCompileCache; vm.Script's cachedData is what it offers). The cache is an
// optimisation only: a missing, stale, foreign or damaged cache file, or a cache folder that cannot be written (a
// read-only home, a sandbox), makes a run compile as if there were no cache, never fail.
//
// One file per build of the bundle (its first line, `// chatfmt build <id>`, names the build: bundle-cli.mjs writes it
// from the bundle's content hash), Node version and architecture, in the user's cache folder; a source without that
// line runs uncached. V8 checks the data against its own version and flags and rejects what does not match (it checks
// only the source's length, hence the build id). The file holds the code that the runs which wrote it compiled: a run
// whose `variant` (the CLI's command) is not yet among the file's writes it again, now with what that command
// compiled as well. A file is replaced whole (a temporary file renamed), never written in place, and writing one
// removes the bundle's files past the KEEP_BUILDS most recently written: two installs used side by side (a global one
// and a project's) each keep their cache instead of evicting each other's on every run.
//
// CommonJS (bin/package.json), as bin/chatfmt.js is: an ES module entry point costs every run Node's ES module loader.
'use strict';
const { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } = require('node:fs');
const { basename, dirname, isAbsolute, join } = require('node:path');
const { Script } = require('node:vm');
// Module.createRequire, without require('node:module'): that public module loads the ES module loader.
const { createRequire } = module.constructor;

const MAGIC = 'chatfmt-code-cache-1';
/** Variants a cache file records at most; past that it is not rewritten for new ones (a misspelt command, say). */
const MAX_VARIANTS = 16;
/** Cache files of one bundle kept, newest first: builds and Node versions in use on this machine at once. */
const KEEP_BUILDS = 4;

/** The default cache folder: $XDG_CACHE_HOME/chatfmt or ~/.cache/chatfmt; undefined when CHATFMT_CODE_CACHE=0. */
function defaultCacheDir(env = process.env) {
  if (env.CHATFMT_CODE_CACHE === '0') return undefined;
  // The XDG spec ignores a relative path; so does this, rather than write into the working folder.
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'chatfmt');
  try {
    // os.homedir() answers $HOME when it is set; node:os is loaded only when it is not.
    return join(env.HOME || require('node:os').homedir(), '.cache', 'chatfmt');
  } catch {
    // No home folder (a user without a passwd entry): no cache.
    return undefined;
  }
}

/**
 * Loads `file` (CommonJS) with the code cache in `cacheDir` (none when undefined). Returns its exports and `save`,
 * which writes the cache when this run has something to add; call it after the run, when the code it needed is
 * compiled. `status` says what happened to the cache: 'off', 'missing', 'rejected' or 'used'.
 */
function loadWithCodeCache(file, { cacheDir, variant = 'default' } = {}) {
  const source = readFileSync(file, 'utf8');
  const name = cacheDir === undefined ? undefined : cacheName(file, source);
  const cacheFile = name === undefined ? undefined : join(cacheDir, name);
  const cached = cacheFile === undefined ? undefined : readCache(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData: cached?.data,
  });
  const status = cacheFile === undefined ? 'off' : cached === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used';
  const loaded = { exports: {} };
  script.runInThisContext()(loaded.exports, createRequire(file), loaded, file, dirname(file));

  const known = status === 'used' ? cached.variants : [];
  const save = () => {
    if (cacheFile === undefined || known.includes(variant) || (status === 'used' && known.length >= MAX_VARIANTS)) return;
    let data;
    try {
      data = script.createCachedData();
    } catch {
      return;
    }
    writeCache(cacheFile, `${basename(file)}-`, [...known, variant], data);
  };
  return { exports: loaded.exports, save, status };
}

const BUILD_LINE = /^\/\/ chatfmt build ([0-9a-f]{16,64})\n/;

/** The cache file's name for this build of `file` on this runtime; undefined when the source names no build. */
function cacheName(file, source) {
  const build = BUILD_LINE.exec(source.slice(0, 100))?.[1];
  return build === undefined ? undefined : `${basename(file)}-${build}-${process.version}-${process.arch}.v8`;
}

/** { variants, data } from a cache file, or undefined when it is missing or not one this code wrote. */
function readCache(cacheFile) {
  let bytes;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const headerEnd = bytes.indexOf(0x0a);
  if (headerEnd < 0 || headerEnd > 4096) return undefined;
  try {
    const header = JSON.parse(bytes.subarray(0, headerEnd).toString('utf8'));
    if (header.magic !== MAGIC || !Array.isArray(header.variants) || header.length !== bytes.length - headerEnd - 1) return undefined;
    return { variants: header.variants.filter((v) => typeof v === 'string'), data: bytes.subarray(headerEnd + 1) };
  } catch {
    return undefined;
  }
}

function writeCache(cacheFile, prefix, variants, data) {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    const header = Buffer.from(`${JSON.stringify({ magic: MAGIC, variants, length: data.length })}\n`);
    writeFileSync(temporary, Buffer.concat([header, data]), { mode: 0o600 });
    renameSync(temporary, cacheFile);
    removeOldBuilds(cacheFile, prefix);
  } catch {
    // No cache this time: the next run compiles again.
    try {
      unlinkSync(temporary);
    } catch {
      // It was never written.
    }
  }
}

/**
 * Cache files of the same bundle from other builds or runtimes beyond the KEEP_BUILDS most recently written (this one
 * among them): left behind, one per build, they would only grow.
 */
function removeOldBuilds(cacheFile, prefix) {
  const dir = dirname(cacheFile);
  const others = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix) || !name.endsWith('.v8') || name === basename(cacheFile)) continue;
    try {
      others.push({ name, written: statSync(join(dir, name)).mtimeMs });
    } catch {
      // Another run removed it.
    }
  }
  others.sort((a, b) => b.written - a.written);
  for (const { name } of others.slice(KEEP_BUILDS - 1)) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      // Another run removed it, or it is not ours to remove.
    }
  }
}

exports.defaultCacheDir = defaultCacheDir;
exports.loadWithCodeCache = loadWithCodeCache;
