import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

// Issue 18 (start-up): `chatfmt --help` loaded the Jinja engine, the renderer and the dataset readers, and every
// command loaded all eight commands' modules. Start-up time is mostly module loading, so what a run loads is asserted
// here, by name, in a real process: src/ is compiled file by file (the module graph tsc emits) and a loader hook lists
// every module the process loads.

let folder = '';

beforeAll(async () => {
  const { build } = await import('esbuild');
  // Inside node_modules, so the compiled modules resolve their dependencies (commander) as dist/ does.
  folder = mkdtempSync(join(repoRoot, 'node_modules', '.chatfmt-modules-test-'));
  const sources = readdirSync(join(repoRoot, 'src'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  await build({ absWorkingDir: repoRoot, entryPoints: sources.map((file) => join('src', file)), outdir: join(folder, 'src'), format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent' });
  writeFileSync(join(folder, 'hooks.mjs'), 'let port;\nexport function initialize(data) { port = data.port; }\nexport async function load(url, context, next) { port.postMessage(url); return next(url, context); }\n');
  writeFileSync(
    join(folder, 'list-modules.mjs'),
    [
      "import { register } from 'node:module';",
      "import { MessageChannel } from 'node:worker_threads';",
      'const { port1, port2 } = new MessageChannel();',
      'const loaded = [];',
      'port1.on("message", (url) => loaded.push(url));',
      'port1.unref();',
      "register(new URL('./hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });",
      "process.on('exit', () => process.stderr.write(`\\nLOADED ${JSON.stringify(loaded)}\\n`));",
    ].join('\n'),
  );
  writeFileSync(join(folder, 'cli.mjs'), "import { main } from './src/cli/process.js';\nawait main(process.argv.slice(2));\n");
  // A program that imports an entry point (argv: its path under src/) and renders once with it.
  writeFileSync(
    join(folder, 'render-with.mjs'),
    "const { render } = await import(new URL(`./src/${process.argv[2]}`, import.meta.url).href);\nif (!render({ family: 'qwen3', messages: [{ role: 'user', content: 'hi' }] }).text.includes('hi')) process.exit(1);\n",
  );
  // A program that imports an entry point (argv: its path under src/) and parses a completion with it, batch and
  // streamed.
  writeFileSync(
    join(folder, 'parse-with.mjs'),
    [
      "const { parse, createStreamParser } = await import(new URL(`./src/${process.argv[2]}`, import.meta.url).href);",
      'const text = \'<tool_call>\\n{"name": "f", "arguments": {"a": 1}}\\n</tool_call>\';',
      "if (parse(text, { family: 'qwen3' }).tool_calls.length !== 1) process.exit(1);",
      "const stream = createStreamParser({ family: 'qwen3' });",
      'const deltas = [...text].flatMap((char) => stream.push(char)).concat(stream.finish());',
      'if (!deltas.some((delta) => delta.tool_calls?.[0]?.function?.name === "f")) process.exit(1);',
    ].join('\n'),
  );
  // Imports an entry point (argv: its path under src/), renders, then validates a row whose tool schema has a pattern
  // and builds a tokenizer; prints the heavy dependencies loaded (by import or by require) after each step.
  writeFileSync(
    join(folder, 'heavy-deps.mjs'),
    [
      "import { createRequire } from 'node:module';",
      "import { tinyChatTokenizerJson } from './tiny-tokenizer.js';",
      'const required = createRequire(import.meta.url).cache;',
      'const steps = {};',
      "const heavy = () => Object.keys(required).filter((path) => /node_modules\\/(ajv|re2js|@huggingface\\/tokenizers)\\//.test(path)).map((path) => path.match(/node_modules\\/(ajv|re2js|@huggingface\\/tokenizers)\\//)[1]);",
      'const lib = await import(new URL(`./src/${process.argv[2]}`, import.meta.url).href);',
      "lib.render({ family: 'qwen3', messages: [{ role: 'user', content: 'hi' }] });",
      'steps.render = [...new Set(heavy())];',
      "const validator = await lib.createRowValidator({ shape: 'openai' });",
      "const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]+$' } } } } };",
      "const call = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{\"code\": \"ABC\"}' } };",
      "const row = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [call] }], tools: [tool] };",
      'steps.issues = validator.validate({ line: 1, text: JSON.stringify(row) }).issues.map((issue) => issue.code);',
      'steps.validate = [...new Set(heavy())];',
      'lib.createTokenizer(tinyChatTokenizerJson());',
      'steps.tokenizer = [...new Set(heavy())];',
      'process.stderr.write(`\\nSTEPS ${JSON.stringify(steps)}\\n`);',
      'process.exit(0);',
    ].join('\n'),
  );
  await build({ absWorkingDir: repoRoot, entryPoints: ['test/convert/tiny-tokenizer.ts'], outdir: folder, format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent' });
}, 120_000);

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Runs the CLI; returns its exit code and what it loaded: src/ modules as paths under src/, built-ins as node:… */
function loadedBy(argv: string[], input = '', script = 'cli.mjs'): { code: number | null; modules: string[]; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(join(folder, 'list-modules.mjs')).href, join(folder, script), ...argv], {
    cwd: repoRoot,
    input,
    encoding: 'utf8',
  });
  const line = result.stderr.split('\n').find((text) => text.startsWith('LOADED '));
  if (!line) throw new Error(`no module list: ${result.stderr}`);
  const urls = JSON.parse(line.slice('LOADED '.length)) as string[];
  const modules = urls.map((url) => (url.startsWith('file:') ? relative(folder, new URL(url).pathname) : url));
  return { code: result.status, modules, stderr: result.stderr };
}

const under = (modules: string[], ...folders: string[]) => modules.filter((module) => folders.some((prefix) => module.startsWith(prefix)));

describe('what a CLI run loads', () => {
  it('--version loads no command definitions', () => {
    const { code, modules } = loadedBy(['--version']);
    expect(code).toBe(0);
    expect(under(modules, 'src/cli/commands/')).toEqual(['src/cli/commands/index.js']);
  });

  it('--help loads the command definitions, not the engine behind them', () => {
    const { code, modules } = loadedBy(['--help']);
    expect(code).toBe(0);
    expect(under(modules, 'src/cli/commands/')).toHaveLength(10); // index + nine commands, for the command list
    expect(under(modules, 'src/jinja/compile', 'src/jinja/parser', 'src/jinja/lexer', 'src/render/', 'src/node/', 'src/families/templates', 'src/readers/jsonl', 'src/readers/source', 'src/parse/engine', 'src/detect/', 'src/gateway/', 'src/response-template/', 'src/convert/index', 'src/playground/')).toEqual([]);
  });

  it('a command loads its own definition only, and its action what it uses', () => {
    const help = loadedBy(['render', '--help']);
    expect(help.code).toBe(0);
    expect(under(help.modules, 'src/cli/commands/')).toEqual(['src/cli/commands/index.js', 'src/cli/commands/render.js']);
    expect(under(help.modules, 'src/render/', 'src/jinja/compile')).toEqual([]);

    const rendered = loadedBy(['render', '--family', 'qwen3', join(repoRoot, 'fixtures', 'conversations', 'weather.json')]);
    expect(rendered.code).toBe(0);
    expect(under(rendered.modules, 'src/cli/commands/')).toEqual(['src/cli/commands/index.js', 'src/cli/commands/render.js', 'src/cli/commands/render-run.js']);
    expect(rendered.modules).toEqual(expect.arrayContaining(['src/render/render.js', 'src/jinja/compile.js']));
    expect(under(rendered.modules, 'src/parse/', 'src/detect/', 'src/gateway/', 'src/format/', 'src/convert/importers/index', 'src/validate/validate', 'src/validate/row', 'src/validate/pool', 'src/registry/')).toEqual([]);
  });

  it('a render from a file loads neither compression nor crypto', () => {
    const { code, modules } = loadedBy(['render', '--family', 'qwen3', join(repoRoot, 'fixtures', 'conversations', 'weather.json')]);
    expect(code).toBe(0);
    expect(modules.filter((module) => ['node:zlib', 'node:crypto'].includes(module))).toEqual([]);
  });
});

describe('what importing the library loads', () => {
  const unneededByRender = (modules: string[]) => [
    ...under(modules, 'src/parse/', 'src/detect/', 'src/gateway/', 'src/format/', 'src/readers/', 'src/validate/', 'src/convert/', 'src/registry/'),
    ...modules.filter((module) => /node_modules\/(ajv|re2js|@huggingface\/tokenizers)\//.test(module)),
  ];

  it('chatfmt/render renders without parse, detect, datasets or their dependencies', () => {
    const { code, modules } = loadedBy(['render-entry.js'], '', 'render-with.mjs');
    expect(code).toBe(0);
    expect(unneededByRender(modules)).toEqual([]);
  });

  it('chatfmt (the whole library) loads them, which is what chatfmt/render spares', () => {
    const { code, modules } = loadedBy(['index.js'], '', 'render-with.mjs');
    expect(code).toBe(0);
    expect(unneededByRender(modules).length).toBeGreaterThan(0);
  });
});

describe('what a program that only parses loads', () => {
  // Parsing needs the families' tokens and grammars and the response-template executor, nothing that renders.
  const unneededByParse = (modules: string[]) => [
    ...under(modules, 'src/jinja/compile', 'src/jinja/parser', 'src/jinja/lexer', 'src/render/', 'src/families/templates', 'src/registry/families', 'src/node/', 'src/detect/', 'src/format/', 'src/readers/', 'src/validate/', 'src/convert/', 'src/gateway/'),
    ...modules.filter((module) => /node_modules\/(ajv|re2js|@huggingface\/tokenizers)\//.test(module)),
  ];

  it('chatfmt/parse parses without the Jinja compiler, the renderer, the family templates or datasets', () => {
    const { code, modules } = loadedBy(['parse-entry.js'], '', 'parse-with.mjs');
    expect(code).toBe(0);
    expect(modules).toEqual(expect.arrayContaining(['src/parse/stream.js', 'src/registry/parser-table.js']));
    expect(unneededByParse(modules)).toEqual([]);
  });

  it('chatfmt (the whole library) loads them, which is what chatfmt/parse spares', () => {
    const { code, modules } = loadedBy(['index.js'], '', 'parse-with.mjs');
    expect(code).toBe(0);
    expect(unneededByParse(modules).length).toBeGreaterThan(0);
  });
});

describe('the heavy dependencies (ajv, re2js, @huggingface/tokenizers)', () => {
  function steps(entry: string): Record<string, string[]> {
    const { code, modules, stderr } = loadedBy([entry], '', 'heavy-deps.mjs');
    expect(code, stderr).toBe(0);
    const line = stderr.split('\n').find((text) => text.startsWith('STEPS '))!;
    const imported = modules.filter((module) => /node_modules\/(ajv|re2js|@huggingface\/tokenizers)\//.test(module));
    return { imported, ...(JSON.parse(line.slice('STEPS '.length)) as Record<string, string[]>) };
  }

  it("importing chatfmt and rendering loads none of them; each loads when a call first needs it", () => {
    const seen = steps('index.js');
    expect(seen.imported).toEqual([]);
    expect(seen.render).toEqual([]);
    // The pattern is checked by ajv running re2js: the row's argument does not match it.
    expect(seen.issues).toContain('ARGS_SCHEMA_MISMATCH');
    expect([...seen.validate!].sort()).toEqual(['ajv', 're2js']);
    expect([...seen.tokenizer!].sort()).toEqual(['@huggingface/tokenizers', 'ajv', 're2js']);
  });
});
