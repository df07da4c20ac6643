// What knowing the family templates ahead buys a one-row `chatfmt render --family`, for bench/startup.mjs: the
// template built from its parsed form (dist/bin/template-forms/, src/jinja/parsed-form.ts) instead of its text, and
// `--args auto`'s probe results carried by the bundle instead of four probe renders. Whole runs: the CLI bundle as
// built, and built `--without-known-ahead` (in a copy of the package laid out as npm installs it: the text parsed,
// the template probed), interleaved, each with a code cache of its own. In a fresh process
// each, with tsc's modules (no code cache: the cold code a first run meets): building qwen3's template from its text
// and from its form, and probing it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { median, root } from './lib.mjs';

/** The render bundle built `--without-known-ahead`, in a package laid out as npm installs it (dist/bin/, templates/). */
function renderBundleWithoutKnownAhead(work) {
  const pkg = join(work, 'no-forms');
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs'), '--outdir', join(pkg, 'dist', 'bin'), '--without-known-ahead'], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bundle-cli failed: ${built.stderr}`);
  symlinkSync(join(root, 'templates'), join(pkg, 'templates'));
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'chatfmt', type: 'commonjs' }));
  return join(pkg, 'dist', 'bin', 'render.cjs');
}

/**
 * `chatfmt render --family qwen3` of one row without and with the templates known ahead: { wall, min, cpu, command,
 * commandMin } ms each (medians; `command` is the bundle's own part, from its `main` to the exit, timed inside the
 * process as bin/chatfmt.js runs it: a few ms that whole-process times on a loaded machine cannot tell apart).
 */
function wholeRuns(work, runs) {
  const row = join(root, 'fixtures', 'conversations', 'weather.json');
  const runner = join(work, 'forms-runner.cjs');
  writeFileSync(
    runner,
    [
      `const { defaultCacheDir, loadWithCodeCache } = require(${JSON.stringify(join(root, 'bin', 'code-cache.js'))});`,
      "const cli = loadWithCodeCache(process.argv[2], { cacheDir: defaultCacheDir(), variant: 'render' });",
      'const started = performance.now();',
      "process.once('exit', (code) => {",
      '  const command = performance.now() - started;',
      '  if (code === 0) cli.save();',
      '  const { user, system } = process.cpuUsage();',
      '  process.stderr.write(`\\nCHATFMT-EXIT-CPU ${user + system} ${command}\\n`);',
      '});',
      'cli.exports.main(process.argv.slice(3));',
    ].join('\n'),
  );
  const ways = [
    { bundle: renderBundleWithoutKnownAhead(work), cache: join(work, 'cache-no-forms') },
    { bundle: join(root, 'dist', 'bin', 'render.cjs'), cache: join(work, 'cache-forms') },
  ];
  const samples = ways.map(() => ({ wall: [], cpu: [], command: [] }));
  const outputs = new Set();
  // The first round writes each way's code cache and is not counted.
  for (let i = 0; i <= runs; i++) {
    ways.forEach(({ bundle, cache }, k) => {
      const start = performance.now();
      const result = spawnSync(process.execPath, [runner, bundle, 'render', '--family', 'qwen3', row], {
        encoding: 'utf8',
        env: { ...process.env, XDG_CACHE_HOME: cache },
      });
      const wall = performance.now() - start;
      const exit = /CHATFMT-EXIT-CPU (\d+) ([\d.]+)/.exec(result.stderr);
      if (result.status !== 0 || !exit) throw new Error(`${bundle} render failed (${result.status}): ${result.stderr.trim().split('\n').pop()}`);
      outputs.add(result.stdout);
      if (i === 0) return;
      samples[k].wall.push(wall);
      samples[k].cpu.push(Number(exit[1]) / 1000);
      samples[k].command.push(Number(exit[2]));
    });
  }
  if (outputs.size !== 1) throw new Error('the render with and without the templates known ahead differ');
  return samples.map(({ wall, cpu, command }) => ({ wall: median(wall), min: Math.min(...wall), cpu: median(cpu), command: median(command), commandMin: Math.min(...command) }));
}

/**
 * ms to build qwen3's template in a fresh process from its text, then from its form, and to probe it (`--args auto`),
 * median of `runs` each.
 */
function buildTimes(runs) {
  const jinja = pathToFileURL(join(root, 'dist', 'jinja', 'index.js')).href;
  const renderModule = pathToFileURL(join(root, 'dist', 'render', 'index.js')).href;
  const source = join(root, 'templates', 'qwen3.jinja');
  const form = join(root, 'dist', 'bin', 'template-forms', 'qwen3.jinja.json');
  const script = [
    "import { readFileSync } from 'node:fs';",
    `const { compileTemplate } = await import(${JSON.stringify(jinja)});`,
    `const { inspectTemplate } = await import(${JSON.stringify(renderModule)});`,
    `const source = readFileSync(${JSON.stringify(source)}, 'utf8');`,
    `const parsed = process.argv[1] === 'form' ? readFileSync(${JSON.stringify(form)}, 'utf8') : undefined;`,
    `const { familyInfo } = await import(${JSON.stringify(pathToFileURL(join(root, 'dist', 'families', 'info.js')).href)});`,
    'const tokens = familyInfo.qwen3.specialTokens;',
    'const start = performance.now();',
    "const template = compileTemplate(source, { name: 'qwen3', parsed });",
    'const built = performance.now();',
    "if (process.argv[1] === 'probe') inspectTemplate(template, tokens);",
    "process.stdout.write(String(process.argv[1] === 'probe' ? performance.now() - built : built - start));",
  ].join('\n');
  const times = { text: [], form: [], probe: [] };
  for (let i = 0; i < runs; i++) {
    for (const way of ['text', 'form', 'probe']) {
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', script, way], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`building the template failed: ${result.stderr.trim().split('\n').pop()}`);
      times[way].push(Number(result.stdout));
    }
  }
  return { text: median(times.text), form: median(times.form), probe: median(times.probe), formBytes: readFileSync(form).length };
}

/** The row of startup.mjs's "what each change bought" table for the parsed forms. */
export function parsedFormsRow(work, quick, fmt) {
  const [without, withForms] = wholeRuns(work, quick ? 5 : 15);
  const built = buildTimes(quick ? 5 : 11);
  const run = (t) => `the command ${fmt(t.command, 1)} ms (min ${fmt(t.commandMin, 1)}); whole process ${fmt(t.wall, 1)} ms wall (min ${fmt(t.min, 1)}), ${fmt(t.cpu, 1)} ms CPU`;
  return [
    'family templates known ahead: built from their parsed form, written beside the bundle at build time (dist/bin/template-forms/, src/jinja/parsed-form.ts), and not probed (the bundle carries what `--args auto` probing finds, src/families/templates-parsed.ts)',
    `${run(without)}; building qwen3's template from its text ${fmt(built.text, 2)} ms, probing it ${fmt(built.probe, 2)} ms`,
    `${run(withForms)}; from its form (${fmt(built.formBytes / 1024, 1)} KB) ${fmt(built.form, 2)} ms, no probing`,
    '`chatfmt render --family qwen3` of one row, the render bundle built `--without-known-ahead` (scripts/bundle-cli.mjs: the text parsed, the template probed) then as built, interleaved, each with its own code cache: the command\'s own part timed inside the process (from the bundle\'s `main` to the exit, medians), then the whole process; then, in a fresh process each (tsc\'s modules, no code cache), building the template from the text, from the form, and probing it',
  ];
}
