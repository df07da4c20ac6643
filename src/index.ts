// Public API: exports only.
export type * from './types.js';
export { ChatfmtError, isChatfmtError, type ErrorCode } from './errors.js';
export { familyIds, familyInfo, resolveFamilyId, type FamilyId } from './families/info.js';
export type { FamilyInfo, ArgumentsForm } from './families/family.js';
