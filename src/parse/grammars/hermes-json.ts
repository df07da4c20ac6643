import { familyInfo } from '../../families/info.js';
import { hermesJson } from '../engine/codecs/hermes-json.js';
import { withTags, type Grammar } from '../engine/grammar.js';
import { noHeader } from '../engine/headers.js';

const think = { open: ['<think>'], close: ['</think>'] };

/**
 * `<tool_call>\n{"name": "N", "arguments": {...}}\n</tool_call>` (FORMATS §1). A leading `<think>` block is
 * read as reasoning (Hermes-4/DeepHermes and Qwen reasoning models write one); nothing else changes.
 */
export const hermesGrammar: Grammar = {
  id: 'hermes',
  reasoning: think,
  call: { open: ['<tool_call>'], close: ['</tool_call>'] },
  header: noHeader,
  args: hermesJson,
  stopStrings: familyInfo.hermes.stopStrings,
  defaultPrefix: '',
};

export const qwen25Grammar = withTags(hermesGrammar, { id: 'qwen2.5', stopStrings: familyInfo['qwen2.5'].stopStrings });

export const qwen3Grammar = withTags(hermesGrammar, { id: 'qwen3', stopStrings: familyInfo.qwen3.stopStrings });
