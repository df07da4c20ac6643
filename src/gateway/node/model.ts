// The model a gateway serves, from `--family` or `--template` (a .jinja file, tokenizer_config.json or model folder).
import { basename } from 'node:path';
import { ChatfmtError } from '../../errors.js';
import { loadTemplate } from '../../node/load.js';
import type { Diagnostic } from '../../types.js';
import { familyModel, templateModel } from '../core/model.js';
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
  if (spec.family !== undefined) return { model: familyModel(spec.family, spec.name) };
  const template = loadTemplate({ template: spec.template!, ...(spec.templateName ? { templateName: spec.templateName } : {}) });
  return templateModel(template, spec.name ?? basename(spec.template!.replace(/[\\/]+$/, '')), spec.name);
}
