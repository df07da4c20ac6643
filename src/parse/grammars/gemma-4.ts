import { familyInfo } from '../../families/info.js';
import { withTags, type Grammar } from '../engine/grammar.js';
import { hermesGrammar } from './hermes-json.js';

// SCAFFOLD: replaced by the family's real grammar.
export const gemma4Grammar: Grammar = withTags(hermesGrammar, { id: 'gemma-4', stopStrings: familyInfo['gemma-4'].stopStrings, defaultPrefix: '' });
