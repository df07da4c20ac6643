// The floor for warm rendering: the same prompt written by a hand-written serialiser, the way an application that
// supports one family without a template engine would write it. Each serialiser must produce chatfmt's bytes for
// the benchmark conversation (checked before timing), so the ratio compares equal work.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileTemplate, parsePythonJson, pythonJsonDumps } from '../dist/index.js';
import { flat, fmt, root, shared, table } from './lib.mjs';

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
const quote = (s) => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"');

/** json.dumps(value) with Python's default separators, for JSON-shaped data (what these conversations hold). */
function pyJson(value) {
  if (typeof value === 'string') return quote(value);
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ', ' : '') + pyJson(value[i]);
    return out + ']';
  }
  let out = '{';
  let first = true;
  for (const key in value) {
    out += (first ? '' : ', ') + quote(key) + ': ' + pyJson(value[key]);
    first = false;
  }
  return out + '}';
}

const stripNewlines = (s, left, right) => {
  let a = 0;
  let b = s.length;
  if (left) while (a < b && s[a] === '\n') a++;
  if (right) while (b > a && s[b - 1] === '\n') b--;
  return s.slice(a, b);
};

/** Qwen3-0.6B's chat format: tools in the system turn, reasoning kept after the last real user query only. */
function qwen3({ messages, tools, add_generation_prompt: addGenerationPrompt, enable_thinking: enableThinking }) {
  let out = '';
  if (tools && tools.length) {
    out += '<|im_start|>system\n';
    if (messages[0].role === 'system') out += messages[0].content + '\n\n';
    out += '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>';
    for (const tool of tools) out += '\n' + pyJson(tool);
    out += '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';
  } else if (messages[0].role === 'system') {
    out += '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n';
  }
  let lastQuery = messages.length - 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user' && !(m.content.startsWith('<tool_response>') && m.content.endsWith('</tool_response>'))) {
      lastQuery = i;
      break;
    }
  }
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const last = i === messages.length - 1;
    if (m.role === 'user' || (m.role === 'system' && i > 0)) {
      out += '<|im_start|>' + m.role + '\n' + m.content + '<|im_end|>\n';
    } else if (m.role === 'assistant') {
      let content = m.content;
      let reasoning = '';
      if (m.reasoning_content != null) reasoning = m.reasoning_content;
      else if (content.includes('</think>')) {
        const parts = m.content.split('</think>');
        content = stripNewlines(parts[parts.length - 1], true, false);
        const before = stripNewlines(parts[0], false, true).split('<think>');
        reasoning = stripNewlines(before[before.length - 1], true, false);
      }
      if (i > lastQuery && (last || reasoning)) {
        out += '<|im_start|>assistant\n<think>\n' + stripNewlines(reasoning, true, true) + '\n</think>\n\n' + stripNewlines(content, true, false);
      } else {
        out += '<|im_start|>assistant\n' + content;
      }
      const calls = m.tool_calls ?? [];
      for (let c = 0; c < calls.length; c++) {
        if (c > 0 || content) out += '\n';
        const call = calls[c].function ?? calls[c];
        const args = typeof call.arguments === 'string' ? call.arguments : pyJson(call.arguments);
        out += '<tool_call>\n{"name": "' + call.name + '", "arguments": ' + args + '}\n</tool_call>';
      }
      out += '<|im_end|>\n';
    } else if (m.role === 'tool') {
      if (i === 0 || messages[i - 1].role !== 'tool') out += '<|im_start|>user';
      out += '\n<tool_response>\n' + m.content + '\n</tool_response>';
      if (last || messages[i + 1].role !== 'tool') out += '<|im_end|>\n';
    }
  }
  if (addGenerationPrompt) {
    out += '<|im_start|>assistant\n';
    if (enableThinking === false) out += '<think>\n\n</think>\n\n';
  }
  return out;
}

