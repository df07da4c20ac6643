import type { LoadedTemplate, TemplateSpec } from './types.js';

export function loadTemplate(spec: TemplateSpec): LoadedTemplate {
  throw new Error(`not implemented yet: ${JSON.stringify(spec)}`);
}
