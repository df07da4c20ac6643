import { ChatfmtError } from '../errors.js';
import { familyInfo, resolveFamilyId, unknownFamilyMessage, resolveFamilyVariant } from '../families/info.js';
import { familyTemplateForms, familyTemplateNeeds } from '../families/templates-parsed.js';
import { familyTemplateSources } from '../families/templates.generated.js';
import { compileTemplate, type CompiledTemplate } from '../jinja/index.js';
import { isPlainObject } from '../util/guards.js';
import { parseConfig, responseTemplateOf, specialTokensOf, type Config } from './config.js';
import { knownNeeds } from './probe.js';
import type { LoadedTemplate, TemplateNeeds, TemplateSources, TemplateSpec } from './types.js';

/** Templates from model repos are untrusted; anything this large is not a chat template. */
export const MAX_TEMPLATE_BYTES = 4 * 1024 * 1024;

/**
 * A family's bundled template or inline source; the core has no file system. In Node, `chatfmt`'s own loadTemplate
 * also reads `{template: path}` (files, configs, model folders); elsewhere pass their text to loadTemplateFromSources.
 */
export function loadTemplate(spec: TemplateSpec): LoadedTemplate {
  if (spec.source !== undefined) return fromNamed('<inline>', new Map([['default', spec.source]]), {}, spec.templateName);
  if (spec.template !== undefined) {
    throw new ChatfmtError(
      'TEMPLATE_SOURCE',
      `${spec.template}: reading template files needs Node (import 'chatfmt' there); elsewhere pass the text to loadTemplateFromSources`,
    );
  }
  if (spec.family !== undefined) return fromFamily(spec.family);
  throw new ChatfmtError('TEMPLATE_SOURCE', 'no template given: pass a family (--family) or a template path (--template)');
}

/**
 * A model's template from the texts transformers reads, as it combines them: the tokenizer config (its
 * `chat_template` string or named list, special tokens, response template), then `chat_template.jinja`, which wins
 * as the default, then `additional_chat_templates/<name>.jinja`.
 */
export function loadTemplateFromSources(sources: TemplateSources): LoadedTemplate {
  const name = sources.name ?? '<sources>';
  const configName = sources.configName ?? name;
  const config: Config = typeof sources.config === 'string' ? parseConfig(sources.config, configName) : (sources.config ?? {});
  if (!isPlainObject(config)) throw new ChatfmtError('TEMPLATE_SOURCE', `${configName}: expected a JSON object`);
  const extra = Object.entries(sources.additionalTemplates ?? {});
  const named = new Map<string, string>();
  // A config alone must carry a usable chat_template; beside template files, a config without one is fine.
  if (config.chat_template !== undefined || (sources.chatTemplate === undefined && extra.length === 0)) {
    for (const [key, text] of namedTemplatesOf(config, configName)) named.set(key, text);
  }
  if (sources.chatTemplate !== undefined) named.set('default', sources.chatTemplate);
  for (const [key, text] of extra) named.set(key, text);
  return { ...fromNamed(name, named, specialTokensOf(config), sources.templateName), ...responseTemplateOf(config, configName) };
}

// Bundled templates never change, so each family is compiled once.
const familyTemplates = new Map<string, LoadedTemplate>();

function fromFamily(name: string): LoadedTemplate {
  const id = resolveFamilyId(name);
  if (!id) throw new ChatfmtError('UNKNOWN_FAMILY', unknownFamilyMessage(name));
  let loaded = familyTemplates.get(id);
  if (!loaded) {
    const info = familyInfo[id];
    const source = familyTemplateSources[info.templateFile];
    if (source === undefined) throw new ChatfmtError('TEMPLATE_SOURCE', `the template of family ${id} is not bundled (${info.templateFile})`);
    const known = { parsed: familyTemplateForms.get(info.templateFile), needs: familyTemplateNeeds.get(id) };
    loaded = { ...fromNamed(id, new Map([['default', source]]), { ...info.specialTokens }, undefined, known), family: id };
    familyTemplates.set(id, loaded);
  }
  const variant = resolveFamilyVariant(name);
  return variant ? { ...loaded, name: variant.id, prefill: variant.prefill } : loaded;
}

function fromNamed(
  name: string,
  sources: ReadonlyMap<string, string>,
  specialTokens: Record<string, string>,
  templateName: string | undefined,
  /** What is known ahead of a template that is the only one (a family's in the CLI's bundles). */
  known: { parsed?: string; needs?: TemplateNeeds } = {},
): LoadedTemplate {
  const names = [...sources.keys()];
  for (const [key, text] of sources) {
    if (text.length > MAX_TEMPLATE_BYTES) {
      throw new ChatfmtError('INPUT_TOO_LARGE', `${name}: template "${key}" is ${text.length} characters; the limit is ${MAX_TEMPLATE_BYTES}`);
    }
  }
  // A Map, not `in` on an object: "toString" or "__proto__" is a name like any other, never Object.prototype's.
  if (templateName !== undefined && !sources.has(templateName)) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${name}: no chat template named "${templateName}" (available: ${names.join(', ')})`);
  }
  const compiled = new Map<string, CompiledTemplate>();
  const compileNamed = (key: string): CompiledTemplate => {
    let template = compiled.get(key);
    if (!template) {
      const label = names.length > 1 ? `${name}#${key}` : name;
      const only = names.length === 1;
      template = compileTemplate(sources.get(key)!, { name: label, parsed: only ? known.parsed : undefined });
      if (only && known.needs !== undefined) knownNeeds(template, known.needs);
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
      if (hasTools && sources.has('tool_use')) return compileNamed('tool_use');
      if (sources.has('default')) return compileNamed('default');
      throw new ChatfmtError('TEMPLATE_SOURCE', `${name}: several chat templates (${names.join(', ')}) and none is "default"; choose one with --template-name`);
    },
  };
}

function namedTemplatesOf(config: Config, label: string): Map<string, string> {
  const value = config.chat_template;
  const named = new Map<string, string>();
  if (typeof value === 'string') return named.set('default', value);
  if (Array.isArray(value)) {
    for (const entry of value) {
      if (isPlainObject(entry) && typeof entry.name === 'string' && typeof entry.template === 'string') named.set(entry.name, entry.template);
    }
  } else if (isPlainObject(value)) {
    for (const [key, text] of Object.entries(value)) if (typeof text === 'string') named.set(key, text);
  }
  if (named.size > 0) return named;
  throw new ChatfmtError('TEMPLATE_SOURCE', `${label}: no usable "chat_template" (expected a string or a list of {name, template})`);
}
