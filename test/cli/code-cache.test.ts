import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// bin/code-cache.js runs the CLI's CommonJS bundle with a V8 code cache (bin/chatfmt.js). Each run here is its own
// process, as each `chatfmt` run is: it loads a small bundle through the cache and prints what it computed and what
// happened to the cache.

const tmp = tempDir('chatfmt-code-cache-');
const driver = tmp.write(
  'driver.mjs',
  [
    `import { loadWithCodeCache } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'bin', 'code-cache.js')).href)};`,
    'const [file, cacheDir, variant] = process.argv.slice(2);',
    "const loaded = loadWithCodeCache(file, { cacheDir: cacheDir === '-' ? undefined : cacheDir, variant });",
    "process.on('exit', loaded.save);",
    'process.stdout.write(JSON.stringify({ answer: loaded.exports.answer(20), status: loaded.status }));',
  ].join('\n'),
);

function bundle(name: string, build: string | undefined, body = 'exports.answer = (n) => n * 2 + 2;'): string {
  return tmp.write(`${name}/bundle.cjs`, `${build === undefined ? '' : `// chatfmt build ${build}\n`}'use strict';\n${body}\n`);
}

function run(file: string, cacheDir: string, variant = 'render'): { answer: number; status: string } {
  const result = spawnSync(process.execPath, [driver, file, cacheDir, variant], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as { answer: number; status: string };
}

const cacheFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.v8')) : []);
const header = (path: string) => JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!) as { variants: string[] };

describe('the CLI code cache', () => {
  it('a first run writes the cache, the next runs use it', () => {
    const file = bundle('a', '0123456789abcdef0123456789abcdef');
    const dir = join(tmp.path, 'cache-a');
    expect(run(file, dir)).toEqual({ answer: 42, status: 'missing' });
    expect(cacheFiles(dir)).toHaveLength(1);
    expect(run(file, dir)).toEqual({ answer: 42, status: 'used' });
    expect(run(file, dir)).toEqual({ answer: 42, status: 'used' });
  });

  it('a run of a new variant adds it to the cache; a known one leaves the file as it is', () => {
    const file = bundle('b', '1123456789abcdef0123456789abcdef');
    const dir = join(tmp.path, 'cache-b');
    run(file, dir, 'render');
    const path = join(dir, cacheFiles(dir)[0]!);
    expect(header(path).variants).toEqual(['render']);
    run(file, dir, 'parse');
    expect(header(path).variants).toEqual(['render', 'parse']);
    const before = readFileSync(path);
    expect(run(file, dir, 'render')).toEqual({ answer: 42, status: 'used' });
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a damaged cache file is not used, the code runs, and the file is replaced', () => {
    const file = bundle('c', '2123456789abcdef0123456789abcdef');
    const dir = join(tmp.path, 'cache-c');
    run(file, dir);
    const path = join(dir, cacheFiles(dir)[0]!);
    const garbage = Buffer.alloc(4000, 7);
    // A well-formed header over data that is not V8's: V8 rejects it.
    writeFileSync(path, Buffer.concat([Buffer.from(`${JSON.stringify({ magic: 'chatfmt-code-cache-1', variants: ['render'], length: garbage.length })}\n`), garbage]));
    expect(run(file, dir)).toEqual({ answer: 42, status: 'rejected' });
    expect(run(file, dir)).toEqual({ answer: 42, status: 'used' });
    // Cut short, or not a cache file at all: read as no cache.
    const whole = readFileSync(path);
    writeFileSync(path, whole.subarray(0, whole.length - 10));
    expect(run(file, dir)).toEqual({ answer: 42, status: 'missing' });
    writeFileSync(path, 'not a cache');
    expect(run(file, dir)).toEqual({ answer: 42, status: 'missing' });
    expect(run(file, dir)).toEqual({ answer: 42, status: 'used' });
  });

  it('a new build does not use the old build\'s cache; two builds used in turn keep both caches', () => {
    const dir = join(tmp.path, 'cache-d');
    const old = bundle('d', '3123456789abcdef0123456789abcdef');
    run(old, dir);
    // The same length, other code: V8 alone would not tell them apart.
    const rebuilt = bundle('d2', '4123456789abcdef0123456789abcdef', 'exports.answer = (n) => n * 3 + 2;');
    expect(run(rebuilt, dir)).toEqual({ answer: 62, status: 'missing' });
    expect(cacheFiles(dir)).toHaveLength(2);
    // A global install and a project's, run one after the other: neither evicts the other's cache.
    expect(run(old, dir)).toEqual({ answer: 42, status: 'used' });
    expect(run(rebuilt, dir)).toEqual({ answer: 62, status: 'used' });
  });

  it('keeps the four most recently written builds of a bundle; older ones are removed', () => {
    const dir = join(tmp.path, 'cache-h');
    const builds = ['a', 'b', 'c', 'd', 'e'].map((letter, i) => bundle(`h${i}`, `${letter.repeat(4)}456789abcdef0123456789abcdef`));
    const names: string[] = [];
    for (const file of builds) {
      const before = new Set(cacheFiles(dir));
      run(file, dir);
      names.push(cacheFiles(dir).find((name) => !before.has(name)) ?? '');
    }
    expect(cacheFiles(dir).sort()).toEqual(names.slice(1).sort());
    expect(run(builds[0]!, dir).status).toBe('missing');
    expect(run(builds[4]!, dir).status).toBe('used');
  });

  it('runs uncached, writing nothing, without a build line or a cache folder, or when the folder cannot be made', () => {
    const dir = join(tmp.path, 'cache-e');
    expect(run(bundle('e', undefined), dir)).toEqual({ answer: 42, status: 'off' });
    expect(cacheFiles(dir)).toEqual([]);
    expect(run(bundle('f', '5123456789abcdef0123456789abcdef'), '-')).toEqual({ answer: 42, status: 'off' });
    // A regular file where the folder would be (works whatever the user's permissions, root included).
    const blocked = tmp.write('blocked', '');
    expect(run(bundle('g', '6123456789abcdef0123456789abcdef'), join(blocked, 'chatfmt'))).toEqual({ answer: 42, status: 'missing' });
    expect(existsSync(join(blocked, 'chatfmt'))).toBe(false);
  });
});

describe('where the CLI keeps its code cache', () => {
  it('$XDG_CACHE_HOME/chatfmt when that is an absolute path, else ~/.cache/chatfmt; none with CHATFMT_CODE_CACHE=0', async () => {
    const url = pathToFileURL(join(repoRoot, 'bin', 'code-cache.js')).href;
    const { defaultCacheDir } = (await import(url)) as { defaultCacheDir: (env: Record<string, string>) => string | undefined };
    const { homedir } = await import('node:os');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/var/cache/me' })).toBe('/var/cache/me/chatfmt');
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'relative/cache' })).toBe(join(homedir(), '.cache', 'chatfmt'));
    expect(defaultCacheDir({})).toBe(join(homedir(), '.cache', 'chatfmt'));
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/var/cache/me', CHATFMT_CODE_CACHE: '0' })).toBeUndefined();
  });
});
