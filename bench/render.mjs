// Render benchmarks: chatfmt vs Python jinja2 (render_ref.py, set up as transformers) vs
// @huggingface/jinja, on every official template, warm, cold, and a JSONL file through the CLI.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
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
  const cli = cliEndToEnd(quick);
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
    '',
    cli,
  ].join('\n');
}

function cliEndToEnd(quick) {
  const work = join(root, 'bench', '.work');
  mkdirSync(work, { recursive: true });
  const copies = quick ? 300 : 1500;
  const lines = [];
  const cases = [
    { name: 'qwen3', template: join(shared, 'templates', 'official', 'qwen3', 'Qwen-Qwen3-0.6B.jinja'), tokens: 'qwen3' },
    { name: 'gpt-oss', template: join(shared, 'templates', 'official', 'gpt-oss', 'openai-gpt-oss-20b.jinja'), tokens: 'gpt-oss' },
  ];
  const rows = [];
  for (const c of cases) {
    const data = JSON.parse(readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8'));
    const tokens = specialTokens[c.tokens];
    const line = JSON.stringify({ ...data, ...tokens });
    const file = join(work, `${c.name}-${copies}.jsonl`);
    writeFileSync(file, `${Array(copies).fill(line).join('\n')}\n`);
    const time = (cmd, args) => {
      const runs = [];
      for (let i = 0; i < 3; i++) {
        const start = performance.now();
        const result = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
        if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${result.stderr}`);
        runs.push((performance.now() - start) / 1000);
      }
      return { median: median(runs), min: Math.min(...runs), max: Math.max(...runs) };
    };
    const ours = time(process.execPath, [join(root, 'bin', 'chatfmt.js'), 'render', '--template', c.template, '--args', 'keep', '--now', '2025-01-15T12:00:00', file]);
    const py = time('python3', [renderRef, c.template, '--batch', file, '--tokens', c.tokens]);
    rows.push([c.name, String(copies), range(ours, 2), range(py, 2), `${fmt(py.median / ours.median, 2)}×`]);
  }
  lines.push('### End to end: JSONL file in, JSONL out, through the CLI (seconds, process start included)', '');
  lines.push(table(['template', 'conversations', 'chatfmt render', 'render_ref.py --batch', 'speed-up'], rows));
  lines.push('', 'Goal: ≥ 2× jinja2 end to end.');
  return lines.join('\n');
}
