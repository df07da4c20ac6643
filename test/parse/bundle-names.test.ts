import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatTurn } from '../../src/index.js';
import type { Tool } from '../../src/types.js';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 18 (the cold first parse): the published bundles keep function names (esbuild keepNames), which defines a
// function's `name` with Object.defineProperty wherever a named function is created. A named helper made per call
// (a closure in a codec made for each call, or per harmony header) paid that on every call: slow in any tier and a
// visible share of a first parse, which runs in V8's unoptimised tiers. Checked on a real bundle built with the
// library's bundle options: the names defined while parsing do not grow with the number of calls.

const tools: Tool[] = [
  {
    type: 'function',
    function: { name: 'write_file', description: 'Write a file.', parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } },
  },
];

const CHILD = `
import { readFileSync } from 'node:fs';
const [bundle, file] = process.argv.slice(1);
const define = Object.defineProperty;
let counting = false;
let names = 0;
// Installed before the bundle loads, so its name-keeping helper (which holds Object.defineProperty) counts through it.
Object.defineProperty = function (target, key, descriptor) {
  if (counting && key === 'name' && typeof target === 'function') names++;
  return define(target, key, descriptor);
};
const { parse } = await import(bundle);
const cases = JSON.parse(readFileSync(file, 'utf8'));
const out = {};
for (const { family, prefix, few, many } of cases) {
  const options = { family, tools: ${JSON.stringify(tools)}, prefix };
  parse(few.text, options); // the family's first use (grammar compile) is not what is counted
  const counted = (text) => { names = 0; counting = true; const message = parse(text, options); counting = false; return { names, calls: message.tool_calls.length }; };
  out[family] = { few: counted(few.text), many: counted(many.text) };
}
process.stdout.write(JSON.stringify(out));
`;

const families = ['hermes', 'qwen3', 'llama-3', 'gpt-oss', 'mistral', 'deepseek-r1', 'qwen3-coder', 'gemma-4'];

function completion(family: string, calls: number): { text: string; prefix: string } {
  // One call per message: every family writes that (Llama 3 and harmony write no parallel calls).
  const parts: string[] = [];
  let prefix = '';
  for (let i = 0; i < calls; i++) {
    const call = { id: `call_${i}`, type: 'function' as const, function: { name: 'write_file', arguments: { path: `/tmp/f${i}.py`, content: `print(${i})\n` } } };
    const formatted = formatTurn({ role: 'assistant', content: '', tool_calls: [call] }, { family, tools });
    if (i === 0) prefix = formatted.prompt;
    parts.push(formatted.completion);
  }
  return { text: parts.join(family === 'gpt-oss' ? '<|start|>assistant' : '\n'), prefix };
}

describe('the bundle defines no function names per call while parsing', () => {
  let result: Record<string, { few: { names: number; calls: number }; many: { names: number; calls: number } }> = {};

  beforeAll(async () => {
    const dir = tempDir('chatfmt-bundle-names-');
    const { nodeBundleOptions } = (await import(pathToFileURL(join(repoRoot, 'scripts', 'bundle-options.mjs')).href)) as { nodeBundleOptions: Record<string, unknown> };
    await build({ ...nodeBundleOptions, entryPoints: { core: join(repoRoot, 'src', 'core.ts') }, outdir: join(dir.path, 'lib'), logLevel: 'error' });
    const cases = families.map((family) => {
      const few = completion(family, 2);
      return { family, prefix: few.prefix, few, many: completion(family, 12) };
    });
    const file = dir.write('cases.json', JSON.stringify(cases));
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, pathToFileURL(join(dir.path, 'lib', 'core.js')).href, file], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`bundle child failed: ${run.stderr}`);
    result = JSON.parse(run.stdout);
  }, 120_000);

  it.each(families)('%s', (family) => {
    const { few, many } = result[family]!;
    // The completions parse as calls (else the count would say nothing about the per-call path).
    expect([few.calls, many.calls]).toEqual([2, 12]);
    expect(many.names).toBe(few.names);
  });
});
