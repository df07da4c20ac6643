#!/usr/bin/env node
// Regenerates fixtures/render/family/<id>/ and proves chatfmt's own templates (templates/<id>.jinja) render
// byte-identically to the official template each one follows, under the reference renderer
// (../shared/tools/render_ref.py: Python jinja2 configured like transformers).
//
// For every family × conversation (../shared/templates/inputs/*.json, then fixtures/conversations/*.json)
// × argument form (keep | string | dict):
//   <conversation>.<args>.txt        official template's output, or
//   <conversation>.<args>.error.txt  the error line when the official template fails;
//   <conversation>.<args>.spans.json our template's {text, generation_spans} (code-point offsets), when it renders.
// Our text must equal the official text, or both must fail. deepseek-v3.1 adds the model card's tool prompt
// when tools are given; that block is removed before comparing. Every mismatch is printed; exit 1 if any.
//
// Official outputs come from `render_ref.py --batch` (one python3 per family and argument form). Spans need
// render_ref's span mode, which the CLI offers for one input at a time, so our template is rendered by a
// small driver that imports render_ref.py and calls its own render_one(..., spans=True) for all inputs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const shared = path.resolve(repo, '..', 'shared');
const renderRef = path.join(shared, 'tools', 'render_ref.py');
const officialDir = path.join(shared, 'templates', 'official');
const sharedInputs = path.join(shared, 'templates', 'inputs');
const ownInputs = path.join(repo, 'fixtures', 'conversations');
const outDir = path.join(repo, 'fixtures', 'render', 'family');
const NOW = '2025-01-15T12:00:00';
const ARGS = ['keep', 'string', 'dict'];

// Family id → official counterpart and special-token key (../shared/templates/special_tokens.json).
const FAMILIES = [
  ['hermes', 'hermes/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja', 'hermes'],
  ['qwen2.5', 'qwen2.5/Qwen-Qwen2.5-7B-Instruct.jinja', 'qwen2.5'],
  ['qwen3', 'qwen3/Qwen-Qwen3-0.6B.jinja', 'qwen3'],
  ['qwen3-coder', 'qwen3-coder/Qwen-Qwen3-Coder-30B-A3B-Instruct.jinja', 'qwen3-coder'],
  ['deepseek-v3.1', 'deepseek/deepseek-ai-DeepSeek-V3.1.jinja', 'deepseek'],
  ['deepseek-r1', 'deepseek/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja', 'deepseek'],
  ['kimi-k2', 'kimi-k2/moonshotai-Kimi-K2-Thinking.jinja', 'kimi-k2'],
  ['gpt-oss', 'gpt-oss/openai-gpt-oss-20b.jinja', 'gpt-oss'],
  ['glm-4.5', 'glm/zai-org-GLM-4.6.jinja', 'glm'],
  ['seed-oss', 'seed-oss/ByteDance-Seed-Seed-OSS-36B-Instruct.jinja', 'seed-oss'],
  ['deepseek-v3.2', 'deepseek-v3.2/DeepSeek-V3.2.llamacpp.jinja', 'deepseek-v3.2'],
  ['minimax-m2', 'minimax-m2/unsloth-MiniMax-M2.jinja', 'minimax-m2'],
  ['llama-3', 'llama/meta-llama-Llama-3.3-70B-Instruct.jinja', 'llama'],
  ['mistral', 'mistral/mistralai-Mistral-Small-3.2-24B-Instruct-2506.jinja', 'mistral'],
  ['gemma-4', 'gemma-4/google-gemma-4-31B-it.2026-07.ollama-fixture.jinja', 'gemma-4'],
];

// deepseek-v3.2 departs from its reference (llama.cpp's DSML template) in two places, stated in
// templates/deepseek-v3.2.jinja and test/family-templates.test.ts: after a turn that already ends with the assistant
// prefix the reference's generation prompt adds an empty user turn and the prefix again; arguments given as a JSON
// string are dropped by the reference and refused by ours.
const DSML_DUPLICATE_PROMPT = (data) => `<｜User｜>\n<｜Assistant｜>${data.enable_thinking === false ? '</think>' : '<think>'}`;
const DSML_STRING_ARGUMENTS = 'tool-call arguments must be an object';

// Delimiters of the deepseek-v3.1 tool prompt (FORMATS.md §2); see templates/deepseek-v3.1.jinja.
const DEEPSEEK_BOS = '<｜begin▁of▁sentence｜>';
const TOOL_PROMPT_START = '## Tools\nYou have access to the following tools:\n';
const TOOL_PROMPT_END = '- For multiple tool calls, chain them directly without separators or spaces\n';

