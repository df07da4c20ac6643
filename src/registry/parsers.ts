import { familyIds, familyInfo, resolveFamilyId, resolveFamilyVariant, type FamilyId } from '../families/info.js';
import { ChatfmtError } from '../errors.js';
import type { CoreFactory } from '../parse/core.js';
import type { Grammar } from '../parse/engine/grammar.js';
import { createGrammarCore } from '../parse/engine/machine.js';
import { deepseekR1Grammar } from '../parse/grammars/deepseek-r1.js';
import { deepseekV31Grammar } from '../parse/grammars/deepseek-v3.1.js';
import { glm45Grammar } from '../parse/grammars/glm-4.5.js';
import { hermesGrammar, qwen25Grammar, qwen3Grammar } from '../parse/grammars/hermes-json.js';
import { kimiK2Grammar } from '../parse/grammars/kimi-k2.js';
import { qwen3CoderGrammar } from '../parse/grammars/qwen3-coder.js';
import { seedOssGrammar } from '../parse/grammars/seed-oss.js';
import { deepseekV32Grammar } from '../parse/grammars/deepseek-v3.2.js';
import { minimaxM2Grammar } from '../parse/grammars/minimax-m2.js';
import { llama3Grammar } from '../parse/grammars/llama-3.js';
import { mistralGrammar } from '../parse/grammars/mistral.js';
import { gemma4Grammar } from '../parse/grammars/gemma-4.js';
import { createHarmonyCore } from '../parse/harmony/index.js';
import { randomNineCharId, type IdGenerator } from '../parse/ids.js';

/** Markers of a family's output, for detection and docs. */
export interface ParserMarkers {
  callOpen: readonly string[];
  callClose: readonly string[];
  sectionOpen?: readonly string[];
  sectionClose?: readonly string[];
  reasoningOpen?: readonly string[];
  reasoningClose?: readonly string[];
}

export interface ParserFamily {
  /** A family id, or a name for a grammar derived from a template (`derived`). */
  id: string;
  createCore: CoreFactory;
  markers: ParserMarkers;
  stopStrings: readonly string[];
  /** The prompt tail assumed when the caller gives none. */
  defaultPrefix: string;
  /** Set for the marker-grammar families (all but gpt-oss). */
  grammar?: Grammar;
  /** Ids for calls the model wrote none for, when the family accepts only its own shape (Mistral: 9 characters). */
  idGenerator?: IdGenerator;
}

/** A parser for a grammar descriptor: every marker family's, or one derived from an unknown template. */
export function grammarParser(id: string, grammar: Grammar): ParserFamily {
  return {
    id,
    createCore: createGrammarCore(grammar),
    markers: {
      callOpen: [...grammar.call.open, ...(grammar.bareOpen ?? []), ...(grammar.leadingOpen ?? [])],
      callClose: grammar.call.close,
      ...(grammar.section ? { sectionOpen: grammar.section.open, sectionClose: grammar.section.close } : {}),
      ...(grammar.reasoning ? { reasoningOpen: grammar.reasoning.open, reasoningClose: grammar.reasoning.close } : {}),
    },
    stopStrings: grammar.stopStrings,
    defaultPrefix: grammar.defaultPrefix,
    grammar,
  };
}

/** The parser of every family, keyed by family id. */
export const parserFamilies: { readonly [Id in FamilyId]: ParserFamily } = {
  hermes: grammarParser('hermes', hermesGrammar),
  'qwen2.5': grammarParser('qwen2.5', qwen25Grammar),
  qwen3: grammarParser('qwen3', qwen3Grammar),
  'qwen3-coder': grammarParser('qwen3-coder', qwen3CoderGrammar),
  'deepseek-v3.1': grammarParser('deepseek-v3.1', deepseekV31Grammar),
  'deepseek-r1': grammarParser('deepseek-r1', deepseekR1Grammar),
  'kimi-k2': grammarParser('kimi-k2', kimiK2Grammar),
  'gpt-oss': {
    id: 'gpt-oss',
    createCore: createHarmonyCore,
    markers: { callOpen: [' to=functions.'], callClose: ['<|call|>'], reasoningOpen: ['<|channel|>analysis'], reasoningClose: ['<|end|>'] },
    stopStrings: familyInfo['gpt-oss'].stopStrings,
    defaultPrefix: '<|start|>assistant',
  },
  'glm-4.5': grammarParser('glm-4.5', glm45Grammar),
  'seed-oss': grammarParser('seed-oss', seedOssGrammar),
  'deepseek-v3.2': grammarParser('deepseek-v3.2', deepseekV32Grammar),
  'minimax-m2': grammarParser('minimax-m2', minimaxM2Grammar),
  'llama-3': grammarParser('llama-3', llama3Grammar),
  mistral: { ...grammarParser('mistral', mistralGrammar), idGenerator: randomNineCharId },
  'gemma-4': grammarParser('gemma-4', gemma4Grammar),
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
