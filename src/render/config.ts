import { ChatfmtError } from '../errors.js';
import { responseTemplateFromSchema } from '../response-template/legacy.js';
import { isPlainObject } from '../util/guards.js';
import type { LoadedTemplate } from './types.js';

/** A tokenizer_config.json, parsed. */
export type Config = Record<string, unknown>;

// transformers passes tokenizer.special_tokens_map: these attributes, when set, plus the additional list.
const SPECIAL_TOKEN_KEYS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

export function parseConfig(text: string, label: string): Config {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ChatfmtError('TEMPLATE_SOURCE', `${label}: not valid JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(value)) throw new ChatfmtError('TEMPLATE_SOURCE', `${label}: expected a JSON object`);
  return value;
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
  if (isPlainObject(value) && typeof value.content === 'string') return value.content;
  return undefined;
}

type ResponseTemplateInfo = Pick<LoadedTemplate, 'responseTemplate' | 'responseTemplateKey' | 'responseSchema' | 'responseTemplateError'>;

/**
 * transformers' order: `response_template`, else the legacy `response_schema` (converted here, since chatfmt runs only
 * response templates). Problems are recorded, not thrown: the chat template still renders.
 */
export function responseTemplateOf(config: Config, label: string): ResponseTemplateInfo {
  const info: ResponseTemplateInfo = {};
  const schema = config.response_schema;
  if (isPlainObject(schema)) info.responseSchema = schema;
  const template = config.response_template;
  if (template !== undefined && template !== null) {
    if (isPlainObject(template)) return { ...info, responseTemplate: template, responseTemplateKey: 'response_template' };
    return { ...info, responseTemplateError: `${label}: "response_template" is not a JSON object` };
  }
  if (schema === undefined || schema === null) return info;
  if (!isPlainObject(schema)) return { ...info, responseTemplateError: `${label}: "response_schema" is not a JSON object` };
  try {
    return { ...info, responseTemplate: responseTemplateFromSchema(schema), responseTemplateKey: 'response_schema' };
  } catch (error) {
    return { ...info, responseTemplateError: `${label}: ${(error as Error).message}` };
  }
}
