// `chatfmt/parse`: completions to messages and stream deltas (the fifteen families, response templates, grammars
// built with createGrammarCore) for programs that only parse, such as a server or proxy reading a model's output.
// It loads neither the Jinja compiler, the renderer, the family templates nor datasets: in a fresh process it imports
// in about half the time of `chatfmt`, and the first parse after it is faster too (bench/RESULTS.md). The same
// functions as `chatfmt`'s, and no Node globals, so browsers and edge runtimes take this file too. Exports only.
export type * from './types.js';
export { ChatfmtError, isChatfmtError, type ErrorCode } from './errors.js';
export { familyIds, familyInfo, familyVariants, resolveFamilyId, resolveFamilyVariant, unknownFamilyMessage, type FamilyId, type FamilyVariant } from './families/info.js';
export * from './parse/index.js';
export * from './response-template/index.js';
export { toOpenAIMessage } from './response-template/openai-message.js';
