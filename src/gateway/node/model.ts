// The model a gateway serves, from `--family` or `--template` (a .jinja file, tokenizer_config.json or model folder).
import { basename } from 'node:path';
import { familyIds, resolveFamilyId } from '../../families/info.js';
import { ChatfmtError } from '../../errors.js';
import { parserForTemplate } from '../../detect/template-parser.js';
import { parserFamily, type ParserFamily } from '../../registry/index.js';
import { loadTemplate } from '../../node/load.js';
import type { Diagnostic } from '../../types.js';
import type { GatewayModel } from '../core/session.js';

export interface ModelSpec {
  /** A family id, alias or variant (`chatfmt families`). */
  family?: string;
  /** A .jinja file, a tokenizer_config.json or a model folder. */
  template?: string;
  templateName?: string;
  /** The model name the backend always receives and /v1/models lists (default: the client's model name is sent, the
   * family id or the template's folder name is listed). */
  name?: string;
}

/** The model, and a note when its parser was found by detection (printed by the CLI, so a guess is never silent). */
export function loadGatewayModel(spec: ModelSpec): { model: GatewayModel; note?: Diagnostic } {
  if ((spec.family === undefined) === (spec.template === undefined)) {
    throw new ChatfmtError('INPUT_INVALID', 'give exactly one of a family (--family) or a template (--template)');
  }
  if (spec.family !== undefined) {
    const familyId = resolveFamilyId(spec.family);
    if (!familyId) throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${spec.family}" (known: ${familyIds.join(', ')})`);
    const template = loadTemplate({ family: spec.family });
    const parser = parserFamily(spec.family);
    return { model: { template, parser: spec.family, familyId, stopStrings: parser.stopStrings, name: spec.name ?? familyId, ...(spec.name ? { backendModel: spec.name } : {}) } };
  }
  const template = loadTemplate({ template: spec.template!, ...(spec.templateName ? { templateName: spec.templateName } : {}) });
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
    name: spec.name ?? basename(spec.template!.replace(/[\\/]+$/, '')),
    ...(spec.name ? { backendModel: spec.name } : {}),
  };
  return { model, ...(found.diagnostic ? { note: found.diagnostic } : {}) };
}
