// What an interpreter change buys: CPU µs per warm render of every official template, for several builds of the
// engine (each a copy of dist/ made before a change), each run alone in its own process (engine copies in one process
// slow each other down), the builds alternated so a spell of load hits each alike; the best batch of each build.
//
//   npm run build && cp -r dist /tmp/before   (then change, rebuild)
//   node bench/render-builds.mjs [--rounds 3] [--show Llama-3.2,Qwen3-Coder-30B] /tmp/before dist
// (--show adds a column for each template whose label contains one of the comma-separated names)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { flat, median } from './lib.mjs';
import { NOW, argsForm, conversation, label, templates, variables } from './render.mjs';

const WARM_UP = 500;
const BATCHES = 100;
const BATCH = 20;

/** One build, this process: CPU µs per render (best batch) by template label. */
async function measure(dist) {
  const { compileTemplate, parsePythonJson } = await import(pathToFileURL(resolve(dist, 'jinja', 'index.js')).href);
  const out = {};
  for (const t of templates()) {
    const vars = variables(t, conversation(argsForm(t), parsePythonJson));
    const template = compileTemplate(readFileSync(t.path, 'utf8'), { name: t.file });
    try {
      template.render(vars, { now: NOW, reuse: false });
    } catch {
      continue; // rejects the benchmark conversation, as jinja2 does (see the Render section)
    }
    // Each text flattened, as the Render section times every JS render (bench/lib.mjs `flat`).
    for (let i = 0; i < WARM_UP; i++) flat(template.render(vars, { now: NOW, reuse: false }).text);
    let best = Infinity;
    for (let b = 0; b < BATCHES; b++) {
      const start = process.cpuUsage();
      for (let i = 0; i < BATCH; i++) flat(template.render(vars, { now: NOW, reuse: false }).text);
      const used = process.cpuUsage(start);
      best = Math.min(best, (used.user + used.system) / BATCH);
    }
    out[label(t)] = best;
  }
  return out;
}

const args = process.argv.slice(2);
if (args[0] === '--worker') {
  process.stdout.write(JSON.stringify(await measure(args[1])));
} else {
  let rounds = 3;
  let show = ['qwen3/Qwen-Qwen3-0.6B', 'mistral/unsloth-mistral-Devstral-Small-2507'];
  while (args[0] === '--rounds' || args[0] === '--show') {
    if (args[0] === '--rounds') rounds = Number(args[1]);
    else show = show.concat(args[1].split(','));
    args.splice(0, 2);
  }
  if (args.length === 0) throw new Error('usage: node bench/render-builds.mjs [--rounds N] [--show names] <dist> [<dist> ...]');
  const best = args.map(() => ({}));
  for (let round = 0; round < rounds; round++) {
    args.forEach((dist, k) => {
      const run = JSON.parse(execFileSync(process.execPath, [process.argv[1], '--worker', dist], { encoding: 'utf8' }));
      for (const [name, us] of Object.entries(run)) best[k][name] = Math.min(best[k][name] ?? Infinity, us);
    });
  }
  const names = Object.keys(best[0]);
  const shown = show.map((part) => names.find((name) => name.includes(part))).filter((name) => name !== undefined);
  const figure = (k, name) => (best[k][name] === undefined ? '–' : best[k][name].toFixed(1));
  console.log(['build', ...shown.map((name) => `${name.split('/')[1]} µs`), `median of ${names.length} vs the first`].join(' | '));
  args.forEach((dist, k) => {
    const ratios = names.map((name) => best[0][name] / best[k][name]);
    console.log([dist, ...shown.map((name) => figure(k, name)), `${median(ratios).toFixed(2)}×`].join(' | '));
  });
}
