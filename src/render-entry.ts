// `chatfmt/render` in Node: the renderer alone (the Jinja engine, transformers semantics, templates from families,
// files and model folders) for programs that only render. `chatfmt` loads parse, detect, datasets and their
// dependencies (ajv, tokenizers) as well, which costs a first render more start-up than jinja2's. Exports only.
export type * from './types.js';
export { ChatfmtError, isChatfmtError, type ErrorCode } from './errors.js';
export { familyIds, familyInfo, familyVariants, resolveFamilyId, resolveFamilyVariant, type FamilyId, type FamilyVariant } from './families/info.js';
export * from './jinja/index.js';
export * from './render/index.js';
// Named exports win over `export *`: in Node, templates also load from paths.
export { loadTemplate, render } from './node/load.js';
