import type { FamilyId } from '../../src/index.js';

/**
 * What each family's official template keeps of a final assistant turn with tool calls:
 * DeepSeek drops reasoning from history, and R1 writes content given with calls as a second turn;
 * gpt-oss writes one call per message and either analysis or content next to it; Hermes drops
 * content next to calls; Hermes, Qwen2.5 and Qwen3-Coder have no reasoning channel.
 */
export const keepsWithCalls: Record<FamilyId, { reasoning: boolean; content: boolean; calls: number }> = {
  hermes: { reasoning: false, content: false, calls: 2 },
  'qwen2.5': { reasoning: false, content: true, calls: 2 },
  qwen3: { reasoning: true, content: true, calls: 2 },
  'qwen3-coder': { reasoning: false, content: true, calls: 2 },
  'deepseek-v3.1': { reasoning: false, content: true, calls: 2 },
  'deepseek-r1': { reasoning: false, content: false, calls: 2 },
  'kimi-k2': { reasoning: true, content: true, calls: 2 },
  'gpt-oss': { reasoning: true, content: false, calls: 1 },
  'glm-4.5': { reasoning: true, content: true, calls: 2 },
  'seed-oss': { reasoning: true, content: true, calls: 2 },
  'deepseek-v3.2': { reasoning: true, content: true, calls: 2 },
  'minimax-m2': { reasoning: true, content: true, calls: 2 },
  // Meta's template writes one call per message and drops the content next to it.
  'llama-3': { reasoning: false, content: false, calls: 1 },
  mistral: { reasoning: false, content: false, calls: 2 },
  'gemma-4': { reasoning: true, content: true, calls: 2 },
};
