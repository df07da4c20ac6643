import { familyInfo } from '../../families/info.js';
import { withTags, type Grammar } from '../engine/grammar.js';
import { hermesGrammar } from './hermes-json.js';

// SCAFFOLD: replaced by the family's real grammar.
export const minimaxM2Grammar: Grammar = withTags(hermesGrammar, { id: 'minimax-m2', stopStrings: familyInfo['minimax-m2'].stopStrings, defaultPrefix: '' });
