import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatfmtError } from '../errors.js';
import { familyInfo, resolveFamilyId, unknownFamilyMessage } from '../families/info.js';
import { parseConfig } from '../render/config.js';
import { loadTemplate as loadCoreTemplate, loadTemplateFromSources, MAX_TEMPLATE_BYTES } from '../render/load.js';
import { renderLoadedBy } from '../render/render.js';
import type { Conversation, LoadedTemplate, RenderOptions, RenderResult, TemplateSpec } from '../render/types.js';
import { readTemplateText, statTemplatePath, templatePathExists } from './read-template.js';

const templatesDir = fileURLToPath(new URL('../../templates/', import.meta.url));

/**
 * Loads a template the way transformers finds one: a family's bundled template, a .jinja file, a
 * tokenizer_config.json (string or named list), or a model folder where chat_template.jinja wins over the config and
 * additional_chat_templates/<name>.jinja add named templates.
 */
export function loadTemplate(spec: TemplateSpec): LoadedTemplate {
  if (spec.source === undefined && spec.template !== undefined) return fromPath(spec.template, spec.templateName);
  return loadCoreTemplate(spec);
}

/** Convenience: load (cached by source) and render in one call; `template` may be a path. */
export function render(options: TemplateSpec & RenderOptions & Conversation): RenderResult {
  return renderLoadedBy(loadTemplate, options);
}

/** The bundled template of a family (file path under the package's templates/ folder). */
export function familyTemplatePath(familyId: string): string {
  const id = resolveFamilyId(familyId);
  if (!id) throw new ChatfmtError('UNKNOWN_FAMILY', unknownFamilyMessage(familyId));
  return join(templatesDir, familyInfo[id].templateFile);
}

function fromPath(path: string, templateName: string | undefined): LoadedTemplate {
  const stats = statTemplatePath(path);
  if (stats.isDirectory()) return fromModelFolder(path, templateName);
  if (path.endsWith('.json')) return loadTemplateFromSources({ name: path, config: readTemplateText(path, 'tokenizer config'), templateName });
  return loadTemplateFromSources({ name: path, chatTemplate: readTemplateText(path, 'template'), templateName });
}

/**
 * Named templates a model folder may bring in additional_chat_templates/ (published repos have a few: `tool_use`,
 * `rag`). Each file is capped like any template; without caps on their number and their sum, a folder of thousands
 * of 4 MiB files would be read whole into memory.
 */
const MAX_ADDITIONAL_TEMPLATES = 256;

function fromModelFolder(dir: string, templateName: string | undefined): LoadedTemplate {
  const configPath = join(dir, 'tokenizer_config.json');
  const config = templatePathExists(configPath) ? parseConfig(readTemplateText(configPath, 'tokenizer config'), configPath) : {};
  const jinjaPath = join(dir, 'chat_template.jinja');
  const chatTemplate = templatePathExists(jinjaPath) ? readTemplateText(jinjaPath, 'template') : undefined;
  const additionalTemplates: Record<string, string> = {};
  const extraDir = join(dir, 'additional_chat_templates');
  if (templatePathExists(extraDir) && statTemplatePath(extraDir).isDirectory()) {
    const files = readdirSync(extraDir).filter((file) => file.endsWith('.jinja'));
    if (files.length > MAX_ADDITIONAL_TEMPLATES) {
      throw new ChatfmtError('INPUT_TOO_LARGE', `${extraDir}: ${files.length} templates, over the limit of ${MAX_ADDITIONAL_TEMPLATES}`);
    }
    let bytes = 0;
    for (const file of files) {
      const text = readTemplateText(join(extraDir, file), 'template');
      bytes += Buffer.byteLength(text);
      if (bytes > MAX_TEMPLATE_BYTES) throw new ChatfmtError('INPUT_TOO_LARGE', `${extraDir}: its templates together are over ${MAX_TEMPLATE_BYTES} bytes, the limit for one template`);
      // Defined, not assigned: a file named __proto__.jinja is a template name like any other.
      Object.defineProperty(additionalTemplates, basename(file, '.jinja'), { value: text, enumerable: true });
    }
  }
  if (config.chat_template === undefined && chatTemplate === undefined && Object.keys(additionalTemplates).length === 0) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${dir}: no chat template found (looked for chat_template.jinja, tokenizer_config.json "chat_template", additional_chat_templates/)`);
  }
  return loadTemplateFromSources({ name: dir, configName: configPath, config, chatTemplate, additionalTemplates, templateName });
}
