import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as library from '../../src/index.js';
import * as parseEntry from '../../src/parse-entry.js';
import { repoRoot } from '../helpers/shared.js';

// Issue 18 (start-up): `chatfmt/parse` is the parser alone, for programs that only read model output. It must be the
// same API as `chatfmt`'s (not a second copy that could drift), and leave out what parsing never runs: the Jinja
// compiler, the renderer, the family templates' text, datasets. What a process really loads through it is asserted in
// test/cli/module-loading.test.ts.

describe('chatfmt/parse', () => {
  it("exports the parse API, each name the very value `chatfmt` exports", () => {
    const names = Object.keys(parseEntry);
    for (const name of ['parse', 'createStreamParser', 'accumulateDeltas', 'parserFamily', 'parserFamilies', 'createGrammarCore', 'parseResponse', 'compileResponseTemplate', 'toOpenAIMessage', 'ChatfmtError', 'familyIds']) {
      expect(names).toContain(name);
    }
    for (const name of names) expect(parseEntry[name as keyof typeof parseEntry], name).toBe(library[name as keyof typeof library]);
  });

  it('parses a completion as chatfmt does, batch and streamed', () => {
    const completion = '<think>\nCheck the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    const options = { family: 'qwen3', prefix: '<|im_start|>assistant\n', idGenerator: () => 'call_1' };
    const message = parseEntry.parse(completion, options);
    expect(message.reasoning_content).toBe('Check the weather.');
    expect(message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }]);
    const stream = parseEntry.createStreamParser(options);
    const deltas = [...completion].flatMap((char) => stream.push(char)).concat(stream.finish());
    expect(parseEntry.accumulateDeltas(deltas)).toEqual(message);
  });

  it('bundles for the browser without Node APIs, the Jinja compiler, the renderer or the family templates', async () => {
    const result = await build({ absWorkingDir: repoRoot, entryPoints: ['src/parse-entry.ts'], bundle: true, write: false, metafile: true, platform: 'browser', format: 'esm', logLevel: 'silent' });
    const inputs = Object.keys(result.metafile!.inputs);
    expect(inputs).toContain('src/parse/engine/machine.ts');
    const unneeded = /^src\/(jinja\/(compile|parser|lexer)|render\/|families\/templates|registry\/families|readers\/|validate\/|convert\/|detect\/|format\/|node\/|gateway\/)/;
    expect(inputs.filter((input) => unneeded.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.includes('node_modules'))).toEqual([]);
    expect(result.outputFiles![0]!.text).not.toMatch(/\bprocess\.|\bBuffer\b|["']node:/);
  });

  it('is exported by package.json for Node, browsers and workers, built by the library bundle and type-checked without Node', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    expect(pkg.exports['./parse']).toEqual({ types: './dist/parse-entry.d.ts', default: './dist/parse-entry.js' });
    expect(readFileSync(join(repoRoot, 'scripts', 'bundle-lib.mjs'), 'utf8')).toContain("source: 'src/parse-entry.ts'");
    expect(JSON.parse(readFileSync(join(repoRoot, 'tsconfig.core.json'), 'utf8')).files).toContain('src/parse-entry.ts');
  });
});
