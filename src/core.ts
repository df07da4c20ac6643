// The core: render, parse, detect, format and response templates with no Node globals, for browsers, Web Workers
// and edge runtimes (`chatfmt/core`, or `chatfmt` under the browser and worker conditions). Exports only.
export type * from './types.js';
export { ChatfmtError, isChatfmtError, type ErrorCode } from './errors.js';
export { familyIds, familyInfo, familyVariants, resolveFamilyId, resolveFamilyVariant, unknownFamilyMessage, type FamilyId, type FamilyVariant } from './families/info.js';
export type { FamilyInfo, ArgumentsForm } from './families/family.js';
export { families, getFamily, type Family } from './registry/index.js';
export * from './jinja/index.js';
export * from './render/index.js';
export * from './parse/index.js';
export * from './detect/index.js';
export * from './format/index.js';
export * from './response-template/index.js';
export { exportResponseTemplate, COMMON_LOSSES, type ExportedResponseTemplate, type ExportVerdict } from './export/response-template.js';
export { toOpenAIMessage } from './response-template/openai-message.js';
export { responseTemplateFromSchema } from './response-template/legacy.js';
