import { familyInfo } from '../../families/info.js';
import { withTags, type Grammar } from '../engine/grammar.js';
import { hermesGrammar } from './hermes-json.js';

// SCAFFOLD: replaced by the family's real grammar.
export const llama3Grammar: Grammar = withTags(hermesGrammar, { id: 'llama-3', stopStrings: familyInfo['llama-3'].stopStrings, defaultPrefix: '' });
