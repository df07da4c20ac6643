import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChatfmtError } from '../errors.js';
import { familyIds, familyInfo, resolveFamilyId, resolveFamilyVariant } from '../families/info.js';
import { compileTemplate, type CompiledTemplate } from '../jinja/index.js';
import { responseTemplateFromSchema } from '../response-template/legacy.js';
import { isPlainObject } from '../util/guards.js';
import type { LoadedTemplate, TemplateSpec } from './types.js';

/** Templates from model repos are untrusted; anything this large is not a chat template. */
export const MAX_TEMPLATE_BYTES = 4 * 1024 * 1024;

const templatesDir = fileURLToPath(new URL('../../templates/', import.meta.url));

// transformers passes tokenizer.special_tokens_map: these attributes, when set, plus the additional list.
const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

/**
 * Loads a template the way transformers finds one: a family's bundled template, a .jinja file,
 * a tokenizer_config.json (string or named list), or a model folder where chat_template.jinja wins
 * over the config and additional_chat_templates/<name>.jinja add named templates.
 */
export function loadTemplate(spec: TemplateSpec): LoadedTemplate {
  if (spec.source !== undefined) return fromNamed('<inline>', { default: spec.source }, {}, spec.templateName);
  if (spec.template !== undefined) return fromPath(spec.template, spec.templateName);
  if (spec.family !== undefined) return fromFamily(spec.family);
  throw new ChatfmtError('TEMPLATE_SOURCE', 'no template given: pass a family (--family) or a template path (--template)');
}

/** The bundled template of a family (file path under the package's templates/ folder). */
export function familyTemplatePath(familyId: string): string {
  const id = resolveFamilyId(familyId);
  if (!id) throw unknownFamily(familyId);
  return join(templatesDir, familyInfo[id].templateFile);
}

// Bundled templates never change, so each family is read and compiled once per process.
const familyTemplates = new Map<string, LoadedTemplate>();

function fromFamily(name: string): LoadedTemplate {
  const id = resolveFamilyId(name);
  if (!id) throw unknownFamily(name);
  let loaded = familyTemplates.get(id);
  if (!loaded) {
    const info = familyInfo[id];
    const source = readText(join(templatesDir, info.templateFile), `template of family ${id}`);
    loaded = { ...fromNamed(id, { default: source }, { ...info.specialTokens }, undefined), family: id };
    familyTemplates.set(id, loaded);
  }
  const variant = resolveFamilyVariant(name);
  return variant ? { ...loaded, name: variant.id, prefill: variant.prefill } : loaded;
}

function fromPath(path: string, templateName: string | undefined): LoadedTemplate {
  const stats = statOrThrow(path);
  if (stats.isDirectory()) return fromModelFolder(path, templateName);
  if (path.endsWith('.json')) {
    const config = readConfig(path);
    return { ...fromNamed(path, namedTemplatesOf(config, path), specialTokensOf(config), templateName), ...responseTemplateOf(config, path) };
  }
  return fromNamed(path, { default: readText(path, 'template') }, {}, templateName);
}

