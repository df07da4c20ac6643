import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as core from '../../src/core.js';
import { tempDir } from '../helpers/tmp.js';
import { buildConformance, buildCore } from './bundle.js';
import { asJson, nodeBaseline } from './cases.js';
import type { ConformanceInput, ConformanceOutput } from './conformance.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tmp = tempDir('chatfmt-core-');
const chat = { messages: [{ role: 'user', content: 'hi' }] };

function failure(load: () => unknown): { code: string; message: string } {
  try {
    load();
  } catch (error) {
    return { code: (error as core.ChatfmtError).code, message: (error as Error).message };
  }
  return { code: 'no error', message: '' };
}

// process, Buffer and console in a core module are type errors under tsconfig.core.json (npm run typecheck).
describe('the core bundle', () => {
  it('builds for the browser from core modules only', () => {
    const built = buildCore(tmp.path + '/bundle');
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const report = built.report!;
    expect(report.inputs).toContain('src/core.ts');
    const notCore = report.inputs.filter((input) => !/^src\/(core\.ts|errors\.ts|families|registry|jinja|render|parse|export|detect|format|response-template|util)\//.test(input) && input !== 'src/core.ts' && input !== 'src/errors.ts');
    expect(notCore).toEqual([]);
    for (const file of ['chatfmt.js', 'chatfmt.iife.js']) {
      const text = readFileSync(`${tmp.path}/bundle/${file}`, 'utf8');
      expect(text).not.toMatch(/["']node:|\brequire\(/);
      // Edge runtimes (Cloudflare Workers) refuse code generation from strings; templates compile to closures.
      expect(text).not.toMatch(/\bnew Function\b|\beval\(/);
      expect(report.sizes[file]!.gzip).toBeLessThan(report.sizes[file]!.bytes);
    }
  });

  it('fails the build when a core module imports a Node builtin', () => {
    const entry = tmp.write('sneaky/entry.ts', `export * from '${root}src/core.ts';\nexport { readFileSync } from 'node:fs';\n`);
    const built = buildCore(tmp.path + '/sneaky/out', ['--entry', entry]);
    expect(built.status).toBe(1);
    expect(built.stderr).toMatch(/node:fs/);
  });

  it('runs the conformance subset in a vm context with no process, Buffer or require, as Node does', async () => {
    const dir = tmp.path + '/vm';
    expect(buildCore(dir).status).toBe(0);
    await buildConformance(dir);
    const { input, output } = nodeBaseline();
    // Only Web Crypto is lent: it is what a browser or Worker has and a bare V8 context lacks.
    const context = createContext({ crypto: { getRandomValues: (array: Uint8Array) => webcrypto.getRandomValues(array) } });
    runInContext(readFileSync(`${dir}/chatfmt.iife.js`, 'utf8'), context);
    runInContext(readFileSync(`${dir}/conformance.iife.js`, 'utf8'), context);
    context.input = JSON.stringify(input);
    const result = JSON.parse(runInContext('JSON.stringify(conformance.runConformance(chatfmt, JSON.parse(input)))', context)) as ConformanceOutput;
    expect(result.globals).toEqual({ process: 'undefined', Buffer: 'undefined', require: 'undefined' });
    expect(result.render).toEqual(asJson(output.render));
    expect(result.parse).toEqual(asJson(output.parse));
  });
});

describe('package exports', () => {
  // Resolved by Node itself from package.json (a package may import itself by name); no build needed.
  function resolved(specifier: string, condition?: string): string {
    const args = [...(condition ? [`--conditions=${condition}`] : []), '--input-type=module', '-e', `process.stdout.write(import.meta.resolve(${JSON.stringify(specifier)}))`];
    const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    return result.stdout.slice(`file://${root}`.length);
  }

  it("'chatfmt' is the full library in Node and the core under the browser and worker conditions; 'chatfmt/core' always the core", () => {
    expect(resolved('chatfmt')).toBe('dist/index.js');
    expect(resolved('chatfmt', 'browser')).toBe('dist/core.js');
    expect(resolved('chatfmt', 'worker')).toBe('dist/core.js');
    expect(resolved('chatfmt/core')).toBe('dist/core.js');
  });

  it("'chatfmt/parse' is the parser alone under every condition (it needs no Node API)", () => {
    for (const condition of [undefined, 'browser', 'worker']) expect(resolved('chatfmt/parse', condition)).toBe('dist/parse-entry.js');
  });
});

describe('the conformance subset in Node (the baseline the other environments must equal)', () => {
  it('renders every family golden byte for byte, with its generation spans', () => {
    const { output, goldens } = nodeBaseline();
    expect(output.render.length).toBeGreaterThanOrEqual(150);
    for (const outcome of output.render) {
      expect(outcome.error, outcome.name).toBeUndefined();
      expect(outcome.text, outcome.name).toBe(goldens.get(outcome.name)!.text);
      expect(outcome.spans, outcome.name).toEqual(goldens.get(outcome.name)!.spans);
    }
  });

  it('parses every fixture, stream equal to batch under every chunking', () => {
    const { output, input } = nodeBaseline();
    expect(output.parse.length).toBe(input.parse.length);
    for (const outcome of output.parse) {
      expect(outcome.error, outcome.name).toBeUndefined();
      expect(outcome.streamMismatches, outcome.name).toEqual([]);
      expect(outcome.chunkings, outcome.name).toBeGreaterThanOrEqual(2);
    }
  });

  it('reports a stream that differs from batch (the check can fail)', async () => {
    const { input } = nodeBaseline();
    const item = input.parse.find((candidate) => candidate.family === 'qwen3' && candidate.completion.includes('<tool_call>'))!;
    // A core whose stream parser loses the last chunk: the runner must name the chunkings where that shows.
    const broken = {
      ...core,
      createStreamParser: ((options: Parameters<typeof core.createStreamParser>[0]) => {
        const parser = core.createStreamParser(options as never);
        let last = '';
        return { push: (chunk: string) => { const out = last ? parser.push(last) : []; last = chunk; return out; }, finish: () => parser.finish() };
      }) as unknown as typeof core.createStreamParser,
    };
    const { runConformance } = await import('./conformance.js');
    const one: ConformanceInput = { now: input.now, render: [], parse: [item] };
    expect(runConformance(broken, one).parse[0]!.streamMismatches.length).toBeGreaterThan(0);
  });
});

describe('family templates without a file system', () => {
  const files = readdirSync(root + 'templates').filter((file) => file.endsWith('.jinja')).sort();

  it('every family template is built in, equal to templates/<id>.jinja', () => {
    expect(core.familyIds.map((id) => core.familyInfo[id].templateFile).sort()).toEqual(files);
    for (const id of core.familyIds) {
      const onDisk = readFileSync(root + 'templates/' + core.familyInfo[id].templateFile, 'utf8');
      expect(core.families[id].templateSource, id).toBe(onDisk);
      expect(core.loadTemplate({ family: id }).select(false).source, id).toBe(onDisk);
    }
  });

  it('the generated module is what scripts/family-templates.mjs makes from templates/ now', () => {
    const check = spawnSync(process.execPath, [root + 'scripts/family-templates.mjs', '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});

describe('loading templates in the core', () => {
  it('refuses a template path, pointing at loadTemplateFromSources', () => {
    expect(failure(() => core.loadTemplate({ template: '/models/Qwen3-8B' }))).toEqual({
      code: 'TEMPLATE_SOURCE',
      message: "/models/Qwen3-8B: reading template files needs Node (import 'chatfmt' there); elsewhere pass the text to loadTemplateFromSources",
    });
  });

  it('takes a model folder as texts: chat_template.jinja wins, additional templates are named, tokens and response template come from the config', () => {
    const config = JSON.stringify({
      chat_template: 'FROM CONFIG',
      eos_token: { content: '<eos>', lstrip: false },
      response_template: { type: 'object', properties: {} },
    });
    const loaded = core.loadTemplateFromSources({
      name: 'my-model',
      config,
      chatTemplate: 'FROM FILE {{ eos_token }}',
      additionalTemplates: { tool_use: 'EXTRA TOOLS' },
    });
    expect(core.renderConversation(loaded, chat).text).toBe('FROM FILE <eos>');
    expect(core.renderConversation(loaded, { ...chat, tools: [{ type: 'function', function: { name: 'f' } }] }).text).toBe('EXTRA TOOLS');
    expect(loaded.responseTemplate).toEqual({ type: 'object', properties: {} });
    expect(loaded.responseTemplateKey).toBe('response_template');
  });

  it('takes a parsed config with named templates, and --template-name', () => {
    const config = { chat_template: [{ name: 'default', template: 'D' }, { name: 'rag', template: 'R' }], bos_token: '<s>' };
    expect(core.renderConversation(core.loadTemplateFromSources({ config, templateName: 'rag' }), chat).text).toBe('R');
    expect(core.loadTemplateFromSources({ config }).specialTokens).toEqual({ bos_token: '<s>' });
  });

  it('names what is wrong with the texts', () => {
    expect(failure(() => core.loadTemplateFromSources({ name: 'm', config: '{not json' })).message).toMatch(/^m: not valid JSON/);
    expect(failure(() => core.loadTemplateFromSources({ name: 'm', config: '[]' }))).toEqual({ code: 'TEMPLATE_SOURCE', message: 'm: expected a JSON object' });
    expect(failure(() => core.loadTemplateFromSources({ name: 'm', config: '{}' }))).toEqual({
      code: 'TEMPLATE_SOURCE',
      message: 'm: no usable "chat_template" (expected a string or a list of {name, template})',
    });
    expect(failure(() => core.loadTemplateFromSources({ chatTemplate: 'x'.repeat(4 * 1024 * 1024 + 1) })).code).toBe('INPUT_TOO_LARGE');
  });

  it('mints call ids from Web Crypto', () => {
    const first = core.parse('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', { family: 'qwen3' }).tool_calls[0]!.id;
    const second = core.parse('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', { family: 'qwen3' }).tool_calls[0]!.id;
    expect(first).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(first).not.toBe(second);
  });
});
