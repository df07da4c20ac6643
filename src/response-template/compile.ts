import { isContentParser, type ContentParserName } from './content.js';
import { ResponseTemplateError } from './errors.js';
import { isDict, pyRepr, pyTruthy, pyTypeName } from './python.js';
import { PyRegex, RegexSyntaxError, escapeLiteral } from './regex/index.js';
import { findInterpolation } from './transform.js';

export type ResponseTemplateJson = Record<string, unknown>;

export interface CompiledResponseTemplate {
  readonly source: ResponseTemplateJson;
}

export interface Delimiter {
  readonly re: PyRegex;
  /** A complete match ending at the buffer end may still grow into a longer one: hold it until more text comes. */
  readonly canGrow: boolean;
}

export interface FieldSpec {
  readonly name: string;
  readonly open?: Delimiter;
  readonly close?: Delimiter;
  readonly content: ContentParserName;
  readonly contentArgs: unknown;
  readonly repeats: boolean;
  readonly join?: string;
  readonly optional: boolean;
  readonly transform?: unknown;
  readonly transformEach: boolean;
}

const TOP_KEYS = new Set(['version', 'defaults', 'fields', 'start_anchor', 'start_anchor_pattern']);
const FIELD_KEYS = new Set(['open', 'open_pattern', 'close', 'close_pattern', 'content', 'content_args', 'repeats', 'join', 'optional', 'transform', 'transform_each']);

export class CompiledTemplate implements CompiledResponseTemplate {
  readonly fields: readonly FieldSpec[];
  readonly implicit: FieldSpec | null;
  readonly anchor: PyRegex;
  readonly defaults: Record<string, unknown>;
  /** content_args patterns (tag_pattern, string_delims), compiled once per template. */
  readonly patterns = new Map<string, PyRegex>();

  constructor(readonly source: ResponseTemplateJson) {
    const fail = (message: string): never => { throw new ResponseTemplateError('RESPONSE_TEMPLATE_INVALID', 'ValueError', 'load', message); };
    const unknown = Object.keys(source).filter((k) => !TOP_KEYS.has(k));
    if (unknown.length > 0) fail(`response template: unknown top-level key(s) ${unknown.map(pyRepr).join(', ')}`);
    const version = source['version'] ?? 1;
    if (version !== 1) fail(`response template: unsupported version ${JSON.stringify(version)} (only 1 is supported)`);
    const defaults = source['defaults'] ?? {};
    if (!isDict(defaults)) fail(`response template: 'defaults' must be a dict, not ${pyTypeName(defaults)}`);
    this.defaults = defaults as Record<string, unknown>;
    const fields = source['fields'];
    if (!isDict(fields) || Object.keys(fields).length === 0) fail("response template: 'fields' must be a non-empty dict");
    const hasAnchor = source['start_anchor'] !== undefined, hasPattern = source['start_anchor_pattern'] !== undefined;
    if (hasAnchor === hasPattern) fail('response template: exactly one of start_anchor or start_anchor_pattern is required');
    this.anchor = hasAnchor
      ? delimiter(source['start_anchor'], false, 'start_anchor', fail).re
      : delimiter(source['start_anchor_pattern'], true, 'start_anchor_pattern', fail).re;
    this.fields = Object.entries(fields as Record<string, unknown>).map(([name, spec]) => field(name, spec, fail));
    const implicit = this.fields.filter((f) => !f.open);
    if (implicit.length > 1) fail(`response template: at most one field may have no open delimiter (implicit field); found ${implicit.map((f) => pyRepr(f.name)).join(', ')}`);
    this.implicit = implicit[0] ?? null;
  }
}

type Fail = (message: string) => never;