const SPANS_DRIVER = `
import importlib.util, json, sys
from datetime import datetime
spec = importlib.util.spec_from_file_location("render_ref", sys.argv[1])
rr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rr)
job = json.load(sys.stdin)
env = rr.make_environment(datetime.fromisoformat(job["now"]))
tokens = rr.load_special_tokens(job["tokens"])
try:
    template = env.from_string(open(job["template"], encoding="utf-8").read())
except Exception as e:
    template = e
for input_path in job["inputs"]:
    data = json.load(open(input_path, encoding="utf-8"))
    for args in job["args"]:
        try:
            if isinstance(template, Exception):
                raise template
            out = json.loads(rr.render_one(template, data, tokens, args, True))
        except Exception as e:
            out = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out, ensure_ascii=False))
`;

function python(args, input) {
  const result = spawnSync('python3', args, { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) {
    console.error(`python3 ${args.slice(0, 2).join(' ')} failed:\n${result.stderr}`);
    process.exit(2);
  }
  return result.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
}

/** Our deepseek-v3.1 text with the tool-prompt block (and the blank line that separates it) removed. */
function withoutToolPrompt(text) {
  const start = text.indexOf(TOOL_PROMPT_START);
  if (start < 0) return { text, found: false };
  const end = text.indexOf(TOOL_PROMPT_END, start);
  if (end < 0) return { text, found: false };
  const cut = start > DEEPSEEK_BOS.length ? start - 2 : start;
  return { text: text.slice(0, cut) + text.slice(end + TOOL_PROMPT_END.length), found: true };
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const listJson = (dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f));
const conversations = [...listJson(sharedInputs), ...listJson(ownInputs)];
const stems = conversations.map((file) => path.basename(file, '.json'));
if (new Set(stems).size !== stems.length) throw new Error('two conversations share a file name');

// Input JSON goes to Python verbatim (one line each) so `1.0`, big integers and key order survive.
const batchFile = path.join(os.tmpdir(), `chatfmt-family-inputs-${process.pid}.jsonl`);
writeFileSync(batchFile, conversations.map((f) => readFileSync(f, 'utf8').replace(/\r?\n/g, ' ').trim()).join('\n') + '\n');

const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
let mismatches = 0;
let files = 0;
try {
  for (const [id, official, tokens] of FAMILIES) {
    if (only.length > 0 && !only.includes(id)) continue;
    const target = path.join(outDir, id);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    const ours = python(['-c', SPANS_DRIVER, renderRef], JSON.stringify({
      now: NOW, tokens, template: path.join(repo, 'templates', `${id}.jinja`), inputs: conversations, args: ARGS,
    }));
    if (ours.length !== conversations.length * ARGS.length) throw new Error(`${id}: driver returned ${ours.length} results`);
    ARGS.forEach((args, argsIndex) => {
      const theirs = python([renderRef, path.join(officialDir, official), '--batch', batchFile, '--tokens', tokens, '--args', args, '--now', NOW]);
      if (theirs.length !== conversations.length) throw new Error(`${id}: --batch returned ${theirs.length} results`);
      conversations.forEach((file, i) => {
        const name = `${stems[i]}.${args}`;
        const base = path.join(target, name);
        const reference = theirs[i];
        const mine = ours[i * ARGS.length + argsIndex];
        if (reference.error !== undefined) writeFileSync(`${base}.error.txt`, reference.error + '\n');
        else writeFileSync(`${base}.txt`, reference.text);
        files++;
        if (mine.error === undefined) {
          writeFileSync(`${base}.spans.json`, JSON.stringify({ text: mine.text, generation_spans: mine.generation_spans }, null, 1) + '\n');
          files++;
        }
        const report = (why) => {
          mismatches++;
          console.log(`MISMATCH ${id} ${name}: ${why}`);
        };
        if (id === 'deepseek-v3.2' && reference.error === undefined && mine.error?.includes(DSML_STRING_ARGUMENTS)) return;
        if (reference.error !== undefined || mine.error !== undefined) {
          if (reference.error === undefined) report(`ours fails (${mine.error}), official renders`);
          else if (mine.error === undefined) report(`official fails (${reference.error}), ours renders`);
          return;
        }
        let text = mine.text;
        if (id === 'deepseek-v3.1') {
          const data = JSON.parse(readFileSync(file, 'utf8'));
          const stripped = withoutToolPrompt(text);
          const hasTools = Array.isArray(data.tools) && data.tools.length > 0;
          if (stripped.found !== hasTools) return report(hasTools ? 'tool prompt missing' : 'tool prompt without tools');
          text = stripped.text;
        }
        if (id === 'deepseek-v3.2' && text !== reference.text) {
          const data = JSON.parse(readFileSync(file, 'utf8'));
          if (data.add_generation_prompt && text + DSML_DUPLICATE_PROMPT(data) === reference.text) return;
        }
        if (text !== reference.text) {
          const at = firstDifference(text, reference.text);
          report(`text differs at ${at}\n  official: ${JSON.stringify(reference.text.slice(Math.max(0, at - 60), at + 60))}\n  ours:     ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 60))}`);
        }
      });
    });
  }
} finally {
  rmSync(batchFile, { force: true });
}
console.log(`goldens-family: ${files} files in ${path.relative(repo, outDir)}; ${mismatches} mismatch(es)`);
process.exit(mismatches > 0 ? 1 : 0);
