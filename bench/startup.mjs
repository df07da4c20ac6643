// Start-up: what a `chatfmt` process costs before and around its first render, against `node -e 0` and against
// Python + jinja2 doing the same first render. Run as `node bench/startup.mjs --first-render ENTRY TEMPLATE ROW.json`
// it is the Node side of the first-render comparison (ENTRY: index.js or render-entry.js under dist/; prints the
// in-process milliseconds).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { transformSync } from 'esbuild';
import { fmt, hasShared, median, root, shared, table } from './lib.mjs';
import { loadAverage, timeInterleaved, timeProcess } from './processes.mjs';
import { parsedFormsRow } from './startup-forms.mjs';

if (process.argv[2] === '--first-render') {
  // Timed from here: importing chatfmt as a program would (`from 'chatfmt'` or `from 'chatfmt/render'`), building the
  // template, rendering.
  const started = performance.now();
  const { compileTemplate, parsePythonJson } = await import(pathToFileURL(join(root, 'dist', process.argv[3])).href);
  const template = compileTemplate(readFileSync(process.argv[4], 'utf8'));
  const { messages, tools = null, documents = null, add_generation_prompt = false, ...rest } = parsePythonJson(readFileSync(process.argv[5], 'utf8'));
  template.render({ ...rest, messages, tools, documents, add_generation_prompt }, { now: new Date('2025-01-15T12:00:00Z') });
  process.stdout.write(`${(performance.now() - started).toFixed(2)}\n`);
  process.exit(0);
}

const bin = join(root, 'bin', 'chatfmt.js');
const pythonDriver = join(root, 'bench', 'jinja2-render-file.py');
/** The Unicode property classes src/jinja/repr.ts and src/jinja/methods.ts built at load before issue 18. */
const UNICODE_CLASSES = ['[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}\\p{Zs}]', '^\\p{L}$', '^\\p{Nd}$', '^\\p{N}$'];

