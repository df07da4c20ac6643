import { ChatfmtError } from '../errors.js';
import type { FamilyInfo } from '../families/family.js';
import { familyIds, familyInfo, resolveFamilyId, resolveFamilyVariant, type FamilyId } from '../families/info.js';
import { familyTemplateSources } from '../families/templates.generated.js';
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

/** One family as every part of chatfmt sees it: its facts, its template and its parser. */
export interface Family extends FamilyInfo<FamilyId> {
  /** The bundled template's source (templates/<id>.jinja, built in: no file is read). */
  templateSource: string;
  parser: ParserFamily;
}

// The facts sit below the parse grammars (which read their tokens and stop strings); this row adds the template
// and the parser, so the facts cannot live here too.
function family(id: FamilyId, parser: ParserFamily): Family {
  const facts = familyInfo[id];
  return { ...facts, templateSource: familyTemplateSources[facts.templateFile]!, parser };
}

function markerFamily(id: FamilyId, grammar: Grammar): Family {
  return family(id, grammarParser(id, grammar, compiledOnFirstUse(grammar)));
}

/** The typed registry: render, parse, detect and convert all read this one table. */
export const families: { readonly [Id in FamilyId]: Family } = {
  hermes: markerFamily('hermes', hermesGrammar),
  'qwen2.5': markerFamily('qwen2.5', qwen25Grammar),
  qwen3: markerFamily('qwen3', qwen3Grammar),
  'qwen3-coder': markerFamily('qwen3-coder', qwen3CoderGrammar),
  'deepseek-v3.1': markerFamily('deepseek-v3.1', deepseekV31Grammar),
  'deepseek-r1': markerFamily('deepseek-r1', deepseekR1Grammar),
  'kimi-k2': markerFamily('kimi-k2', kimiK2Grammar),
  'gpt-oss': family('gpt-oss', {
    id: 'gpt-oss',
    createCore: createHarmonyCore,
    markers: { callOpen: [' to=functions.'], callClose: ['<|call|>'], reasoningOpen: ['<|channel|>analysis'], reasoningClose: ['<|end|>'] },
    stopStrings: familyInfo['gpt-oss'].stopStrings,
    defaultPrefix: '<|start|>assistant',
  }),
  'glm-4.5': markerFamily('glm-4.5', glm45Grammar),
  'seed-oss': markerFamily('seed-oss', seedOssGrammar),
  'deepseek-v3.2': markerFamily('deepseek-v3.2', deepseekV32Grammar),
  'minimax-m2': markerFamily('minimax-m2', minimaxM2Grammar),
  'llama-3': markerFamily('llama-3', llama3Grammar),
  mistral: family('mistral', { ...grammarParser('mistral', mistralGrammar, compiledOnFirstUse(mistralGrammar)), idGenerator: randomNineCharId }),
  'gemma-4': markerFamily('gemma-4', gemma4Grammar),
};

/** The parser of every family, keyed by family id: the registry's parser column. */
export const parserFamilies = Object.fromEntries(familyIds.map((id): [FamilyId, ParserFamily] => [id, families[id].parser])) as unknown as {
  readonly [Id in FamilyId]: ParserFamily;
};

/** A family by id or alias; unknown → ChatfmtError UNKNOWN_FAMILY. */
export function getFamily(name: string): Family {
  const id = resolveFamilyId(name);
  if (id === undefined) throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${name}" (known: ${familyIds.join(', ')})`);
  return families[id];
}

/** Resolves a family id or alias to its parser; unknown → ChatfmtError UNKNOWN_FAMILY. */
export function parserFamily(name: string): ParserFamily {
  const id = resolveFamilyId(name);
  if (id === undefined) {
    throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${name}"; known: ${familyIds.join(', ')}`);
  }
  const variant = resolveFamilyVariant(name);
  return variant ? { ...parserFamilies[id], defaultPrefix: variant.prefill } : parserFamilies[id];
}
