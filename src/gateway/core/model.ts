// The model a gateway (or the AI SDK provider) serves, from a family name or an already loaded template. Pure: the
// Node loader (node/model.ts) reads template files and hands the loaded template here.
import { ChatfmtError } from '../../errors.js';
import { familyIds, resolveFamilyId } from '../../families/info.js';
import { parserForTemplate } from '../../detect/template-parser.js';
import { parserFamily, type ParserFamily } from '../../registry/index.js';
import { loadTemplate } from '../../render/load.js';
import type { LoadedTemplate } from '../../render/types.js';
import type { Diagnostic } from '../../types.js';
import type { GatewayModel } from './session.js';

/** A family id, alias or variant: its bundled template and its parser. `name` is also always sent to the backend. */
export function familyModel(family: string, name?: string): GatewayModel {
  const familyId = resolveFamilyId(family);
  if (!familyId) throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${family}" (known: ${familyIds.join(', ')})`);
  const template = loadTemplate({ family });
  const parser = parserFamily(family);
  return { template, parser: family, familyId, stopStrings: parser.stopStrings, name: name ?? familyId, ...(name ? { backendModel: name } : {}) };
}

/**
 * A template of unknown family: its parser is found by detection (`parserForTemplate`), and `note` says how, so a
 * guess is never silent. `name` is listed as the model; `backendModel`, when given, is always sent to the backend.
 */
export function templateModel(template: LoadedTemplate, name: string, backendModel?: string): { model: GatewayModel; note?: Diagnostic } {
  const found = parserForTemplate(template);
  const familyId = typeof found.family === 'string' ? resolveFamilyId(found.family) : undefined;
  const parser: ParserFamily = typeof found.family === 'string' ? parserFamily(found.family) : found.family;
  const eos = template.specialTokens.eos_token;
  const stopStrings = [...new Set([...parser.stopStrings, ...(eos ? [eos] : [])])];
  const model: GatewayModel = {
    template,
    parser: found.family,
    ...(familyId ? { familyId } : {}),
    ...(found.prefix !== undefined ? { defaultPrefix: found.prefix } : {}),
    stopStrings,
    name,
    ...(backendModel ? { backendModel } : {}),
  };
  return { model, ...(found.diagnostic ? { note: found.diagnostic } : {}) };
}