/** Devstral-Small-2507 (Unsloth's template): tools as one JSON list after the system prompt, calls as [TOOL_CALLS]N[ARGS]{json}. */
function devstral({ messages, tools, bos_token: bos, eos_token: eos }) {
  // Without a system message the template writes Devstral's long default prompt; the benchmark conversation has one.
  if (messages[0].role !== 'system') throw new Error('devstral: this serialiser needs a system message');
  let out = bos + '[SYSTEM_PROMPT]' + messages[0].content + '[/SYSTEM_PROMPT]';
  if (tools && tools.length) out += '[AVAILABLE_TOOLS]' + pyJson(tools) + '[/AVAILABLE_TOOLS]';
  for (let i = 1; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'user') out += '[INST]' + m.content + '[/INST]';
    else if (m.role === 'system') out += '[SYSTEM_PROMPT]' + m.content + '[/SYSTEM_PROMPT]';
    else if (m.role === 'assistant') {
      out += m.content;
      for (const call of m.tool_calls ?? []) {
        const args = call.function.arguments;
        out += '[TOOL_CALLS]' + call.function.name + '[ARGS]' + (typeof args === 'string' ? args : pyJson(args));
      }
      out += eos;
    } else if (m.role === 'tool') out += '[TOOL_RESULTS]' + m.content + '[/TOOL_RESULTS]';
    else throw new Error(`devstral: unsupported role ${m.role}`);
  }
  return out;
}

export const CASES = [
  { name: 'qwen3/Qwen-Qwen3-0.6B', family: 'qwen3', file: 'Qwen-Qwen3-0.6B.jinja', serialise: qwen3 },
  { name: 'mistral/unsloth-mistral-Devstral-Small-2507', family: 'mistral', file: 'unsloth-mistral-Devstral-Small-2507.jinja', serialise: devstral },
];

/** Microseconds per call of each function: the best of many alternating batches of 10 calls (each output flattened). */
function bestTimes(fns, rounds) {
  const best = fns.map(() => Infinity);
  for (let round = 0; round < rounds; round++) {
    fns.forEach((fn, k) => {
      const start = performance.now();
      for (let i = 0; i < 10; i++) fn().charCodeAt(0);
      best[k] = Math.min(best[k], (performance.now() - start) * 100);
    });
  }
  return best;
}

/**
 * What each tojson change bought (issue 18, round three), measured by hand: each commit's dist/ loaded side by side
 * in one process, interleaved batches of 20, best of 140–150 (wall; CPU time agreed within 1%), at a load average
 * of 10–20. tools tojson, Devstral and Qwen3 are the rows that change; DeepSeek-V3.2 and gemma-4 stayed within noise.
 */
const TOJSON_CHANGES = [
  ['before (one recursive pass, short strings checked by a loop)', '5.5', '6.0', '367', '200', '20.6', '36.2'],
  ['+ quoted short strings and keys (with ": ") remembered in Maps', '3.5', '3.8', '612', '–', '18.8', '32.9'],
  ['+ one wrapper per filter instead of up to three nested', '3.4', '–', '–', '–', '18.1', '33.2'],
  ['+ Maps replaced by direct-mapped tables (a collision replaces the slot)', '3.4', '3.8', '414', '147', '18.2', '32.9'],
  ['+ a busy flag instead of saving the settings in an array per call', '3.4', '3.6', '425', '137', '18.2', '32.9'],
];

const TOJSON_NOTES = [
  'Columns: tools tojson = `pythonJsonDumps` of the three tool schemas (µs; the same objects every call, then fresh',
  'objects from a new parse every call, as a server sees them); all-new = 1,000 one-key dicts whose keys and values never',
  'recur (µs; the cache\'s worst case); small = ns per `pythonJsonDumps` of five small argument values; Devstral and',
  'Qwen3 = µs per warm render. The Map version made all-new strings 1.7× slower; the tables cost 1.15× there. tojson',
  'now runs at about `JSON.stringify`\'s speed (0.9–1.1× between runs, the live table above; was 1.4×).',
  '`sort`/`dictsort` compare surrogate-free string keys directly: gemma-4 0.98–1.02×, noise.',
];

