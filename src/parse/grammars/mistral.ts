import { familyInfo } from '../../families/info.js';
import { withTags, type Grammar } from '../engine/grammar.js';
import { hermesGrammar } from './hermes-json.js';

// SCAFFOLD: replaced by the family's real grammar.
export const mistralGrammar: Grammar = withTags(hermesGrammar, { id: 'mistral', stopStrings: familyInfo['mistral'].stopStrings, defaultPrefix: '' });