function field(name: string, spec: unknown, fail: Fail): FieldSpec {
  const where = `field ${pyRepr(name)}`;
  if (!isDict(spec)) return fail(`${where}: spec must be a dict, not ${pyTypeName(spec)}`);
  const unknown = Object.keys(spec).filter((k) => !FIELD_KEYS.has(k));
  if (unknown.length > 0) fail(`${where}: unknown key(s) ${unknown.map(pyRepr).join(', ')}`);
  const pick = (literal: string, pattern: string): Delimiter | undefined => {
    const hasLiteral = spec[literal] !== undefined && spec[literal] !== null;
    const hasPattern = spec[pattern] !== undefined && spec[pattern] !== null;
    if (hasLiteral && hasPattern) fail(`${where}: give either '${literal}' or '${pattern}', not both`);
    if (hasLiteral) return delimiter(spec[literal], false, `${where} '${literal}'`, fail);
    if (hasPattern) return delimiter(spec[pattern], true, `${where} '${pattern}'`, fail);
    return undefined;
  };
  const open = pick('open', 'open_pattern');
  const close = pick('close', 'close_pattern');
  const content = spec['content'] ?? 'text';
  if (!isContentParser(content)) fail(`${where}: unknown content parser ${pyRepr(String(content))}`);
  const repeats = pyTruthy(spec['repeats'] ?? false);
  const join = spec['join'];
  if (join !== undefined && join !== null) {
    if (typeof join !== 'string') fail(`${where}: 'join' must be a string, not ${pyTypeName(join)}`);
    if (!repeats) fail(`${where}: 'join' requires 'repeats': true`);
  }
  const transform = spec['transform'] ?? undefined;
  const transformEach = pyTruthy(spec['transform_each'] ?? false);
  if (transformEach && transform === undefined) fail(`${where}: 'transform_each' requires a 'transform'`);
  if (transform !== undefined) {
    const mixed = findInterpolation(transform);
    if (mixed !== null) fail(`${where}: transform string ${pyRepr(mixed)} mixes a {placeholder} with literal text; string interpolation is not supported (a placeholder must be the whole string)`);
  } else {
    for (const d of [open, close]) {
      if (d && d.re.names.size > 0) fail(`${where}: named groups in its patterns (${[...d.re.names.keys()].join(', ')}) need a 'transform' to use them`);
    }
  }
  // transformers loops forever on such a template; refuse it instead.
  if (open?.re.canBeEmpty && close?.re.canBeEmpty) fail(`${where}: open and close can both match the empty string (the executor would never advance)`);
  return {
    name, content: content as ContentParserName, contentArgs: spec['content_args'], repeats,
    optional: pyTruthy(spec['optional'] ?? true), transformEach,
    ...(open ? { open } : {}), ...(close ? { close } : {}),
    ...(typeof join === 'string' ? { join } : {}), ...(transform !== undefined ? { transform } : {}),
  };
}

/** A literal (str or list, compiled to an escaped alternation, longest first) or a pattern. */
function delimiter(value: unknown, isPattern: boolean, where: string, fail: Fail): Delimiter {
  if (isPattern) {
    if (typeof value !== 'string') return fail(`${where} must be a str, not ${pyTypeName(value)}`);
    return { re: compile(value, where, fail), canGrow: true };
  }
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) return fail(`${where} must be a non-empty string or a non-empty list of non-empty strings`);
  for (const item of list) {
    if (typeof item !== 'string' || item === '') fail(`${where} must be a non-empty string or a non-empty list of non-empty strings (got ${JSON.stringify(item)})`);
  }
  const literals = [...new Set(list as string[])];
  const sorted = [...literals].sort((a, b) => b.length - a.length);
  const canExtend = literals.some((a) => literals.some((b) => b !== a && b.startsWith(a)));
  return { re: compile(sorted.map(escapeLiteral).join('|'), where, fail), canGrow: canExtend };
}

function compile(source: string, where: string, fail: Fail): PyRegex {
  try {
    return new PyRegex(source);
  } catch (e) {
    if (e instanceof RegexSyntaxError) return fail(`${where}: invalid pattern ${pyRepr(source)}: ${e.message}`);
    throw e;
  }
}

/** Validates like transformers' load step (ValueError) and compiles every delimiter. */
export function compileResponseTemplate(template: unknown): CompiledResponseTemplate {
  if (template instanceof CompiledTemplate) return template;
  if (!isDict(template)) {
    throw new ResponseTemplateError('RESPONSE_TEMPLATE_INVALID', 'ValueError', 'load', `response template must be a dict, not ${pyTypeName(template)}`);
  }
  return new CompiledTemplate(template);
}
