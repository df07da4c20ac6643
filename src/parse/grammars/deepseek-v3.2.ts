import { familyInfo } from '../../families/info.js';
import { withTags, type Grammar } from '../engine/grammar.js';
import { hermesGrammar } from './hermes-json.js';

// SCAFFOLD: replaced by the family's real grammar.
export const deepseekV32Grammar: Grammar = withTags(hermesGrammar, { id: 'deepseek-v3.2', stopStrings: familyInfo['deepseek-v3.2'].stopStrings, defaultPrefix: '' });
