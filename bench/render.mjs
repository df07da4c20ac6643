// Render benchmarks: chatfmt vs Python jinja2 (render_ref.py, set up as transformers) vs
// @huggingface/jinja, on every official template, warm and cold (the CLI end to end is bench/cli-render.mjs).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { compileTemplate, parsePythonJson, pythonJsonDumps } from '../dist/index.js';
import { fmt, median, millis, range, rate, renderRef, root, shared, table } from './lib.mjs';

const NOW = new Date('2025-01-15T12:00:00Z');
// Each official folder name (t.family) is also its key in special_tokens.json.
const specialTokens = JSON.parse(readFileSync(join(shared, 'templates', 'special_tokens.json'), 'utf8'));

function templates() {
  const dir = join(shared, 'templates', 'official');
  return readdirSync(dir).sort().flatMap((family) =>
    readdirSync(join(dir, family)).filter((f) => f.endsWith('.jinja')).sort().map((file) => ({ family, file, path: join(dir, family, file) })),
  );
}

const argsForm = (t) => (t.family === 'deepseek' && !t.file.startsWith('vllm') ? 'string' : 'dict');

function conversation(form, reader) {
  const data = reader(readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8'));
  if (form === 'string') {
    for (const m of data.messages) for (const c of m.tool_calls ?? []) c.function.arguments = pythonJsonDumps(c.function.arguments);
  }
  return data;
}

function variables(t, data) {
  const tokens = specialTokens[t.family] ?? {};
  return { ...tokens, messages: data.messages, tools: data.tools, documents: null, add_generation_prompt: true };
}

function python(t, n) {
  const out = execFileSync('python3', [renderRef, t.path, join(root, 'bench', 'data', 'medium.json'), '--bench', String(n),
    '--args', argsForm(t), '--tokens', t.family], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return Number.parseFloat(out);
}

const PY_COLD = `
import sys, time, json, statistics
sys.path.insert(0, sys.argv[1])
import render_ref
from datetime import datetime
env = render_ref.make_environment(datetime(2025, 1, 15, 12))
src = open(sys.argv[2], encoding='utf-8').read()
data = json.load(open(sys.argv[3], encoding='utf-8'))
variables = render_ref.template_variables(data, render_ref.load_special_tokens(sys.argv[4]), sys.argv[5])
times = []
for i in range(int(sys.argv[6])):
    t = time.perf_counter()
    env.from_string(src + '{# cold %d #}' % i).render(**variables)
    times.append((time.perf_counter() - t) * 1000)
print(statistics.median(times))
`;

function pythonCold(t, runs) {
  const out = execFileSync('python3', ['-c', PY_COLD, join(shared, 'tools'), t.path, join(root, 'bench', 'data', 'medium.json'),
    t.family, argsForm(t), String(runs)], { encoding: 'utf8' });
  return Number.parseFloat(out);
}

export async function renderSection({ quick = false } = {}) {
  const rows = [];
  const coldRows = [];
  const ratios = [];
  const coldRatios = [];
  for (const t of templates()) {
    const source = readFileSync(t.path, 'utf8');
    const vars = variables(t, conversation(argsForm(t), parsePythonJson));
    const compiled = compileTemplate(source, { name: t.file });
    let ours;
    try {
      ours = rate(() => compiled.render(vars, { now: NOW }), { seconds: quick ? 0.1 : 0.3 });
    } catch (error) {
      // A template that rejects the benchmark conversation: say whether jinja2 rejects it too.
      let verdict = 'jinja2 renders it';
      try {
        python(t, 1);
      } catch {
        verdict = 'jinja2 rejects it too';
      }
      rows.push([`${t.family}/${t.file.replace('.jinja', '')}`, `rejects this input (${error.message.split(': ').slice(1).join(': ').slice(0, 50)}…); ${verdict}`, '', '', '', '']);
      continue;
    }
    let js;
    const jsVars = variables(t, conversation(argsForm(t), JSON.parse));
    try {
      const template = new Template(source);
      template.render(jsVars);
      js = rate(() => template.render(jsVars), { seconds: quick ? 0.1 : 0.3 });
    } catch {
      js = undefined;
    }
    const py = [1, 2, 3].map(() => python(t, quick ? 100 : 400));
    const pyRate = { median: median(py), min: Math.min(...py), max: Math.max(...py) };
    const ratio = ours.median / pyRate.median;
    ratios.push(ratio);
    rows.push([`${t.family}/${t.file.replace('.jinja', '')}`, range(ours), range(pyRate), js ? range(js) : 'fails', `${fmt(ratio, 2)}×`, js ? `${fmt(ours.median / js.median, 2)}×` : '–']);

    const cold = millis((i) => compileTemplate(`${source}{# cold ${i} #}`, { name: t.file }).render(vars, { now: NOW }), quick ? 5 : 15);
    const pyCold = pythonCold(t, quick ? 3 : 8);
    let jsCold;
    try {
      jsCold = millis(() => new Template(source).render(jsVars), quick ? 5 : 15);
    } catch {}
    coldRatios.push(pyCold / cold.median);
    coldRows.push([`${t.family}/${t.file.replace('.jinja', '')}`, range(cold, 2), fmt(pyCold, 1), jsCold ? range(jsCold, 2) : 'fails', `${fmt(pyCold / cold.median, 1)}×`]);
  }
  return [
    '## Render',
    '',
    'Medium agent conversation (12 messages, 3 tools, 3 tool calls), generation prompt on, each template in the argument form it is',
    'written for. Warm = template compiled once, rendered repeatedly (renders/s, median of 3 passes with range). Python = render_ref.py',
    '(jinja2 set up as transformers sets it up). JS baseline = @huggingface/jinja `Template.render`.',
    '',
    table(['template', 'chatfmt /s', 'jinja2 /s', '@huggingface/jinja /s', 'vs jinja2', 'vs hf/jinja'], rows),
    '',
    `Warm: chatfmt / jinja2 median ${fmt(median(ratios), 2)}×, minimum ${fmt(Math.min(...ratios), 2)}× (goal ≥ 2× on every template).`,
    '',
    '### Cold: build the template and render once (ms)',
    '',
    table(['template', 'chatfmt ms', 'jinja2 ms', '@huggingface/jinja ms', 'jinja2 / chatfmt'], coldRows),
    '',
    `Cold: median ${fmt(median(coldRatios), 1)}× faster than jinja2, minimum ${fmt(Math.min(...coldRatios), 1)}× (goal ≥ 10×).`,
  ].join('\n');
}
