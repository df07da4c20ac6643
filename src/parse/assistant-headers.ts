import type { FamilyId } from '../families/info.js';

/**
 * Where each family's prompt opens the assistant turn: `--prompt` keeps what follows the last one as the prefix, and
 * an exported response template anchors there. `also`: other places a reply starts (Mistral has no generation prompt:
 * the reply follows `[/INST]` or, after tool results, `[/TOOL_RESULTS]`).
 */
export const ASSISTANT_HEADERS: Record<FamilyId, { header: string; also?: readonly string[]; keep?: boolean }> = {
  hermes: { header: '<|im_start|>assistant' },
  'qwen2.5': { header: '<|im_start|>assistant' },
  qwen3: { header: '<|im_start|>assistant' },
  'qwen3-coder': { header: '<|im_start|>assistant' },
  'deepseek-v3.1': { header: '<｜Assistant｜>' },
  'deepseek-r1': { header: '<｜Assistant｜>' },
  'kimi-k2': { header: '<|im_assistant|>assistant<|im_middle|>' },
  // The harmony parser reads the header itself, so the prefix keeps it.
  'gpt-oss': { header: '<|start|>assistant', keep: true },
  'glm-4.5': { header: '<|assistant|>' },
  'seed-oss': { header: '<seed:bos>assistant' },
  'deepseek-v3.2': { header: '<｜Assistant｜>' },
  'minimax-m2': { header: ']~b]ai' },
  'llama-3': { header: '<|start_header_id|>assistant<|end_header_id|>' },
  mistral: { header: '[/INST]', also: ['[/TOOL_RESULTS]'] },
  'gemma-4': { header: '<|turn>model' },
};

/** The prompt's tail after the family's last assistant header (the whole prompt when there is none). */
export function promptTail(prompt: string, family: FamilyId): string {
  const { header, also = [], keep } = ASSISTANT_HEADERS[family];
  let at = prompt.lastIndexOf(header);
  let length = header.length;
  for (const other of also) {
    const found = prompt.lastIndexOf(other);
    if (found > at) [at, length] = [found, other.length];
  }
  if (at < 0) return prompt;
  return keep ? prompt.slice(at) : prompt.slice(at + length);
}
