import type { FamilyInfo } from './family.js';

// The ids users type on the CLI; renaming one breaks scripts. Aliases include vLLM's and SGLang's tool-parser names
// where one maps to exactly one family (`openai`, vLLM's gpt-oss parser, is left out: `convert --to openai` means
// OpenAI messages; SGLang's `qwen` could be any of three families).
export const familyIds = [
  'hermes',
  'qwen2.5',
  'qwen3',
  'qwen3-coder',
  'deepseek-v3.1',
  'deepseek-r1',
  'kimi-k2',
  'gpt-oss',
  'glm-4.5',
  'seed-oss',
  'deepseek-v3.2',
  'minimax-m2',
  'llama-3',
  'mistral',
  'gemma-4',
] as const;
export type FamilyId = (typeof familyIds)[number];

const chatml = { eos_token: '<|im_end|>', pad_token: '<|endoftext|>' } as const;
const deepseekTokens = { bos_token: '<｜begin▁of▁sentence｜>', eos_token: '<｜end▁of▁sentence｜>' } as const;

/** Static facts per family. The parse grammars (src/parse/grammars) read them; src/registry adds each family's template and parser. */
export const familyInfo = {
  hermes: {
    id: 'hermes',
    aliases: ['hermes-2-pro', 'hermes-3', 'nous-hermes'],
    format: 'JSON {"name", "arguments"} inside <tool_call>…</tool_call>, ChatML turns',
    models: ['NousResearch/Hermes-2-Pro-Llama-3-8B', 'NousResearch/Hermes-3-Llama-3.1-*'],
    templateFile: 'hermes.jinja',
    officialTemplate: 'hermes/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja',
    specialTokens: { bos_token: '<|begin_of_text|>', eos_token: '<|im_end|>' },
    stopStrings: ['<|im_end|>', '<|eot_id|>', '<|end_of_text|>'],
    argumentsForm: 'either',
    example: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  },
  'qwen2.5': {
    id: 'qwen2.5',
    aliases: ['qwen2', 'qwen25', 'qwen2.5-instruct'],
    format: 'JSON {"name", "arguments"} inside <tool_call>…</tool_call>, ChatML turns, default Qwen system prompt',
    models: ['Qwen/Qwen2.5-*-Instruct', 'Qwen/Qwen2.5-Coder-*-Instruct'],
    templateFile: 'qwen2.5.jinja',
    officialTemplate: 'qwen2.5/Qwen-Qwen2.5-7B-Instruct.jinja',
    specialTokens: chatml,
    stopStrings: ['<|im_end|>', '<|endoftext|>'],
    argumentsForm: 'object',
    example: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  },
  qwen3: {
    id: 'qwen3',
    aliases: ['qwen3-instruct'],
    format: '<think>…</think> reasoning, then JSON calls inside <tool_call>…</tool_call>',
    models: ['Qwen/Qwen3-*', 'Qwen/Qwen3-*-Instruct-2507'],
    templateFile: 'qwen3.jinja',
    officialTemplate: 'qwen3/Qwen-Qwen3-0.6B.jinja',
    specialTokens: chatml,
    stopStrings: ['<|im_end|>', '<|endoftext|>'],
    argumentsForm: 'either',
    example: '<think>\nTwo cities.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  },
  'qwen3-coder': {
    id: 'qwen3-coder',
    aliases: ['qwen3coder', 'qwen3-xml', 'qwen3_coder', 'qwen3_xml'],
    format: '<tool_call><function=NAME><parameter=KEY>raw value</parameter></function></tool_call>, values typed by schema',
    models: ['Qwen/Qwen3-Coder-30B-A3B-Instruct', 'Qwen/Qwen3-Coder-480B-A35B-Instruct'],
    templateFile: 'qwen3-coder.jinja',
    officialTemplate: 'qwen3-coder/Qwen-Qwen3-Coder-30B-A3B-Instruct.jinja',
    specialTokens: chatml,
    stopStrings: ['<|im_end|>', '<|endoftext|>'],
    argumentsForm: 'object',
    example: '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
  },
  'deepseek-v3.1': {
    id: 'deepseek-v3.1',
    aliases: ['deepseek', 'deepseek-v31', 'deepseek-v3.1-terminus', 'deepseek_v31', 'deepseekv31'],
    format: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>…, reasoning ends at </think>',
    models: ['deepseek-ai/DeepSeek-V3.1', 'deepseek-ai/DeepSeek-V3.1-Terminus'],
    templateFile: 'deepseek-v3.1.jinja',
    officialTemplate: 'deepseek/deepseek-ai-DeepSeek-V3.1.jinja',
    specialTokens: deepseekTokens,
    stopStrings: ['<｜end▁of▁sentence｜>'],
    argumentsForm: 'string',
    example: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
  'deepseek-r1': {
    id: 'deepseek-r1',
    aliases: ['deepseek-v3', 'r1', 'deepseek-r1-distill', 'deepseek_v3', 'deepseekv3'],
    format: '<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{json}\\n```<｜tool▁call▁end｜>, <think> reasoning',
    models: ['deepseek-ai/DeepSeek-R1', 'deepseek-ai/DeepSeek-R1-Distill-*', 'deepseek-ai/DeepSeek-V3'],
    templateFile: 'deepseek-r1.jinja',
    officialTemplate: 'deepseek/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja',
    specialTokens: deepseekTokens,
    stopStrings: ['<｜end▁of▁sentence｜>'],
    argumentsForm: 'string',
    example: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  },
  'kimi-k2': {
    id: 'kimi-k2',
    aliases: ['kimi', 'kimi-k2-thinking', 'kimi-k2-instruct', 'kimi_k2'],
    format: '<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>…',
    models: ['moonshotai/Kimi-K2-Thinking', 'moonshotai/Kimi-K2-Instruct-0905'],
    templateFile: 'kimi-k2.jinja',
    officialTemplate: 'kimi-k2/moonshotai-Kimi-K2-Thinking.jinja',
    specialTokens: { bos_token: '[BOS]', eos_token: '[EOS]' },
    stopStrings: ['<|im_end|>'],
    argumentsForm: 'either',
    example: '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
  },
  'gpt-oss': {
    id: 'gpt-oss',
    aliases: ['harmony', 'gpt-oss-20b', 'gpt-oss-120b', 'openai_gptoss'],
    format: 'harmony: <|channel|>analysis|commentary|final, calls to=functions.NAME … <|message|>{json}<|call|>',
    models: ['openai/gpt-oss-20b', 'openai/gpt-oss-120b'],
    templateFile: 'gpt-oss.jinja',
    officialTemplate: 'gpt-oss/openai-gpt-oss-20b.jinja',
    specialTokens: { bos_token: '<|startoftext|>', eos_token: '<|return|>' },
    stopStrings: ['<|return|>', '<|call|>'],
    argumentsForm: 'object',
    example: '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
  },
  'glm-4.5': {
    id: 'glm-4.5',
    aliases: ['glm', 'glm-4.6', 'glm-4.7', 'glm45', 'glm47'],
    format: '<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>, values typed by schema',
    models: ['zai-org/GLM-4.5', 'zai-org/GLM-4.5-Air', 'zai-org/GLM-4.6', 'zai-org/GLM-4.7'],
    templateFile: 'glm-4.5.jinja',
    officialTemplate: 'glm/zai-org-GLM-4.6.jinja',
    specialTokens: { eos_token: '<|endoftext|>', pad_token: '<|endoftext|>' },
    stopStrings: ['<|endoftext|>', '<|user|>', '<|observation|>'],
    argumentsForm: 'object',
    example: '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>',
  },
  'seed-oss': {
    id: 'seed-oss',
    aliases: ['seed', 'seed-oss-36b', 'seed_oss'],
    format: '<seed:think>…</seed:think>, <seed:tool_call><function=NAME><parameter=K>raw</parameter></function></seed:tool_call>',
    models: ['ByteDance-Seed/Seed-OSS-36B-Instruct'],
    templateFile: 'seed-oss.jinja',
    officialTemplate: 'seed-oss/ByteDance-Seed-Seed-OSS-36B-Instruct.jinja',
    specialTokens: { bos_token: '<seed:bos>', eos_token: '<seed:eos>' },
    stopStrings: ['<seed:eos>'],
    argumentsForm: 'object',
    example: '<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>',
  },
  'deepseek-v3.2': {
    id: 'deepseek-v3.2',
    // V4 renames only the block wrapper (<｜DSML｜tool_calls>); the grammar reads both, so V4 is a name of this family.
    aliases: ['deepseek-v32', 'dsml', 'deepseek-v4', 'deepseek-v3.2-speciale', 'deepseek_v32', 'deepseekv32'],
    format: '<｜DSML｜function_calls><｜DSML｜invoke name="N"><｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>… (V4: <｜DSML｜tool_calls>), reasoning ends at </think>',
    models: ['deepseek-ai/DeepSeek-V3.2', 'deepseek-ai/DeepSeek-V3.2-Speciale', 'deepseek-ai/DeepSeek-V4'],
    templateFile: 'deepseek-v3.2.jinja',
    officialTemplate: 'deepseek-v3.2/DeepSeek-V3.2.llamacpp.jinja',
    specialTokens: deepseekTokens,
    stopStrings: ['<｜end▁of▁sentence｜>'],
    argumentsForm: 'object',
    example: '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
  },
  'minimax-m2': {
    id: 'minimax-m2',
    aliases: ['minimax', 'minimax-m2.1', 'minimax-m2.5', 'minimax_m2'],
    format: '<minimax:tool_call><invoke name="N"><parameter name="K">raw</parameter></invoke></minimax:tool_call>, values typed by schema',
    models: ['MiniMaxAI/MiniMax-M2', 'MiniMaxAI/MiniMax-M2.1', 'MiniMaxAI/MiniMax-M2.5'],
    templateFile: 'minimax-m2.jinja',
    officialTemplate: 'minimax-m2/unsloth-MiniMax-M2.jinja',
    specialTokens: { bos_token: ']~!b[', eos_token: '[e~[', unk_token: ']!d~[' },
    stopStrings: ['[e~['],
    argumentsForm: 'object',
    example: '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>',
  },
  'llama-3': {
    id: 'llama-3',
    aliases: ['llama3', 'llama-3.1', 'llama-3.2', 'llama-3.3', 'llama3_json'],
    format: '{"name": N, "parameters": {…}} at the start or after <|python_tag|>, ;-separated; built-ins as <|python_tag|>TOOL.call(k="v")',
    models: ['meta-llama/Llama-3.1-8B-Instruct', 'meta-llama/Llama-3.1-70B-Instruct', 'meta-llama/Llama-3.2-3B-Instruct', 'meta-llama/Llama-3.3-70B-Instruct'],
    templateFile: 'llama-3.jinja',
    officialTemplate: 'llama/meta-llama-Llama-3.3-70B-Instruct.jinja',
    specialTokens: { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' },
    stopStrings: ['<|eot_id|>', '<|eom_id|>', '<|end_of_text|>'],
    argumentsForm: 'object',
    example: '{"name": "get_weather", "parameters": {"city": "Paris"}}',
  },
  mistral: {
    id: 'mistral',
    aliases: ['mistral-v3', 'mistral-v7', 'mistral-v11', 'mistral-v13', 'mistral-small', 'mistral-nemo', 'devstral', 'magistral', 'ministral', 'ministral-3'],
    format: '[TOOL_CALLS]NAME[CALL_ID]id[ARGS]{json} (v11+), [TOOL_CALLS][{"name", "arguments", "id"}] (v3/v7), [THINK]…[/THINK] reasoning',
    models: ['mistralai/Mistral-Small-3.2-24B-Instruct-2506', 'mistralai/Mistral-Small-3.1-24B-Instruct-2503', 'mistralai/Mistral-Nemo-Instruct-2407', 'mistralai/Devstral-Small-2507', 'mistralai/Magistral-Small-2509', 'mistralai/Ministral-3-14B-Reasoning-2512'],
    templateFile: 'mistral.jinja',
    officialTemplate: 'mistral/mistralai-Mistral-Small-3.2-24B-Instruct-2506.jinja',
    specialTokens: { bos_token: '<s>', eos_token: '</s>' },
    stopStrings: ['</s>'],
    argumentsForm: 'object',
    example: '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}',
  },
  'gemma-4': {
    id: 'gemma-4',
    aliases: ['gemma4', 'gemma-4-it'],
    format: '<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|> (object notation, <|"|> strings), <|channel>thought⏎…<channel|> reasoning',
    models: ['google/gemma-4-31B-it', 'google/gemma-4-26B-A4B-it', 'google/gemma-4-E4B-it', 'google/gemma-4-E2B-it'],
    templateFile: 'gemma-4.jinja',
    officialTemplate: 'gemma-4/google-gemma-4-31B-it.2026-07.ollama-fixture.jinja',
    specialTokens: { bos_token: '<bos>', eos_token: '<turn|>', pad_token: '<pad>' },
    stopStrings: ['<turn|>', '<|tool_response>'],
    argumentsForm: 'object',
    example: '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
  },
} as const satisfies { [Id in FamilyId]: FamilyInfo<Id> };

/**
 * A model whose chat template is its family's, except that the generation prompt pre-fills the assistant turn
 * (Qwen3-Thinking-2507 and QwQ always open `<think>\n`, Kimi-K2.5 `<think>`). The prefill is rendered after the generation prompt and
 * is the parser's default prefix, so the completion's first `</think>` ends reasoning instead of landing in content.
 */
export interface FamilyVariant {
  id: string;
  of: FamilyId;
  aliases: readonly string[];
  prefill: string;
  models: readonly string[];
}

export const familyVariants: readonly FamilyVariant[] = [
  {
    id: 'qwen3-thinking',
    of: 'qwen3',
    aliases: ['qwq', 'qwq-32b', 'qwen3-thinking-2507'],
    prefill: '<think>\n',
    models: ['Qwen/Qwen3-*-Thinking-2507', 'Qwen/Qwen3-Next-80B-A3B-Thinking', 'Qwen/QwQ-32B'],
  },
  {
    // Kimi-K2.5's template ends its generation prompt with `<think>` (no newline) unless thinking is switched off;
    // Kimi-K2-Thinking's ends at `<|im_middle|>` and lets the model write `<think>` itself.
    id: 'kimi-k2.5',
    of: 'kimi-k2',
    aliases: ['kimi-k2-5', 'kimi-2.5'],
    prefill: '<think>',
    models: ['moonshotai/Kimi-K2.5'],
  },
];

const byName = new Map<string, FamilyId>();
const variantByName = new Map<string, FamilyVariant>();
for (const id of familyIds) {
  byName.set(id, id);
  for (const alias of familyInfo[id].aliases) byName.set(alias, id);
}
for (const variant of familyVariants) {
  for (const name of [variant.id, ...variant.aliases]) {
    byName.set(name, variant.of);
    variantByName.set(name, variant);
  }
}

/** Resolves an id, alias or variant name (case-insensitive) to a family id, or undefined. */
export function resolveFamilyId(name: string): FamilyId | undefined {
  return byName.get(name.trim().toLowerCase());
}

/** The variant a name stands for (`qwq` → qwen3-thinking), or undefined for a plain family name. */
export function resolveFamilyVariant(name: string): FamilyVariant | undefined {
  return variantByName.get(name.trim().toLowerCase());
}

/**
 * Names that look like a family but are refused with a reason: Gemma 2 and 3 have no tool-call format at all, so a bare
 * `gemma` must not quietly mean Gemma 4's.
 */
const refusedNames = new Map<string, string>([
  ...['gemma', 'gemma2', 'gemma-2', 'gemma3', 'gemma-3', 'gemma-3n'].map((name): [string, string] => [
    name,
    'Gemma 2 and 3 templates have no tool-call format, so chatfmt has no family for them; for Gemma 4 use gemma-4',
  ]),
]);

/** Every name resolveFamilyId accepts, for suggestions. */
export function familyNames(): string[] {
  return [...byName.keys()];
}

/**
 * Why a name is not a family, as one line: a refusal reason (`gemma`), or the closest ids and aliases by edit distance
 * ("did you mean"), then the known ids.
 */
export function unknownFamilyMessage(name: string): string {
  const key = name.trim().toLowerCase();
  const refused = refusedNames.get(key);
  if (refused) return `family "${name}" is not supported: ${refused}`;
  const limit = Math.max(2, Math.floor(key.length / 3));
  const scored = key.length > 64 ? [] : familyNames().map((candidate) => ({ candidate, distance: editDistance(key, candidate) }));
  const close = scored.filter((s) => s.distance <= limit).sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  const suggestion = close.length > 0 ? `; did you mean ${close.slice(0, 3).map((s) => `"${s.candidate}"`).join(' or ')}?` : '';
  return `unknown family "${name}"${suggestion} (known: ${familyIds.join(', ')})`;
}

/** Levenshtein distance; names are short (the caller bounds them), so the quadratic table is cheap. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
