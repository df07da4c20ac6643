// Official chat templates × shared conversations × argument forms, against goldens made by jinja2
// (scripts/goldens-official.mjs → fixtures/render/official). Byte-identical output, or the same exception class.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileTemplate, parsePythonJson } from '../../src/index.js';
import { ARGUMENT_FORMS, referenceVariables } from '../helpers/reference.js';
import { hasShared, repoRoot, sharedDir } from '../helpers/shared.js';

const goldenDir = path.join(repoRoot, 'fixtures', 'render', 'official');
const officialDir = path.join(sharedDir, 'templates', 'official');
const inputsDir = path.join(sharedDir, 'templates', 'inputs');
const NOW = new Date('2025-01-15T12:00:00Z');

type Obj = Record<string, unknown>;



const runnable = hasShared && existsSync(goldenDir);

// describe.skipIf still runs this body to collect tests, so reads of ../shared are guarded too.
describe.skipIf(!runnable)('official templates vs jinja2 goldens', () => {
  if (!runnable) return;
  const specialTokens = parsePythonJson(readFileSync(path.join(sharedDir, 'templates', 'special_tokens.json'), 'utf8')) as Obj;
  const inputs = readdirSync(inputsDir).filter((f) => f.endsWith('.json')).sort();
  const inputData = new Map(inputs.map((f) => [f.slice(0, -5), parsePythonJson(readFileSync(path.join(inputsDir, f), 'utf8')) as Obj]));

  for (const dir of readdirSync(officialDir).sort()) {
    for (const file of readdirSync(path.join(officialDir, dir)).filter((f) => f.endsWith('.jinja')).sort()) {
      const stem = file.slice(0, -6);
      it(`${dir}/${stem}`, () => {
        const source = readFileSync(path.join(officialDir, dir, file), 'utf8');
        const template = compileTemplate(source, { name: `${dir}/${file}` });
        const tokens = (specialTokens[dir] ?? {}) as Obj;
        const mismatches: string[] = [];
        let checked = 0;
        for (const [inputStem, data] of inputData) {
          for (const mode of ARGUMENT_FORMS) {
            const base = path.join(goldenDir, dir, stem, `${inputStem}.${mode}`);
            const errorFile = `${base}.error.txt`;
            const label = `${inputStem}.${mode}`;
            checked++;
            let text: string | undefined;
            let thrown: unknown;
            try {
              text = template.render(referenceVariables(data, tokens, mode), { now: NOW }).text;
            } catch (error) {
              thrown = error;
            }
            if (existsSync(errorFile)) {
              const line = readFileSync(errorFile, 'utf8').trim();
              const expectedClass = line.slice(0, line.indexOf(':'));
              const actualClass = (thrown as { pythonType?: string } | undefined)?.pythonType;
              if (actualClass !== expectedClass) mismatches.push(`${label}: expected ${line}, got ${thrown ? String(thrown) : 'output'}`);
              else if (expectedClass === 'TemplateError') {
                const message = (thrown as { templateMessage?: string }).templateMessage;
                if (`TemplateError: ${message}` !== line) mismatches.push(`${label}: expected ${line}, got message ${message}`);
              }
            } else {
              const expected = readFileSync(`${base}.txt`, 'utf8');
              if (thrown) mismatches.push(`${label}: threw ${String(thrown)}`);
              else if (text !== expected) mismatches.push(`${label}: output differs at ${firstDiff(text!, expected)}`);
            }
          }
        }
        expect(checked).toBe(inputs.length * ARGUMENT_FORMS.length);
        expect(mismatches).toEqual([]);
      });
    }
  }
});

function firstDiff(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `offset ${i}: got ${JSON.stringify(a.slice(i, i + 40))}, expected ${JSON.stringify(b.slice(i, i + 40))}`;
}
