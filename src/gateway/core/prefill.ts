// Forced tool choice on a raw backend: the generation is pre-filled with the family's call opener (and the tool's
// name), so the model can only continue a call. The prefill is sent after the rendered prompt and counts as the
// model's own output: the parser reads prefill + generation as one completion.
import type { FamilyId } from '../../families/info.js';
import type { Message } from '../../types.js';

interface CallOpener {
  /** Opens a call to any tool (`tool_choice: "required"`). */
  any: string;
  /** Opens a call to this tool, up to where its arguments begin. `index` counts the conversation's earlier calls. */
  named(name: string, index: number): string;
}

const hermesJson: CallOpener = { any: '<tool_call>\n{"name": "', named: (name) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ` };
const functionTag = (open: string): CallOpener => ({ any: `${open}\n<function=`, named: (name) => `${open}\n<function=${name}>\n` });
const DS = { calls: '<｜tool▁calls▁begin｜>', call: '<｜tool▁call▁begin｜>', sep: '<｜tool▁sep｜>' };
const invoke = (open: string, tag: string): CallOpener => ({ any: `${open}\n<${tag} name="`, named: (name) => `${open}\n<${tag} name="${name}">\n` });

/** The text that opens a call, per family, as the family's template writes calls in history. */
export const CALL_OPENERS: Record<FamilyId, CallOpener> = {
  hermes: hermesJson,
  'qwen2.5': hermesJson,
  qwen3: hermesJson,
  'qwen3-coder': functionTag('<tool_call>'),
  'seed-oss': functionTag('<seed:tool_call>'),
  'deepseek-v3.1': { any: DS.calls + DS.call, named: (name) => `${DS.calls}${DS.call}${name}${DS.sep}` },
  'deepseek-r1': { any: `${DS.calls}${DS.call}function${DS.sep}`, named: (name) => `${DS.calls}${DS.call}function${DS.sep}${name}\n\`\`\`json\n` },
  'deepseek-v3.2': invoke('<｜DSML｜function_calls>', '｜DSML｜invoke'),
  'minimax-m2': invoke('<minimax:tool_call>', 'invoke'),
  'kimi-k2': {
    any: '<|tool_calls_section_begin|><|tool_call_begin|>functions.',
    named: (name, index) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.${name}:${index}<|tool_call_argument_begin|>`,
  },
  'gpt-oss': { any: '<|channel|>commentary to=functions.', named: (name) => `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>` },
  'glm-4.5': { any: '<tool_call>', named: (name) => `<tool_call>${name}\n` },
  'llama-3': { any: '{"name": "', named: (name) => `{"name": ${JSON.stringify(name)}, "parameters": ` },
  mistral: { any: '[TOOL_CALLS]', named: (name) => `[TOOL_CALLS]${name}[ARGS]` },
  'gemma-4': { any: '<|tool_call>call:', named: (name) => `<|tool_call>call:${name}{` },
};

/**
 * The prefill for a forced call, or '' when none is needed. `reasoningClose` is set when the prompt leaves the model
 * inside its reasoning (the call must come after it closes).
 */
export function callPrefill(family: FamilyId, choice: 'required' | { name: string }, messages: readonly Message[], reasoningClose?: string): string {
  const opener = CALL_OPENERS[family];
  const call = choice === 'required' ? opener.any : opener.named(choice.name, earlierCalls(messages));
  return reasoningClose === undefined ? call : `${reasoningClose}\n\n${call}`;
}

function earlierCalls(messages: readonly Message[]): number {
  let count = 0;
  for (const message of messages) if (Array.isArray(message.tool_calls)) count += message.tool_calls.length;
  return count;
}
