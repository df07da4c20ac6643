import type { FamilyId } from '../families/info.js';

/**
 * Strings that a family's template source contains. Only a fallback: render-equivalence decides
 * first, because markers are shared (Hermes, Qwen2.5 and Qwen3 all write <tool_call>).
 * `all` must all appear; `none` must not.
 */
export const fingerprints: Record<FamilyId, { all: string[]; none?: string[] }> = {
  hermes: { all: ['<tool_call>', '<|im_start|>'], none: ['<think>', 'Qwen', '<function='] },
  'qwen2.5': { all: ['<tool_call>', '<|im_start|>', 'Qwen'], none: ['<think>', '<function='] },
  qwen3: { all: ['<tool_call>', '<think>', '<|im_start|>'], none: ['<function='] },
  'qwen3-coder': { all: ['<function=', '<parameter='], none: ['<seed:'] },
  'deepseek-v3.1': { all: ['<｜tool▁calls▁begin｜>', '<｜tool▁sep｜>'], none: ['```json'] },
  'deepseek-r1': { all: ['<｜tool▁calls▁begin｜>', '```json'] },
  'kimi-k2': { all: ['<|im_middle|>'] },
  'gpt-oss': { all: ['<|channel|>', '<|start|>'] },
  'glm-4.5': { all: ['<arg_key>', '<arg_value>'] },
  'seed-oss': { all: ['<seed:'] },
  'deepseek-v3.2': { all: ['DSML'] },
  'minimax-m2': { all: ['<minimax:tool_call>'] },
  'llama-3': { all: ['<|start_header_id|>', '<|eot_id|>'], none: ['<|im_start|>'] },
  mistral: { all: ['[INST]', '[TOOL_CALLS]'] },
  'gemma-4': { all: ['<|tool_call>', '<|turn>'] },
};

export function matchFingerprints(source: string): FamilyId[] {
  const matches: FamilyId[] = [];
  for (const [id, print] of Object.entries(fingerprints) as Array<[FamilyId, { all: string[]; none?: string[] }]>) {
    if (print.all.every((marker) => source.includes(marker)) && !(print.none ?? []).some((marker) => source.includes(marker))) {
      matches.push(id);
    }
  }
  return matches;
}
