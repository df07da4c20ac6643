import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { isChatfmtError, loadTemplate, resolveFamilyId } from '../../src/index.js';

// Issue 16 §5: family names as other servers spell them, suggestions for typos, and no silent Gemma 4 for `gemma`.
describe('family names', () => {
  it("resolves vLLM's and SGLang's tool-parser names to the one family each stands for", () => {
    const expected: Record<string, string> = {
      qwen3_coder: 'qwen3-coder',
      qwen3_xml: 'qwen3-coder',
      kimi_k2: 'kimi-k2',
      deepseek_v31: 'deepseek-v3.1',
      deepseekv31: 'deepseek-v3.1',
      deepseek_v3: 'deepseek-r1',
      deepseekv3: 'deepseek-r1',
      deepseek_v32: 'deepseek-v3.2',
      deepseekv32: 'deepseek-v3.2',
      llama3_json: 'llama-3',
      hermes: 'hermes',
      glm45: 'glm-4.5',
      glm47: 'glm-4.5',
      seed_oss: 'seed-oss',
      minimax_m2: 'minimax-m2',
      openai_gptoss: 'gpt-oss',
      'gpt-oss': 'gpt-oss',
      mistral: 'mistral',
      gemma4: 'gemma-4',
    };
    for (const [name, id] of Object.entries(expected)) expect(resolveFamilyId(name), name).toBe(id);
    // `openai` is convert's name for OpenAI messages, not gpt-oss.
    expect(resolveFamilyId('openai')).toBeUndefined();
  });

  it('suggests the closest names for a typo, on one line', async () => {
    const io = memoryIO('x');
    expect(await run(['parse', '--family', 'qwen3_codr', '-'], io)).toBe(2);
    expect(io.err()).toMatch(/^chatfmt: unknown family "qwen3_codr"; did you mean "qwen3_coder"[^\n]*\n$/);
    let error: unknown;
    try {
      loadTemplate({ family: 'kimi-k3' });
    } catch (caught) {
      error = caught;
    }
    expect(isChatfmtError(error) && error.code).toBe('UNKNOWN_FAMILY');
    expect((error as Error).message).toContain('did you mean "kimi-k2"');
  });

  it('offers no suggestion for a name far from every family', async () => {
    const io = memoryIO();
    expect(await run(['render', '--family', 'zzzzzzzzzz', '-'], io)).toBe(2);
    expect(io.err()).not.toContain('did you mean');
    expect(io.err()).toContain('unknown family "zzzzzzzzzz"');
  });

  it('refuses `gemma` (Gemma 2/3 have no tool format) and points at gemma-4', async () => {
    for (const name of ['gemma', 'Gemma-3', 'gemma2']) {
      expect(resolveFamilyId(name), name).toBeUndefined();
      const io = memoryIO('Hello');
      expect(await run(['parse', '--family', name, '-'], io), name).toBe(2);
      expect(io.err()).toMatch(/^chatfmt: family "[^"]+" is not supported: Gemma 2 and 3 [^\n]*gemma-4\n$/);
    }
    expect(resolveFamilyId('gemma-4')).toBe('gemma-4');
  });
});
