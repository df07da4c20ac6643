import { ChatfmtError } from '../errors.js';
import { familyIds, familyInfo, resolveFamilyId, resolveFamilyVariant, type FamilyId } from '../families/info.js';
import type { Grammar } from '../parse/engine/grammar.js';
import { deepseekR1Grammar } from '../parse/grammars/deepseek-r1.js';
import { deepseekV31Grammar } from '../parse/grammars/deepseek-v3.1.js';
import { deepseekV32Grammar } from '../parse/grammars/deepseek-v3.2.js';
import { gemma4Grammar } from '../parse/grammars/gemma-4.js';
import { glm45Grammar } from '../parse/grammars/glm-4.5.js';
import { hermesGrammar, qwen25Grammar, qwen3Grammar } from '../parse/grammars/hermes-json.js';
import { kimiK2Grammar } from '../parse/grammars/kimi-k2.js';
import { llama3Grammar } from '../parse/grammars/llama-3.js';
import { minimaxM2Grammar } from '../parse/grammars/minimax-m2.js';
import { mistralGrammar } from '../parse/grammars/mistral.js';
import { qwen3CoderGrammar } from '../parse/grammars/qwen3-coder.js';
import { seedOssGrammar } from '../parse/grammars/seed-oss.js';
import { createHarmonyCore } from '../parse/harmony/index.js';
import { randomNineCharId } from '../parse/ids.js';
import { compiledOnFirstUse, grammarParser, type ParserFamily } from './parsers.js';

// The registry's parser column, in a module of its own: parsing needs the families' tokens and grammars, not their
// templates (families.ts joins the three), so `chatfmt/parse` loads no template text.

function markerParser(id: FamilyId, grammar: Grammar): ParserFamily {
  return grammarParser(id, grammar, compiledOnFirstUse(grammar));
}

/** The parser of every family, keyed by family id. */
export const parserFamilies: { readonly [Id in FamilyId]: ParserFamily } = {
  hermes: markerParser('hermes', hermesGrammar),
  'qwen2.5': markerParser('qwen2.5', qwen25Grammar),
  qwen3: markerParser('qwen3', qwen3Grammar),
  'qwen3-coder': markerParser('qwen3-coder', qwen3CoderGrammar),
  'deepseek-v3.1': markerParser('deepseek-v3.1', deepseekV31Grammar),
  'deepseek-r1': markerParser('deepseek-r1', deepseekR1Grammar),
  'kimi-k2': markerParser('kimi-k2', kimiK2Grammar),
  'gpt-oss': {
    id: 'gpt-oss',
    createCore: createHarmonyCore,
    markers: { callOpen: [' to=functions.'], callClose: ['<|call|>'], reasoningOpen: ['<|channel|>analysis'], reasoningClose: ['<|end|>'] },
    stopStrings: familyInfo['gpt-oss'].stopStrings,
    defaultPrefix: '<|start|>assistant',
  },
  'glm-4.5': markerParser('glm-4.5', glm45Grammar),
  'seed-oss': markerParser('seed-oss', seedOssGrammar),
  'deepseek-v3.2': markerParser('deepseek-v3.2', deepseekV32Grammar),
  'minimax-m2': markerParser('minimax-m2', minimaxM2Grammar),
  'llama-3': markerParser('llama-3', llama3Grammar),
  mistral: { ...markerParser('mistral', mistralGrammar), idGenerator: randomNineCharId },
  'gemma-4': markerParser('gemma-4', gemma4Grammar),
};

/** Resolves a family id or alias to its parser; unknown → ChatfmtError UNKNOWN_FAMILY. */
export function parserFamily(name: string): ParserFamily {
  const id = resolveFamilyId(name);
  if (id === undefined) {
    throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${name}"; known: ${familyIds.join(', ')}`);
  }
  const variant = resolveFamilyVariant(name);
  return variant ? { ...parserFamilies[id], defaultPrefix: variant.prefill } : parserFamilies[id];
}