/**
 * What each change for the slowest official templates bought (issue 18, round four), measured by hand on 2026-11-26
 * at a load average of 7–11: each commit's src/ bundled alone (esbuild, unminified) and run in its own process, the
 * six builds alternated three times, CPU µs per warm render as the best of 60 batches of 40 after 1,500 warm-up
 * renders, with render.mjs's conversation and variables. Runs move by about ±5% (an outlier batch of the loaded
 * machine shows as a step back), so read the last row against the first.
 */
const WORST_CHANGES = [
  ['before (main 2bcd300)', '14.4', '81.6', '39.7', '33.7', '6.9', '21.3'],
  ['+ `a ~ b ~ c` in one closure per arity, adjacent literals joined at compile time', '14.2', '83.0', '35.8', '27.3', '7.4', '21.7'],
  ['+ `x[\'key\']` missing from a dict goes straight to the attribute read; `x[\'key\'] is defined` builds no Undefined', '13.9', '72.4', '34.1', '26.2', '6.8', '20.8'],
  ['+ if/elif chains on one read (`message[\'role\'] == \'user\'`) find their branch in a table', '12.3', '71.9', '34.3', '29.5', '5.6', '20.7'],
  ['+ `dictsort` of small dicts by insertion, flat lists printed without the repr walk', '12.0', '66.2', '33.0', '26.4', '5.8', '21.1'],
  ['+ `namespace(k=v)` built directly', '12.6', '64.8', '32.6', '25.3', '6.0', '20.1'],
];

const WORST_NOTES = [
  'Columns: CPU µs per warm render of mistral/unsloth-mistral-Devstral-Small-2507, gemma-4/google-gemma-4-31B-it.launch,',
  'qwen3-coder/Qwen-Qwen3-Coder-30B-A3B-Instruct, minimax-m2/unsloth-MiniMax-M2, kimi-k2/moonshotai-Kimi-K2-Instruct-initial',
  'and deepseek/vllm-tool_chat_template_deepseekv3. First row to last: Devstral 1.14×, gemma-4 launch 1.26×, Qwen3-Coder',
  '1.22×, MiniMax-M2 1.33×, Kimi-K2 initial 1.14×, DeepSeek vLLM 1.06×; Llama 3.2 and 3.3 stayed within noise.',
  'Costs found on the way (ns per use, in small loops): a keyword-argument macro call 410 against 100 positional',
  '(null-prototype keyword objects), `namespace()` 320 before its shape, a `{% set %}` 80, `x is string` 90 with its read;',
  'Devstral\'s largest remaining piece is `tools|tojson` (a fifth of a render, already at `JSON.stringify` speed).',
];

/**
 * This round's interpreter changes against the hand-written serialisers (issue 18, round five), measured by hand on
 * 2026-11-26 at a load average of 4–9: main daf0578's src/jinja and the branch's bundled alone, each in its own process
 * with the serialisers, alternating batches of 20 renders, CPU µs (process.cpuUsage) as the best of 150 batches, three
 * alternations. Allocation: bytes per render from V8's sampling heap profiler, collected objects included. The changes
 * themselves are the third pass of the interpreter table above.
 */
const HANDWRITTEN_CHANGES = [
  ['before (main daf0578)', '7.3', '19.3', '2.64×', '6.7', '12.8', '1.92×', '12.5k', '9.1k'],
  ['after the third pass', '7.2', '18.7', '2.60×', '6.6', '11.8', '1.79×', '10.5k', '8.8k'],
];

const HANDWRITTEN_NOTES = [
  'Columns: Qwen3-0.6B hand-written µs, chatfmt µs and their ratio; the same for Devstral; bytes chatfmt allocates per render of',
  'Qwen3 and Devstral. CPU time puts the gap lower than the wall-clock table above (loaded machine: wall time counts the waits).',
  'What is left of it is spread over the closures themselves, the Python-semantics checks of each read, test and `+`, and the',
  'scope chain: no function but `tojson` (a fifth of Devstral, at `JSON.stringify` speed) holds more than about 5% of a render.',
];

