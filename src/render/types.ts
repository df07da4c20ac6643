import type { Conversation } from '../types.js';
import type { FamilyId } from '../families/info.js';
import type { ArgumentsForm } from '../families/family.js';
import type { CompiledTemplate, RenderLimits } from '../jinja/index.js';

/** Where a template comes from: a family's bundled template, a file, a folder, or inline source. */
export interface TemplateSpec {
  family?: string;
  /** A .jinja file, a tokenizer_config.json, or a model folder (Node only: the core reads no files). */
  template?: string;
  /** For configs with several named templates (`tool_use`, `default`, ...). */
  templateName?: string;
  /** Inline template source (takes precedence over `template`). */
  source?: string;
}

/**
 * A model's template as texts, for runtimes without a file system (browsers, Workers) or files read elsewhere:
 * what transformers reads from a model folder.
 */
export interface TemplateSources {
  /** tokenizer_config.json: its text or the parsed object (chat_template, special tokens, response template). */
  config?: string | Record<string, unknown>;
  /** chat_template.jinja: the default template; wins over the config's. */
  chatTemplate?: string;
  /** additional_chat_templates/<name>.jinja, by name. */
  additionalTemplates?: Record<string, string>;
  /** For configs with several named templates (`tool_use`, `default`, ...). */
  templateName?: string;
  /** How messages name the template (a folder or file path); default "<sources>". */
  name?: string;
  /** How messages name the config; default `name`. */
  configName?: string;
}

export interface LoadedTemplate {
  /** For messages: the family id, file path, or "<inline>". */
  name: string;
  family?: FamilyId;
  /** Special tokens the template sees (bos_token, eos_token, ...), already flattened to strings. */
  specialTokens: Record<string, string>;
  /** Text the assistant turn is pre-filled with after the generation prompt (a family variant's `<think>\n`). */
  prefill?: string;
  /** Named templates when the source had several; `select` picks one per conversation. */
  select(hasTools: boolean): CompiledTemplate;
  /**
   * The model's response template (transformers' `response_template` in tokenizer_config.json), as JSON and not yet
   * validated (a bad one fails when it is used to parse, as in transformers). When the config has only the legacy
   * `response_schema`, the response template converted from it.
   */
  responseTemplate?: Record<string, unknown>;
  /** Which key `responseTemplate` came from. */
  responseTemplateKey?: 'response_template' | 'response_schema';
  /** The legacy `response_schema`, as found. */
  responseSchema?: Record<string, unknown>;
  /**
   * Why the config's response template cannot be used (not a JSON object, or a legacy `response_schema` chatfmt
   * cannot convert); `responseTemplate` is unset then. Rendering is unaffected.
   */
  responseTemplateError?: string;
}

export type ArgsMode = 'auto' | 'keep';

export interface RenderOptions {
  addGenerationPrompt?: boolean;
  /** Cut the text right after the final message's content (prefill), as transformers does. */
  continueFinalMessage?: boolean;
  /** Extra template variables; they override special tokens and conversation keys. */
  variables?: Record<string, unknown>;
  /** `auto` (default) converts arguments / null content to what the template needs; `keep` passes messages through. */
  args?: ArgsMode;
  /** Clock for strftime_now. */
  now?: Date;
  /** Lower the template sandbox's safety limits (README "Safety"); exceeding one is a TEMPLATE_LIMIT error. */
  limits?: Partial<RenderLimits>;
  /**
   * Default true: what a render of this template already made from the same inputs (a macro call, a top-level loop:
   * the same tools, say) is reused; the text is the same either way. false runs every block.
   */
  reuse?: boolean;
}

export type RenderWarningCode = 'ARGS_CONVERTED' | 'NULL_CONTENT_CONVERTED' | 'CALL_IDS_REWRITTEN';
export interface RenderWarning {
  code: RenderWarningCode;
  /** JSON path into the conversation, e.g. `messages[2].tool_calls[0].function.arguments`. */
  path: string;
  message: string;
}

export interface RenderResult {
  text: string;
  /** UTF-16 offsets [start, end) of `{% generation %}` blocks: the assistant's own output. */
  generationSpans: Array<[number, number]>;
  /** What `args: 'auto'` changed to make the template render correctly. */
  warnings: RenderWarning[];
  /** True when the template wrote the date (strftime_now): without a fixed `now`, the text changes from day to day. */
  readsClock: boolean;
}

/** What a template needs, found by probing it (cached per compiled template). */
export interface TemplateNeeds {
  argumentsForm: ArgumentsForm;
  /** True when `content: null` (or no content) crashes the template or prints "None". */
  nullContentNeedsString: boolean;
  /** True when the template takes only 9-character call ids (Mistral): `auto` maps other ids. */
  nineCharCallIds: boolean;
}

export type { Conversation };
