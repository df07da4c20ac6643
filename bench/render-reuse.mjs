// What block reuse (src/jinja/reuse.ts) buys a warm render: conversations that differ (the user's request is numbered)
// but carry the same tools, as an agent dataset's rows or an agent client's turns do, rendered with reuse and without;
// then the same with each conversation's tools different too, where nothing can be found again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileTemplate, parsePythonJson, shareJson } from '../dist/index.js';
import { flat, fmt, root, shared, table } from './lib.mjs';

const CASES = [
  ['gpt-oss-20b', 'gpt-oss', 'openai-gpt-oss-20b.jinja'],
  ['Qwen3-Coder-30B', 'qwen3-coder', 'Qwen-Qwen3-Coder-30B-A3B-Instruct.jinja'],
  ['Qwen3-0.6B', 'qwen3', 'Qwen-Qwen3-0.6B.jinja'],
  ['GLM-4.6', 'glm', 'zai-org-GLM-4.6.jinja'],
  ['Devstral', 'mistral', 'unsloth-mistral-Devstral-Small-2507.jinja'],
];
const ROWS = 64;

/**
 * `ROWS` variants of the medium conversation; `tools`: 'same' (one list), 'shared' (one list given to shareJson, as
 * `chatfmt render` gives the list its rows repeat) or 'distinct' (each with its first tool's description numbered).
 */
function variants(data, tokens, tools) {
  const user = data.messages.findIndex((message) => message.role === 'user');
  // A copy to share: shareJson freezes what it takes.
  const shared = tools === 'shared' ? structuredClone(data.tools) : undefined;
  if (shared !== undefined && !shareJson(shared)) throw new Error('the bench tools are not plain JSON');
  return Array.from({ length: ROWS }, (_, i) => {
    const messages = data.messages.slice();
    messages[user] = { ...messages[user], content: `${messages[user].content} (request ${i + 1})` };
    return { ...tokens, messages, tools: shared ?? (tools === 'same' ? data.tools : numbered(data.tools, i + 1)), documents: null, add_generation_prompt: true };
  });
}

function numbered([first, ...rest], n) {
  return [{ ...first, function: { ...first.function, description: `${first.function.description} (${n})` } }, ...rest];
}

/** µs per render, best of alternating passes over the rows, with reuse and without. */
function timeBoth(template, rows, passes) {
  const pass = (reuse) => {
    const start = performance.now();
    for (const vars of rows) flat(template.render(vars, { reuse }).text);
    return ((performance.now() - start) * 1000) / rows.length;
  };
  for (const vars of rows) {
    if (template.render(vars, { reuse: true }).text !== template.render(vars, { reuse: false }).text) throw new Error('reuse changed a text');
  }
  for (let i = 0; i < 20; i++) pass(true), pass(false);
  let on = Infinity;
  let off = Infinity;
  for (let i = 0; i < passes; i++) {
    on = Math.min(on, pass(true));
    off = Math.min(off, pass(false));
  }
  return [on, off];
}

export function reuseSection({ quick = false } = {}) {
  const tokens = JSON.parse(readFileSync(join(shared, 'templates', 'special_tokens.json'), 'utf8'));
  const data = parsePythonJson(readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8'));
  const rows = [];
  for (const [name, dir, file] of CASES) {
    const source = readFileSync(join(shared, 'templates', 'official', dir, file), 'utf8');
    const cells = [name];
    for (const tools of ['same', 'shared', 'distinct']) {
      // A template of its own for each: a block that stopped being keyed over distinct tools stays stopped.
      const template = compileTemplate(`${source}{# reuse bench ${tools} #}`, { name: file });
      const [on, off] = timeBoth(template, variants(data, tokens[dir] ?? {}, tools), quick ? 10 : 40);
      cells.push(`${fmt(on, 1)} / ${fmt(off, 1)}`, `${fmt(off / on, 2)}×`);
    }
    rows.push(cells);
  }
  return [
    '### Block reuse (warm)',
    '',
    'bench/render-reuse.mjs: 64 conversations (bench/data/medium.json, the user\'s request numbered), rendered with',
    '`reuse: true` (the default) and `reuse: false`; µs per render, best of alternating passes over the 64, texts',
    'checked equal. "Same tools": every conversation carries the same three tools, as an agent dataset\'s rows or an',
    'agent client\'s turns do. "Shared": the same list given to `shareJson` first (frozen, keyed by identity), as',
    '`chatfmt render` does with a list its rows repeat. "Tools differ": each has its first tool\'s description',
    'numbered, so no block is found again. The render tables above time with `reuse: false`.',
    '',
    table(['template', 'same tools µs (on / off)', 'speed-up', 'shared µs (on / off)', 'speed-up', 'tools differ µs (on / off)', 'speed-up'], rows),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(reuseSection({ quick: process.argv.includes('--quick') }));
}
