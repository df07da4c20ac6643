// Which model the provider and the middleware speak for: a family, or a template given as text (edge runtimes have
// no file system; in Node, load a model folder with chatfmt's loadTemplate and pass the result).
import { ChatfmtError } from '../errors.js';
import { familyModel, templateModel } from '../gateway/core/model.js';
import type { GatewayModel } from '../gateway/core/session.js';
import { loadTemplate, loadTemplateFromSources } from '../render/load.js';
import type { LoadedTemplate, TemplateSources } from '../render/types.js';
import type { Diagnostic } from '../types.js';

export type ModelSource =
  | { /** A family id, alias or variant (`chatfmt families`). */ family: string; template?: undefined }
  | {
      family?: undefined;
      /** Jinja source text, the texts of a model folder, or a template loaded with `loadTemplate`; the parser is detected. */
      template: string | TemplateSources | LoadedTemplate;
    };

/** The model, and `note` when its parser was found by detection (the provider reports it as a warning). */
export function resolveModel(source: ModelSource): { model: GatewayModel; note?: Diagnostic } {
  if ((source.family === undefined) === (source.template === undefined)) {
    throw new ChatfmtError('INPUT_INVALID', 'give exactly one of `family` or `template`');
  }
  if (source.family !== undefined) return { model: familyModel(source.family) };
  const template = asLoaded(source.template!);
  return templateModel(template, template.name);
}

function asLoaded(template: string | TemplateSources | LoadedTemplate): LoadedTemplate {
  if (typeof template === 'string') return loadTemplate({ source: template });
  if ('select' in template && typeof template.select === 'function') return template;
  return loadTemplateFromSources(template as TemplateSources);
}