function fromModelFolder(dir: string, templateName: string | undefined): LoadedTemplate {
  const configPath = join(dir, 'tokenizer_config.json');
  const config = existsSync(configPath) ? readConfig(configPath) : {};
  const named: Record<string, string> = config.chat_template !== undefined ? namedTemplatesOf(config, configPath) : {};
  const jinjaPath = join(dir, 'chat_template.jinja');
  if (existsSync(jinjaPath)) named.default = readText(jinjaPath, 'template');
  const extraDir = join(dir, 'additional_chat_templates');
  if (existsSync(extraDir) && statSync(extraDir).isDirectory()) {
    for (const file of readdirSync(extraDir)) {
      if (file.endsWith('.jinja')) named[basename(file, '.jinja')] = readText(join(extraDir, file), 'template');
    }
  }
  if (Object.keys(named).length === 0) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${dir}: no chat template found (looked for chat_template.jinja, tokenizer_config.json "chat_template", additional_chat_templates/)`);
  }
  return { ...fromNamed(dir, named, specialTokensOf(config), templateName), ...responseTemplateOf(config, configPath) };
}

type ResponseTemplateInfo = Pick<LoadedTemplate, 'responseTemplate' | 'responseTemplateKey' | 'responseSchema' | 'responseTemplateError'>;

/**
 * transformers' order: `response_template`, else the legacy `response_schema` (converted here, since chatfmt runs only
 * response templates). Problems are recorded, not thrown: the chat template still renders.
 */
function responseTemplateOf(config: Config, path: string): ResponseTemplateInfo {
  const info: ResponseTemplateInfo = {};
  const schema = config.response_schema;
  if (isPlainObject(schema)) info.responseSchema = schema;
  const template = config.response_template;
  if (template !== undefined && template !== null) {
    if (isPlainObject(template)) return { ...info, responseTemplate: template, responseTemplateKey: 'response_template' };
    return { ...info, responseTemplateError: `${path}: "response_template" is not a JSON object` };
  }
  if (schema === undefined || schema === null) return info;
  if (!isPlainObject(schema)) return { ...info, responseTemplateError: `${path}: "response_schema" is not a JSON object` };
  try {
    return { ...info, responseTemplate: responseTemplateFromSchema(schema), responseTemplateKey: 'response_schema' };
  } catch (error) {
    return { ...info, responseTemplateError: `${path}: ${(error as Error).message}` };
  }
}

function fromNamed(
  name: string,
  sources: Record<string, string>,
  specialTokens: Record<string, string>,
  templateName: string | undefined,
): LoadedTemplate {
  const names = Object.keys(sources);
  if (templateName !== undefined && !(templateName in sources)) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${name}: no chat template named "${templateName}" (available: ${names.join(', ')})`);
  }
  const compiled = new Map<string, CompiledTemplate>();
  const compileNamed = (key: string): CompiledTemplate => {
    let template = compiled.get(key);
    if (!template) {
      const label = names.length > 1 ? `${name}#${key}` : name;
      template = compileTemplate(sources[key]!, { name: label });
      compiled.set(key, template);
    }
    return template;
  };
  return {
    name,
    specialTokens,
    select(hasTools: boolean): CompiledTemplate {
      if (templateName !== undefined) return compileNamed(templateName);
      if (names.length === 1) return compileNamed(names[0]!);
      // transformers: "tool_use" when tools are passed and such a template exists, else "default".
      if (hasTools && 'tool_use' in sources) return compileNamed('tool_use');
      if ('default' in sources) return compileNamed('default');
      throw new ChatfmtError('TEMPLATE_SOURCE', `${name}: several chat templates (${names.join(', ')}) and none is "default"; choose one with --template-name`);
    },
  };
}

type Config = Record<string, unknown>;

function namedTemplatesOf(config: Config, path: string): Record<string, string> {
  const value = config.chat_template;
  if (typeof value === 'string') return { default: value };
  if (Array.isArray(value)) {
    const named: Record<string, string> = {};
    for (const entry of value) {
      if (entry && typeof entry === 'object' && typeof entry.name === 'string' && typeof entry.template === 'string') {
        named[entry.name] = entry.template;
      }
    }
    if (Object.keys(named).length > 0) return named;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const named = Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    if (Object.keys(named).length > 0) return named;
  }
  throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: no usable "chat_template" (expected a string or a list of {name, template})`);
}

/** Special tokens as transformers exposes them: strings, with AddedToken objects ({content: ...}) flattened. */
export function specialTokensOf(config: Config): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_KEYS) {
    const text = tokenText(config[key]);
    if (text !== undefined) tokens[key] = text;
  }
  return tokens;
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return undefined;
}

function readConfig(path: string): Config {
  const text = readText(path, 'tokenizer config');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: not valid JSON (${(error as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: expected a JSON object`);
  }
  return value as Config;
}

function statOrThrow(path: string) {
  try {
    return statSync(path);
  } catch {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: no such file or folder`);
  }
}

function readText(path: string, what: string): string {
  const stats = statOrThrow(path);
  if (stats.isDirectory()) throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: is a folder, expected a ${what} file`);
  if (stats.size > MAX_TEMPLATE_BYTES) {
    throw new ChatfmtError('INPUT_TOO_LARGE', `${path}: ${what} is ${stats.size} bytes; the limit is ${MAX_TEMPLATE_BYTES}`);
  }
  const bytes = readFileSync(path);
  // A template is text: an executable or an image given by mistake gets named as such, not "no known family".
  if (bytes.includes(0)) throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: is a binary file, expected a ${what} (text)`);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${path}: is not UTF-8 text, expected a ${what}`);
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function unknownFamily(name: string): ChatfmtError {
  return new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${name}" (known: ${familyIds.join(', ')})`);
}