/** µs per call of each function over fresh values: each call gets the next of `pool` prebuilt values. */
function bestOverPool(fns, pool, rounds) {
  const best = fns.map(() => Infinity);
  let at = 0;
  for (let round = 0; round < rounds; round++) {
    fns.forEach((fn, k) => {
      const start = performance.now();
      for (let i = 0; i < 10; i++) fn(pool[(at + i) % pool.length]).charCodeAt(0);
      best[k] = Math.min(best[k], (performance.now() - start) * 100);
    });
    at += 10;
  }
  return best;
}

/** tools|tojson against the hand-written json.dumps and JSON.stringify: same and fresh objects, and indent=4. */
function tojsonRows(quick) {
  const text = readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8');
  const rounds = quick ? 60 : 300;
  const pool = Array.from({ length: rounds * 10 }, () => parsePythonJson(text).tools);
  const fns = [(v) => pythonJsonDumps(v), (v) => pyJson(v), (v) => JSON.stringify(v)];
  if (fns[0](pool[0]) !== fns[1](pool[0])) throw new Error('tojson: the hand-written json.dumps differs from chatfmt\'s');
  for (let i = 0; i < 2000; i++) for (const fn of fns) fn(pool[0]);
  const same = bestTimes(fns.map((fn) => () => fn(pool[0])), rounds);
  const fresh = bestOverPool(fns, pool, rounds);
  const indented = [(v) => pythonJsonDumps(v, { indent: 4 }), (v) => JSON.stringify(v, null, 4)];
  // With an indent, Python's bytes and JSON.stringify's agree on this data: the anchor writes the same text.
  if (indented[0](pool[0]) !== indented[1](pool[0])) throw new Error('tojson indent=4: differs from JSON.stringify');
  for (let i = 0; i < 2000; i++) for (const fn of indented) fn(pool[0]);
  const [oursIndented, nativeIndented] = bestTimes(indented.map((fn) => () => fn(pool[0])), rounds);
  const row = ([name, ours, hand, native]) => [name, fmt(ours, 2), hand === null ? '–' : fmt(hand, 2), fmt(native, 2), `${fmt(ours / native, 2)}×`];
  return [['same objects', ...same], ['fresh objects', ...fresh], ['indent=4, same objects', oursIndented, null, nativeIndented]].map(row);
}

/**
 * chatfmt's warm render time over the hand-written serialiser's. Both run in alternating batches of 10 in one
 * process, and each keeps its best batch: on a loaded machine that is the batch nothing preempted.
 */
/** µs per render of the case named `name`, hand-written and chatfmt, in this process: [hand, chatfmt]. */
export function measureCase(name, rounds) {
  const c = CASES.find((candidate) => candidate.name === name);
  const specialTokens = JSON.parse(readFileSync(join(shared, 'templates', 'special_tokens.json'), 'utf8'));
  const data = parsePythonJson(readFileSync(join(root, 'bench', 'data', 'medium.json'), 'utf8'));
  const vars = { ...specialTokens[c.family], messages: data.messages, tools: data.tools, documents: null, add_generation_prompt: true };
  const template = compileTemplate(readFileSync(join(shared, 'templates', 'official', c.family, c.file), 'utf8'), { name: c.file });
  const engine = () => flat(template.render(vars, { reuse: false }).text);
  const hand = () => flat(c.serialise(vars));
  if (engine() !== hand()) throw new Error(`${c.name}: the hand-written serialiser's text differs from chatfmt's`);
  for (let i = 0; i < 2000; i++) engine(), hand();
  return bestTimes([hand, engine], rounds);
}

/**
 * The same in a child process that renders nothing else, as a program serving one model does: the interpreter's
 * closures are one piece of code for every template, so V8 compiles them for the templates a process has rendered.
 * The median child of three.
 */
