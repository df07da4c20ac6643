// Dropped or picked model files, read the way Node's loadTemplate reads a model folder: tokenizer_config.json,
// chat_template.jinja (wins over the config's template), chat_template.json, additional_chat_templates/<name>.jinja;
// and tokenizer.json for token counts. Files are size-checked before they are read.
import { ChatfmtError } from '../../errors.js';
import { loadTemplateFromSources, MAX_TEMPLATE_BYTES } from '../../render/load.js';
import type { LoadedTemplate, TemplateSources } from '../../render/types.js';
import type { FolderFiles } from './state.js';

/** tokenizer.json files run to tens of megabytes; anything past this is not one a page should parse. */
export const MAX_TOKENIZER_BYTES = 64 * 1024 * 1024;

export interface DroppedFiles {
  /** Template files, when any were among them. */
  folder?: FolderFiles;
  tokenizer?: { json: object; name: string };
  /** Files that were skipped, with why. */
  skipped: string[];
}

/** A file with the folder-relative path it was dropped with (`webkitRelativePath`, or the name). */
export interface NamedFile {
  path: string;
  file: File;
}

export async function readDroppedFiles(files: readonly NamedFile[], folderName: string): Promise<DroppedFiles> {
  const folder: FolderFiles = { name: folderName };
  const out: DroppedFiles = { skipped: [] };
  let templateFiles = 0;
  for (const { path, file } of files) {
    const base = path.slice(path.lastIndexOf('/') + 1);
    const additional = /(?:^|\/)additional_chat_templates\/([^/]+)\.jinja$/.exec(path);
    if (base === 'tokenizer.json') {
      if (file.size > MAX_TOKENIZER_BYTES) out.skipped.push(`${path}: larger than ${MAX_TOKENIZER_BYTES} bytes`);
      else out.tokenizer = { json: parseJson(await file.text(), path) as object, name: path };
      continue;
    }
    const key = base === 'tokenizer_config.json' ? 'config' : base === 'chat_template.jinja' ? 'chatTemplateJinja' : base === 'chat_template.json' ? 'chatTemplateJson' : undefined;
    if (key === undefined && !additional) {
      out.skipped.push(`${path}: not a file a model folder's template comes from`);
      continue;
    }
    if (file.size > MAX_TEMPLATE_BYTES) {
      out.skipped.push(`${path}: larger than ${MAX_TEMPLATE_BYTES} bytes`);
      continue;
    }
    const text = await file.text();
    templateFiles++;
    if (key !== undefined) folder[key] = text;
    else (folder.additional ??= {})[additional![1]!] = text;
  }
  if (templateFiles > 0) out.folder = folder;
  return out;
}

/** The folder's template as transformers combines its files (see loadTemplateFromSources). */
export function loadFolder(files: FolderFiles): LoadedTemplate {
  const sources: TemplateSources = { name: files.name, configName: `${files.name}/tokenizer_config.json` };
  if (files.config !== undefined) sources.config = files.config;
  const additional: Record<string, string> = { ...files.additional };
  let chatTemplate = files.chatTemplateJinja;
  if (files.chatTemplateJson !== undefined) {
    // chat_template.json holds {"chat_template": "..."} (or a list of named templates); the .jinja file wins over it.
    const template = (parseJson(files.chatTemplateJson, `${files.name}/chat_template.json`) as { chat_template?: unknown }).chat_template;
    if (typeof template === 'string') chatTemplate ??= template;
    else if (Array.isArray(template)) {
      for (const entry of template as Array<{ name?: unknown; template?: unknown }>) {
        if (typeof entry?.name === 'string' && typeof entry.template === 'string') {
          if (entry.name === 'default') chatTemplate ??= entry.template;
          else additional[entry.name] ??= entry.template;
        }
      }
    } else throw new ChatfmtError('TEMPLATE_SOURCE', `${files.name}/chat_template.json: no "chat_template" string or list`);
  }
  if (chatTemplate !== undefined) sources.chatTemplate = chatTemplate;
  if (Object.keys(additional).length > 0) sources.additionalTemplates = additional;
  if (files.config === undefined && chatTemplate === undefined && Object.keys(additional).length === 0) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${files.name}: no chat template among the dropped files (tokenizer_config.json, chat_template.jinja or chat_template.json)`);
  }
  return loadTemplateFromSources(sources);
}

/** Special tokens and added-token settings a tokenizer needs from the folder's config, if one was dropped. */
export function folderConfig(files: FolderFiles | undefined): object {
  if (files?.config === undefined) return {};
  try {
    const config = JSON.parse(files.config) as unknown;
    return config && typeof config === 'object' ? config : {};
  } catch {
    return {};
  }
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `${name} is not valid JSON: ${(error as Error).message}`);
  }
}
