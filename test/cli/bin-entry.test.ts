import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { render } from '../../src/index.js';
import { repoRoot } from '../helpers/shared.js';

// Issue 18 (start-up): what `chatfmt` (bin/chatfmt.js) does before the command runs. It is CommonJS, so a run never
// starts Node's ES module loader, and `chatfmt render` runs dist/bin/render.cjs, a bundle of that command alone, with
// a code cache of its own. Checked in real processes on a package laid out as npm installs it: bin/, dist/bin/ built
// by scripts/bundle-cli.mjs, templates/.

let pkg = '';
let cacheHome = '';
const weather = join(repoRoot, 'fixtures', 'conversations', 'weather.json');

beforeAll(() => {
  // Inside node_modules, so the bundles' external dependencies resolve as they do in an installed package.
  pkg = mkdtempSync(join(repoRoot, 'node_modules', '.chatfmt-bin-test-'));
  cacheHome = join(pkg, 'cache');
  cpSync(join(repoRoot, 'bin'), join(pkg, 'bin'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'chatfmt', type: 'module' }));
  symlinkSync(join(repoRoot, 'templates'), join(pkg, 'templates'));
  // Written to descriptor 2 directly: process.stderr, for a pipe, would itself load node:net.
  writeFileSync(join(pkg, 'loaded.cjs'), "process.on('exit', () => require('node:fs').writeSync(2, `\\nLOADED ${JSON.stringify(process.moduleLoadList)}\\n`));\n");
  writeFileSync(join(pkg, 'empty.cjs'), '');
  const built = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'bundle-cli.mjs'), '--outdir', join(pkg, 'dist', 'bin')], { cwd: repoRoot, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bundle-cli failed: ${built.stderr}`);
}, 120_000);

afterAll(() => {
  if (pkg) rmSync(pkg, { recursive: true, force: true });
});

/** Runs `node <script> argv` with the module-list hook; returns exit code, stdout, and Node's internal modules loaded. */
function node(script: string, argv: string[], input = '') {
  const result = spawnSync(process.execPath, ['-r', join(pkg, 'loaded.cjs'), script, ...argv], {
    cwd: repoRoot,
    input,
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cacheHome, CHATFMT_CODE_CACHE: '' },
  });
  const marker = result.stderr.lastIndexOf('\nLOADED ');
  const loaded = JSON.parse(result.stderr.slice(marker + '\nLOADED '.length)) as string[];
  return { code: result.status, out: result.stdout, err: result.stderr.slice(0, marker), loaded };
}

const chatfmt = (argv: string[], input = '') => node(join(pkg, 'bin', 'chatfmt.js'), argv, input);
const cacheFiles = () => readdirSync(join(cacheHome, 'chatfmt')).filter((name) => name.endsWith('.v8'));
const esmLoader = (loaded: string[]) => loaded.filter((name) => name.startsWith('NativeModule internal/modules/esm/'));

describe('the chatfmt executable', () => {
  it('starts no ES module loader: it loads no more of it than an empty CommonJS program', () => {
    const baseline = esmLoader(node(join(pkg, 'empty.cjs'), []).loaded);
    for (const argv of [['--version'], ['render', '--family', 'qwen3', weather]]) {
      const { code, loaded } = chatfmt(argv);
      expect(code).toBe(0);
      expect(esmLoader(loaded).filter((name) => !baseline.includes(name))).toEqual([]);
    }
  });

  it('reads a small input file in one call: no file stream, no promise-based fs, no thread pool started for it', () => {
    const { code, out, loaded } = chatfmt(['render', '--family', 'qwen3', weather]);
    expect(code).toBe(0);
    expect(out).toContain('<|im_start|>assistant');
    expect(loaded.filter((name) => /internal\/fs\/(streams|promises)$/.test(name))).toEqual([]);
  });

  it('writes a render to a pipe without creating process.stdout (for a pipe it loads node:net) or loading node:stream', () => {
    const { code, out, err, loaded } = chatfmt(['render', '--family', 'qwen3', weather]);
    expect([code, err]).toEqual([0, '']);
    expect(out).toBe(render({ family: 'qwen3', ...JSON.parse(readFileSync(weather, 'utf8')) }).text);
    expect(loaded.filter((name) => ['NativeModule net', 'NativeModule tty', 'NativeModule stream'].includes(name))).toEqual([]);
  });

  it('runs what the bundle loads on first use (gzip input, an -o file): an import() there failed under the code cache', () => {
    const rows = ['hello', 'again'].map((text) => JSON.stringify({ messages: [{ role: 'user', content: text }] }));
    const input = join(pkg, 'rows.jsonl.gz');
    writeFileSync(input, gzipSync(`${rows.join('\n')}\n`));
    const output = join(pkg, 'prompts.jsonl');
    const { code, err } = chatfmt(['render', '--family', 'qwen3', input, '-o', output]);
    expect([code, err]).toEqual([0, '']);
    const texts = rows.map((row) => render({ family: 'qwen3', ...JSON.parse(row) }).text);
    expect(readFileSync(output, 'utf8')).toBe(texts.map((text) => `${JSON.stringify({ text })}\n`).join(''));
  });

  it('`render` runs the render bundle with its own code cache; other commands run the whole CLI', () => {
    rmSync(join(cacheHome, 'chatfmt'), { recursive: true, force: true });
    expect(chatfmt(['render', '--family', 'qwen3', weather]).code).toBe(0);
    expect(cacheFiles().map((name) => name.split('-')[0])).toEqual(['render.cjs']);
    expect(chatfmt(['families']).code).toBe(0);
    expect(cacheFiles().map((name) => name.split('-')[0]).sort()).toEqual(['chatfmt.cjs', 'render.cjs']);
  });

  it('a run that ends in a usage error (exit 2) writes no cache: the next run that gets to work records its code', () => {
    rmSync(join(cacheHome, 'chatfmt'), { recursive: true, force: true });
    const refused = chatfmt(['render', '--family', 'no-such-family', weather]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^chatfmt: /);
    expect(existsSync(join(cacheHome, 'chatfmt')) ? cacheFiles() : []).toEqual([]);
    expect(chatfmt(['render', '--family', 'qwen3', weather]).code).toBe(0);
    const [file] = cacheFiles();
    expect(JSON.parse(readFileSync(join(cacheHome, 'chatfmt', file!), 'utf8').split('\n')[0]!)).toMatchObject({ variants: ['render'] });
  });

  it('the render bundle holds the render command alone, at most 60% of the whole CLI', () => {
    const size = (name: string) => statSync(join(pkg, 'dist', 'bin', name)).size;
    expect(size('render.cjs')).toBeLessThan(size('chatfmt.cjs') * 0.6);
  });

  it('prints what the CLI prints in-process, for render and its help', async () => {
    const input = '{"messages": [{"role": "user", "content": "hi"}]}';
    for (const argv of [['render', '--family', 'qwen3', '-g', '-'], ['render', '--help'], ['render', '--family', 'nosuch', '-'], ['--version']]) {
      const io = memoryIO(input);
      const code = await run(argv, io);
      expect(chatfmt(argv, input), argv.join(' ')).toMatchObject({ code, out: io.out(), err: io.err() });
    }
  });
});