export function startupSection({ quick = false } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'chatfmt-bench-startup-'));
  try {
    return measure(work, quick);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function measure(work, quick) {
  const runs = quick ? 5 : 15;
  // The CLI's code cache (bin/code-cache.js) goes to this run's folder, not the user's; each command runs once first
  // to write it, as any run after the first after an install finds it.
  const cacheHome = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = join(work, 'cache');
  try {
    return measureProcesses(work, quick, runs);
  } finally {
    if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = cacheHome;
  }
}

function measureProcesses(work, quick, runs) {
  const row = join(root, 'fixtures', 'conversations', 'weather.json');
  // The same CLI as separate modules (dist/cli/, what tsc writes), to show what the bundle buys.
  const unbundled = join(work, 'unbundled.mjs');
  writeFileSync(unbundled, `const { main } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'cli', 'process.js')).href)});\nawait main(process.argv.slice(2));\n`);
  const node = (args) => ({ command: process.execPath, args });
  const cases = [
    ['`node -e 0`', node(['-e', '0'])],
    ['`chatfmt --version`', node([bin, '--version'])],
    ['`chatfmt --help`', node([bin, '--help'])],
    ['`chatfmt render --family qwen3 weather.json`', node([bin, 'render', '--family', 'qwen3', row])],
    ['the same render, code cache off (`CHATFMT_CODE_CACHE=0`, through `env`)', { command: 'env', args: ['CHATFMT_CODE_CACHE=0', process.execPath, bin, 'render', '--family', 'qwen3', row] }],
    ['the same render from dist/cli/ (not bundled)', node([unbundled, 'render', '--family', 'qwen3', row])],
  ];
  for (const [, { command, args }] of cases) timeProcess(command, args);
  const timed = timeInterleaved(cases.map(([, c]) => c), runs);
  const base = timed[0];
  const lines = [
    '## Start-up',
    '',
    `Whole processes, ${runs} runs each, interleaved; wall ms (median, minimum) and CPU ms (user + system, median).`,
    `Load average while measuring: ${loadAverage()} on this machine's cores (wall times grow with it; compare within a row's run).`,
    '',
    table(
      ['process', 'wall ms', 'min', 'CPU ms', 'wall over `node -e 0`'],
      cases.map(([name], i) => [name, fmt(timed[i].wall), fmt(timed[i].min), fmt(timed[i].cpu), i === 0 ? '–' : `+${fmt(timed[i].wall - base.wall)} (min +${fmt(timed[i].min - base.min)})`]),
    ),
    '',
    `Goal: \`chatfmt render\` of one row ≤ 150 ms wall on an idle machine; this run: ${fmt(timed[3].wall)} ms median, ${fmt(timed[3].min)} ms at best, \`node -e 0\` ${fmt(base.wall)} ms.`,
  ];
  if (hasShared) lines.push('', ...firstRender(work, runs));
  lines.push('', ...changes(work, quick, cases, timed));
  lines.push('', ...moduleImports(quick));
  return lines.join('\n');
}

/** The first render in a fresh process, Node + chatfmt against Python + jinja2, whole process and in-process. */
function firstRender(work, runs) {
  const template = join(shared, 'templates', 'official', 'qwen3', 'Qwen-Qwen3-0.6B.jinja');
  const tokens = JSON.parse(readFileSync(join(shared, 'templates', 'special_tokens.json'), 'utf8')).qwen3;
  const row = join(work, 'row.json');
  writeFileSync(row, JSON.stringify({ ...JSON.parse(readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8')), ...tokens }));
  const node = (entry) => ({ command: process.execPath, args: [join(root, 'bench', 'startup.mjs'), '--first-render', entry, template, row] });
  const commands = [node('render-entry.js'), node('index.js'), { command: 'python3', args: [pythonDriver, template, '--first', row] }];
  const whole = timeInterleaved(commands, runs);
  const inside = commands.map(() => []);
  for (let i = 0; i < runs; i++) commands.forEach(({ command, args }, k) => inside[k].push(Number(timeProcess(command, args).stdout)));
  const [withRender, withAll, python] = inside.map(median);
  const ratio = (value, of) => (value && of ? `${fmt(of / value, 2)}×` : 'n/a');
  return [
    '### First render (Qwen3 official template, the medium agent conversation)',
    '',
    'Whole process: start the runtime, import the library, build the template, render once. In-process: the same measured',
    'inside the process from just before the import (Node: `chatfmt/render`, dist/render-entry.js, or all of `chatfmt`,',
    'dist/index.js; Python: `import jinja2` and the transformers-style environment).',
    '',
    table(
      ['', 'Node + chatfmt/render', 'Node + chatfmt', 'Python + jinja2', 'jinja2 / chatfmt/render', 'jinja2 / chatfmt'],
      [
        ['whole process, wall ms (median)', fmt(whole[0].wall), fmt(whole[1].wall), fmt(whole[2].wall), ratio(whole[0].wall, whole[2].wall), ratio(whole[1].wall, whole[2].wall)],
        ['whole process, CPU ms (median)', fmt(whole[0].cpu), fmt(whole[1].cpu), fmt(whole[2].cpu), ratio(whole[0].cpu, whole[2].cpu), ratio(whole[1].cpu, whole[2].cpu)],
        ['in-process first call, ms (median)', fmt(withRender, 1), fmt(withAll, 1), fmt(python, 1), ratio(withRender, python), ratio(withAll, python)],
      ],
    ),
    '',
    'Goal: the first render no slower than jinja2\'s (ratio ≥ 1×).',
  ];
}

/** Import cost of the library's main entry points, each alone in a fresh process (its own modules and theirs). */
function moduleImports(quick) {
  const entries = ['index.js', 'render-entry.js', 'parse-entry.js', 'core.js', 'jinja/index.js', 'render/index.js', 'node/load.js', 'parse/index.js', 'detect/index.js', 'response-template/index.js', 'format/index.js', 'validate/index.js', 'convert/index.js', 'gateway/index.js'];
  const runs = quick ? 3 : 7;
  const rows = entries.map((entry) => ({ entry, ms: importMs(pathToFileURL(join(root, 'dist', entry)).href, runs) }));
  rows.sort((x, y) => y.ms - x.ms);
  return [
    '### Importing each entry point in a fresh process (ms, median)',
    '',
    'Where start-up goes when a program imports chatfmt (the CLI loads less: only the command it runs).',
    '',
    table(['module (dist/)', 'import ms'], rows.map(({ entry, ms }) => [entry, fmt(ms, 1)])),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(`${startupSection({ quick: process.argv.includes('--quick') })}\n`);

/** Milliseconds to import `url` in a fresh process, timed inside it around the import: the median of `runs`. */
function importMs(url, runs) {
  const script = 'const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));';
  const times = [];
  for (let i = 0; i < runs; i++) times.push(Number(timeProcess(process.execPath, ['--input-type=module', '-e', script, url]).stdout));
  return median(times);
}

/**
 * An entry point as tsc's separate modules: what dist/<name>.js was before scripts/bundle-lib.mjs pointed it at the
 * bundle. src/<name>.ts (exports only) is transpiled with its imports aimed at dist/, and src/core.ts the same way.
 */
function unbundledEntry(work, name) {
  const write = (source) => {
    const code = transformSync(readFileSync(join(root, 'src', `${source}.ts`), 'utf8'), { loader: 'ts', format: 'esm' }).code.replace(
      /(from\s*)(['"])\.\/([^'"]+)\2/g,
      (_, keyword, quote, path) => `${keyword}${quote}${path === 'core.js' ? './core.mjs' : pathToFileURL(join(root, 'dist', path)).href}${quote}`,
    );
    const file = join(work, `${source}.mjs`);
    writeFileSync(file, code);
    return pathToFileURL(file).href;
  };
  write('core');
  return write(name);
}

/** What each change of the start-up work bought, measured in this run (issue 18). */
function changes(work, quick, cases, timed) {
  const runs = quick ? 3 : 9;
  const row = (name) => timed[cases.findIndex(([label]) => label.startsWith(name))];
  const render = row('`chatfmt render');
  const uncached = row('the same render, code cache off');
  // --version against --help, both compiling as they did before the code cache: --help loads every command's
  // definition, which --version did too before it registered none.
  const uncachedRun = (flag) => ({ command: 'env', args: ['CHATFMT_CODE_CACHE=0', process.execPath, bin, flag] });
  const [help, version] = timeInterleaved([uncachedRun('--help'), uncachedRun('--version')], quick ? 5 : 15);
  const inProcess = (code) => {
    const times = [];
    for (let i = 0; i < runs; i++) times.push(Number(timeProcess(process.execPath, ['-e', `const t = performance.now(); ${code}; process.stdout.write(String(performance.now() - t));`]).stdout));
    return median(times);
  };
  const imports = [];
  for (const name of ['index', 'render-entry']) {
    const bundled = importMs(pathToFileURL(join(root, 'dist', `${name}.js`)).href, runs);
    const modules = importMs(unbundledEntry(work, name), runs);
    imports.push([name === 'index' ? '`chatfmt`' : '`chatfmt/render`', modules, bundled]);
  }
  const heavy = ['ajv', 're2js', '@huggingface/tokenizers'].map((name) => [name, inProcess(`require(${JSON.stringify(name)})`)]);
  const [esmEntry, cjsEntry, soloBundle] = entryVariants(work, quick ? 5 : 15);
  const unicodeClasses = inProcess(UNICODE_CLASSES.map((source) => `new RegExp(${JSON.stringify(source)}, 'u')`).join('; '));
  const streams = standardStreams(work, runs);
  const forms = parsedFormsRow(work, quick, fmt);
  const ms = (value) => `${fmt(value, 1)} ms`;
  const run = (t) => `${fmt(t.wall, 1)} ms wall (min ${fmt(t.min, 1)}), ${fmt(t.cpu, 1)} ms CPU`;
  return [
    '### What each change bought (this run)',
    '',
    table(
      ['change', 'before', 'after', 'measured as'],
      [
        ...imports.map(([entry, modules, bundled]) => [`${entry} bundled (scripts/bundle-lib.mjs, dist/lib/)`, ms(modules), ms(bundled), 'import in a fresh process: tsc\'s separate modules, then the bundle']),
        ['ajv, re2js, @huggingface/tokenizers on first use (src/node/dependencies.ts)', heavy.map(([name, value]) => `${name} ${ms(value)}`).join(', '), 'on the first validate or tokenizer call', 'what `import \'chatfmt\'` loaded up front: each required alone in a fresh process'],
        ['the CLI as one CommonJS bundle with a V8 code cache (bin/code-cache.js)', `${fmt(uncached.wall)} ms wall, ${fmt(uncached.cpu)} ms CPU`, `${fmt(render.wall)} ms wall, ${fmt(render.cpu)} ms CPU`, '`chatfmt render` of one row with the cache off, then on (table above)'],
        ['`--version` registers no commands', `${fmt(help.wall)} ms wall, ${fmt(help.cpu)} ms CPU`, `${fmt(version.wall)} ms wall, ${fmt(version.cpu)} ms CPU`, '`--help` (it loads every command\'s definition, as `--version` did), then `--version`; code cache off in both'],
        ['commander\'s node:child_process loaded only by spawn', ms(inProcess("require('node:child_process')")), '0 ms', 'requiring it in a fresh process (it brings net and dgram)'],
        ['bin/ as CommonJS (bin/package.json), without node:module: no ES module loader', run(esmEntry), run(cjsEntry), '`chatfmt render` of one row, whole bundle and code cache alike: an ES module entry that requires bin/code-cache.js through node:module, as bin/chatfmt.js was, then the CommonJS one'],
        ['`render` runs its own bundle, dist/bin/render.cjs', run(cjsEntry), run(soloBundle), '`chatfmt render` of one row through the CommonJS entry: the whole CLI\'s bundle, then the render command\'s (bin/chatfmt.js), each with its code cache'],
        [
          'stdout written to descriptor 1, process.stdout created only when a write would block (src/cli/stdout.ts); node:stream loaded only where used',
          `creating process.stdout for a pipe ${ms(streams.stdoutMs)} (${streams.stdoutModules} built-in modules, node:net among them)`,
          `the render loads ${streams.renderModules} built-in module(s) that \`node -e 0\` does not${streams.renderLoadsNet ? ', node:net among them' : ''}`,
          '`process.stdout` for a pipe in a fresh process (ms, median; built-in modules it loads), then the built-in modules a `chatfmt render` of one row to a pipe loads that `node -e 0` does not (was 35: stdout for a pipe and node:stream)',
        ],
        ['Unicode property classes in src/jinja built on first use', ms(unicodeClasses), '0 ms at load', 'building repr\'s non-printable class and str.isalpha/isdigit/isnumeric\'s in a fresh process'],
        forms,
      ],
    ),
    '',
    'CPU in the rows measured as `ms wall (min), ms CPU` is the process\'s own user + system time read at its exit (median), finer than /usr/bin/time\'s 10 ms steps.',
  ];
}

/**
 * What process.stdout costs when it is a pipe (ms and built-in modules, in a fresh process), and how many built-in
 * modules a one-row `chatfmt render` to a pipe loads beyond `node -e 0`, read from Node's own list at exit.
 */
function standardStreams(work, runs) {
  const hook = join(work, 'modules-at-exit.cjs');
  writeFileSync(hook, "process.on('exit', () => require('node:fs').writeSync(2, `\\nCHATFMT-MODULES ${JSON.stringify(process.moduleLoadList)}\\n`));\n");
  const count = (args) => {
    const result = spawnSync(process.execPath, ['-r', hook, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const line = /CHATFMT-MODULES (.*)/.exec(result.stderr);
    if (result.status !== 0 || !line) throw new Error(`node ${args.join(' ')} failed (${result.status}): ${result.stderr.trim().split('\n').pop()}`);
    return JSON.parse(line[1]);
  };
  const empty = count(['-e', '0']);
  const rendered = count([bin, 'render', '--family', 'qwen3', join(root, 'fixtures', 'conversations', 'weather.json')]);
  const times = [];
  let stdoutModules = 0;
  for (let i = 0; i < runs; i++) {
    const code = "const n = process.moduleLoadList.length; const t = performance.now(); process.stdout; const ms = performance.now() - t; process.stdout.write(`${ms} ${process.moduleLoadList.length - n}`);";
    const [ms, modules] = timeProcess(process.execPath, ['-e', code]).stdout.split(' ').map(Number);
    times.push(ms);
    stdoutModules = modules;
  }
  const extra = rendered.filter((name) => !empty.includes(name));
  return { stdoutMs: median(times), stdoutModules, renderModules: extra.length, renderLoadsNet: extra.includes('NativeModule net') };
}

/**
 * `chatfmt render` of one row three ways, interleaved: an ES module entry (requiring bin/code-cache.js through
 * node:module) running the whole CLI bundle, as bin/chatfmt.js did; the same as CommonJS; and bin/chatfmt.js, which
 * runs the render command's own bundle. Each with a warm code cache. Returns { wall, min, cpu } per way.
 */
function entryVariants(work, runs) {
  const codeCache = JSON.stringify(join(root, 'bin', 'code-cache.js'));
  const wholeCli = JSON.stringify(join(root, 'dist', 'bin', 'chatfmt.cjs'));
  const body = [
    `const { defaultCacheDir, loadWithCodeCache } = require(${codeCache});`,
    `const cli = loadWithCodeCache(${wholeCli}, { cacheDir: defaultCacheDir(), variant: process.argv[2] });`,
    "process.once('exit', cli.save);",
    'cli.exports.main(process.argv.slice(2));',
  ];
  const esm = join(work, 'entry-esm.mjs');
  writeFileSync(esm, ["import { createRequire } from 'node:module';", 'const require = createRequire(import.meta.url);', ...body].join('\n'));
  const cjs = join(work, 'entry-cjs.cjs');
  writeFileSync(cjs, body.join('\n'));
  // The process's CPU time at exit, on stderr: read by timeWithExitCpu.
  const cpuHook = join(work, 'exit-cpu.cjs');
  writeFileSync(cpuHook, "process.once('exit', () => { const { user, system } = process.cpuUsage(); process.stderr.write(`\\nCHATFMT-EXIT-CPU ${user + system}\\n`); });\n");
  const row = join(root, 'fixtures', 'conversations', 'weather.json');
  const ways = [esm, cjs, bin].map((entry) => ['-r', cpuHook, entry, 'render', '--family', 'qwen3', row]);
  return timeWithExitCpu(ways, runs);
}

/** Runs `node ...args` for each of `ways`, once to warm up, then `runs` times interleaved; wall and exit-CPU ms. */
function timeWithExitCpu(ways, runs) {
  const samples = ways.map(() => ({ wall: [], cpu: [] }));
  for (let i = 0; i <= runs; i++) {
    ways.forEach((args, k) => {
      const start = performance.now();
      const result = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const wall = performance.now() - start;
      const cpu = /CHATFMT-EXIT-CPU (\d+)/.exec(result.stderr);
      if (result.status !== 0 || !cpu) throw new Error(`node ${args.join(' ')} failed (${result.status}): ${result.stderr.trim().split('\n').pop()}`);
      if (i === 0) return;
      samples[k].wall.push(wall);
      samples[k].cpu.push(Number(cpu[1]) / 1000);
    });
  }
  return samples.map(({ wall, cpu }) => ({ wall: median(wall), min: Math.min(...wall), cpu: median(cpu) }));
}