function measureAlone(name, rounds) {
  const source = `import { measureCase } from ${JSON.stringify(new URL(import.meta.url).href)};
process.stdout.write(JSON.stringify(measureCase(process.argv[1], Number(process.argv[2]))));`;
  const runs = [0, 1, 2].map(() => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', source, name, String(rounds)], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`hand-written child (${name}): ${run.stderr.trim().split('\n').pop()}`);
    return JSON.parse(run.stdout);
  });
  return runs.sort((a, b) => a[1] / a[0] - b[1] / b[0])[1];
}

export function handwrittenSection({ quick = false, only = null } = {}) {
  const rows = [];
  const rounds = quick ? 60 : 300;
  const ratios = [];
  for (const c of CASES) {
    if (only && !c.name.includes(only)) continue;
    const [handAlone, engineAlone] = measureAlone(c.name, rounds);
    const [hand, engine] = measureCase(c.name, rounds);
    ratios.push(engineAlone / handAlone);
    rows.push([c.name, fmt(handAlone, 1), fmt(engineAlone, 1), `${fmt(engineAlone / handAlone, 2)}×`, fmt(hand, 1), fmt(engine, 1), `${fmt(engine / hand, 2)}×`]);
  }
  return [
    '### Against a hand-written serialiser',
    '',
    'bench/render-handwritten.mjs writes the same prompt directly (string concatenation, a small recursive json.dumps that',
    'quotes strings itself and calls JSON.stringify only for those that need escapes); its text is checked byte-identical to',
    'chatfmt\'s before timing. µs per render: the best of alternating batches of 10, each text flattened (both build it by',
    '`+=`). Alone: in a child process that renders only that template, as a program serving one model does (the median of',
    'three children). After the others: in the bench\'s own process, which has rendered every official template first;',
    'the interpreter\'s closures are one piece of code for all templates, and V8 compiles them for every shape it has',
    'seen. Goal: within 1.5×.',
    '',
    table(['template', 'alone: hand-written µs', 'alone: chatfmt µs', 'alone: chatfmt / hand-written', 'after the others: hand-written µs', 'chatfmt µs', 'chatfmt / hand-written'], rows),
    '',
    `Alone, chatfmt takes ${ratios.map((r) => `${fmt(r, 2)}×`).join(' and ')} the hand-written serialiser's time (goal ≤ 1.5×).`,
    '',
    'What the third interpreter pass bought against them (CPU µs per render):',
    '',
    table(['build', 'Qwen3 hand', 'Qwen3 chatfmt', 'ratio', 'Devstral hand', 'Devstral chatfmt', 'ratio', 'Qwen3 alloc', 'Devstral alloc'], HANDWRITTEN_CHANGES),
    '',
    ...HANDWRITTEN_NOTES,
    '',
    '#### tojson',
    '',
    'The three tool schemas (µs per call, best of alternating batches of 10): chatfmt\'s `pythonJsonDumps` (what `|tojson`',
    'runs), the hand-written json.dumps above (same bytes, checked), and `JSON.stringify` (compact: not Python\'s bytes, the',
    'native anchor; with indent=4 its bytes are Python\'s).',
    '',
    table(['tools', 'chatfmt µs', 'hand-written µs', 'JSON.stringify µs', 'chatfmt / JSON.stringify'], tojsonRows(quick)),
    '',
    'What each change bought:',
    '',
    table(['build', 'tools tojson µs', 'fresh tools µs', 'all-new µs', 'small ns', 'Devstral µs', 'Qwen3 µs'], TOJSON_CHANGES),
    '',
    ...TOJSON_NOTES,
    '',
    '#### The slowest official templates: what each change bought (CPU µs per warm render)',
    '',
    table(['build', 'Devstral', 'gemma-4 launch', 'Qwen3-Coder', 'MiniMax-M2', 'Kimi-K2 initial', 'DeepSeek vLLM'], WORST_CHANGES),
    '',
    ...WORST_NOTES,
  ].join('\n');
}
