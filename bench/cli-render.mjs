// CLI render end to end: a JSONL file of agent conversations in, a JSONL file of prompts out, `chatfmt render FILE -o
// OUT` against bench/jinja2-render-file.py doing the same work with jinja2 set up as transformers sets it up (template
// compiled once, each row json.loads'ed, rendered, json.dumps'ed, written). Both outputs must be byte-identical.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, hasShared, root, shared, table } from './lib.mjs';
import { loadAverage, timeInterleaved } from './processes.mjs';

const NOW = '2025-01-15T12:00:00';
const cases = [
  { name: 'Qwen3', dir: 'qwen3', file: 'Qwen-Qwen3-0.6B.jinja' },
  { name: 'gpt-oss', dir: 'gpt-oss', file: 'openai-gpt-oss-20b.jinja' },
  { name: 'GLM-4.6', dir: 'glm', file: 'zai-org-GLM-4.6.jinja' },
];

export function cliRenderSection({ quick = false } = {}) {
  if (!hasShared) return '## CLI render end to end\n\nskipped: ../shared (the official templates) not found';
  const work = mkdtempSync(join(tmpdir(), 'chatfmt-bench-cli-'));
  try {
    return measure(work, quick);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `count` rows of the medium agent conversation, each a little different (the user's request is numbered). */
function writeRows(file, count, tokens) {
  const conversation = JSON.parse(readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8'));
  const user = conversation.messages.findIndex((message) => message.role === 'user');
  const lines = [];
  for (let i = 0; i < count; i++) {
    const messages = conversation.messages.slice();
    messages[user] = { ...messages[user], content: `${messages[user].content} (request ${i + 1})` };
    lines.push(JSON.stringify({ ...conversation, messages, ...tokens }));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function measure(work, quick) {
  const tokens = JSON.parse(readFileSync(join(shared, 'templates', 'special_tokens.json'), 'utf8'));
  const sizes = quick ? [{ rows: 300, runs: 2 }, { rows: 3000, runs: 1 }] : [{ rows: 1500, runs: 5 }, { rows: 15000, runs: 2 }];
  const rows = [];
  const ratios = new Map();
  for (const { rows: count, runs } of sizes) {
    for (const c of cases) {
      const template = join(shared, 'templates', 'official', c.dir, c.file);
      const input = join(work, `${c.dir}-${count}.jsonl`);
      writeRows(input, count, tokens[c.dir] ?? {});
      const ours = join(work, 'chatfmt.jsonl');
      const theirs = join(work, 'jinja2.jsonl');
      const [chatfmt, jinja2] = timeInterleaved(
        [
          { command: process.execPath, args: [join(root, 'bin', 'chatfmt.js'), 'render', '--template', template, '--args', 'keep', '--now', NOW, input, '-o', ours] },
          { command: 'python3', args: [join(root, 'bench', 'jinja2-render-file.py'), template, input, theirs, '--now', NOW] },
        ],
        runs,
      );
      if (!readFileSync(ours).equals(readFileSync(theirs))) throw new Error(`${c.name}, ${count} rows: chatfmt's output differs from jinja2's`);
      const ratio = jinja2.wall / chatfmt.wall;
      ratios.set(count, [...(ratios.get(count) ?? []), ratio]);
      rows.push([c.name, fmt(count), `${fmt(chatfmt.wall / 1000, 2)} (${fmt(chatfmt.min / 1000, 2)})`, `${fmt(jinja2.wall / 1000, 2)} (${fmt(jinja2.min / 1000, 2)})`, `**${fmt(ratio, 2)}×**`, chatfmt.cpu ? `${fmt(jinja2.cpu / chatfmt.cpu, 2)}×` : 'n/a']);
    }
  }
  const [small, large] = sizes.map(({ rows: count }) => Math.min(...ratios.get(count)));
  return [
    '## CLI render end to end',
    '',
    '`chatfmt render --template T --args keep FILE -o OUT` against `bench/jinja2-render-file.py T FILE OUT` (jinja2 as',
    'transformers sets it up; the template compiled once; each row parsed, rendered, serialised and written: the same',
    'work). Rows: the medium agent conversation (12 messages, 3 tools, 3 tool calls), numbered so no two are alike, with',
    'the family\'s special tokens. Both outputs are checked byte for byte. Seconds, process start included: median (best)',
    `of the runs, interleaved. Load average while measuring: ${loadAverage()}.`,
    '',
    table(['template', 'rows', 'chatfmt s', 'jinja2 s', 'speed-up (wall)', 'speed-up (CPU time)'], rows),
    '',
    `Goals: ≥ 3× jinja2 at ${fmt(sizes[0].rows)} rows (this run: ${fmt(small, 2)}× at worst), ≥ 5× at ${fmt(sizes[1].rows)} (this run: ${fmt(large, 2)}× at worst).`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(`${cliRenderSection({ quick: process.argv.includes('--quick') })}\n`);
