import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { parsePythonJson, pythonJsonDumps } from '../../src/index.js';
import { convertArguments } from '../helpers/reference.js';
import { hasShared, officialTemplates, repoRoot, sharedInputs } from '../helpers/shared.js';

// The acceptance test: every official template, given every shared conversation in the
// argument form it is written for, renders through `chatfmt render --template ... --args keep`
// byte-identically to render_ref.py (committed goldens), or fails where it fails.
// Each official folder name is also its key in special_tokens.json.
const specialTokens = hasShared ? (JSON.parse(readFileSync(join(repoRoot, '..', 'shared', 'templates', 'special_tokens.json'), 'utf8')) as Record<string, Record<string, string>>) : {};

function expectedForm(dir: string, stem: string): 'string' | 'dict' {
  return dir === 'deepseek' && !stem.startsWith('vllm') ? 'string' : 'dict';
}


describe.skipIf(!hasShared)('official templates through the CLI (--args keep) match render_ref.py', () => {
  for (const template of officialTemplates()) {
    it(`${template.dir}/${template.stem}`, async () => {
      const tokens = specialTokens[template.dir] ?? {};
      const varArgs = Object.entries(tokens).flatMap(([k, v]) => ['--var', `${k}=${JSON.stringify(v)}`]);
      let checked = 0;
      for (const input of sharedInputs()) {
        const form = expectedForm(template.dir, template.stem);
        const goldenBase = join(repoRoot, 'fixtures', 'render', 'official', template.dir, template.stem, `${input.stem}.${form}`);
        if (!existsSync(`${goldenBase}.txt`) && !existsSync(`${goldenBase}.error.txt`)) continue;
        const raw = parsePythonJson(readFileSync(input.path, 'utf8')) as Record<string, unknown>;
        const conversation = { ...raw, messages: convertArguments(raw.messages as unknown[], form === 'string' ? 'string' : 'keep') };
        const io = memoryIO(pythonJsonDumps(conversation));
        const code = await run(['render', '--template', template.path, '--args', 'keep', '--now', '2025-01-15T12:00:00', ...varArgs], io);
        if (existsSync(`${goldenBase}.txt`)) {
          expect(io.err(), `${input.stem}: unexpected error`).toBe('');
          expect(io.out(), input.stem).toBe(readFileSync(`${goldenBase}.txt`, 'utf8'));
          expect(code).toBe(0);
        } else {
          expect(code, `${input.stem}: jinja2 failed, chatfmt must fail too`).not.toBe(0);
          expect(io.err()).toMatch(/^chatfmt: [^\n]+\n$/);
        }
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
