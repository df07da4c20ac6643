import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/io.js';
import { detectFamily, familyIds, familyInfo, loadTemplate } from '../../src/index.js';
import { hasShared, sharedDir } from '../helpers/shared.js';

const official = (relative: string) => join(sharedDir, 'templates', 'official', relative);

describe.skipIf(!hasShared)('detect', () => {
  it('recognises every official counterpart by render-equivalence on all probes', () => {
    for (const id of familyIds) {
      const [best] = detectFamily(loadTemplate({ template: official(familyInfo[id].officialTemplate) }));
      // Our deepseek-v3.1 template adds the model card's tool prompt, which the official one ignores.
      const score = id === 'deepseek-v3.1' ? 3 / 4 : 1;
      expect(best, id).toMatchObject({ family: id, score, method: 'render-equivalence' });
    }
  });

  it('falls back to markers for a revision that renders differently, and finds nothing for other families', async () => {
    const [kimi] = detectFamily(loadTemplate({ template: official('kimi-k2/moonshotai-Kimi-K2-Instruct-initial.jinja') }));
    expect(kimi?.family).toBe('kimi-k2');
    const io = memoryIO();
    expect(await run(['detect', official('llama/meta-llama-Llama-3.3-70B-Instruct.jinja')], io)).toBe(1);
    expect(io.out()).toContain('no known family');
  });
});

describe.skipIf(!hasShared)('detect, the newer families', () => {
  it('names both MiniMax-M2 templates (Unsloth and llama.cpp\'s) minimax-m2 by render-equivalence', () => {
    for (const file of ['minimax-m2/unsloth-MiniMax-M2.jinja', 'minimax-m2/MiniMax-M2.pwilkin-llamacpp.jinja']) {
      const [best] = detectFamily(loadTemplate({ template: official(file) }));
      expect(best, file).toMatchObject({ family: 'minimax-m2', method: 'render-equivalence' });
    }
  });
});

describe.skipIf(!hasShared)('detect, gemma-4', () => {
  it('names all three revisions of the Gemma 4 template gemma-4, the July one (our counterpart) on every probe', () => {
    // The launch and 2026-04 files render tool loops and reasoning differently (FORMATS-NEXT §1), so they match on
    // fewer probes; the family is still theirs.
    for (const revision of ['launch', '2026-04', '2026-07.ollama-fixture']) {
      const [best] = detectFamily(loadTemplate({ template: official(`gemma-4/google-gemma-4-31B-it.${revision}.jinja`) }));
      expect(best, revision).toMatchObject({ family: 'gemma-4', method: 'render-equivalence' });
      if (revision.startsWith('2026-07')) expect(best?.score).toBe(1);
    }
  });
});
