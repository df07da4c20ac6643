import { CONTENT_PARSERS, isContentParser, type ContentParserName } from './content.js';
import { ResponseTemplateError } from './errors.js';
import { isDict, pyRepr, pyTruthy, pyTypeName } from './python.js';
import { PyRegex, RegexSyntaxError, escapeLiteral } from './regex/index.js';
import { findInterpolation } from './transform.js';
import { clipForMessage } from '../util/utf16.js';

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

  /** Checks in transformers' order (shape, then each field, then the implicit field, then the anchor). */
  constructor(readonly source: ResponseTemplateJson) {
    const fail = (message: string): never => { throw new ResponseTemplateError('RESPONSE_TEMPLATE_INVALID', 'ValueError', 'load', message); };
    const version = source['version'] ?? 1;
    if (version !== 1 && version !== true) fail(`Unsupported response_template version: ${JSON.stringify(version)} (only 1 exists)`);
    const unknown = Object.keys(source).filter((k) => !TOP_KEYS.has(k));
    if (unknown.length > 0) fail(`Unknown keys in response_template: ${pyList(unknown)}`);
    const defaults = source['defaults'] ?? {};
    if (!isDict(defaults)) fail('response_template.defaults must be a dict');
    this.defaults = defaults as Record<string, unknown>;
    const fields = source['fields'];
    if (!isDict(fields) || Object.keys(fields).length === 0) fail('response_template.fields must be a non-empty dict');
    this.fields = Object.entries(fields as Record<string, unknown>).map(([name, spec]) => field(name, spec, fail));
    const implicit = this.fields.filter((f) => !f.open);
    if (implicit.length > 1) {
      fail(`At most one field may omit 'open'/'open_pattern' (that field becomes the implicit field that takes leftover text). Found: ${implicit.map((f) => f.name).join(', ')}`);
    }
    this.implicit = implicit[0] ?? null;
    const anchor = pick(source, 'start_anchor', 'start_anchor_pattern', 'response_template', fail);
    this.anchor = anchor ? anchor.re : fail("response_template must define 'start_anchor' or 'start_anchor_pattern'");
  }
}

type Fail = (message: string) => never;

function pyList(items: string[]): string {
  return `[${[...items].sort().map(pyRepr).join(', ')}]`;
}

/** The literal or pattern form of one delimiter; a key that is present counts even when null (as in Python). */
function pick(spec: Record<string, unknown>, literal: string, pattern: string, scope: string, fail: Fail): Delimiter | undefined {
  const hasLiteral = Object.hasOwn(spec, literal), hasPattern = Object.hasOwn(spec, pattern);
  if (hasLiteral && hasPattern) fail(`${scope}: cannot specify both '${literal}' and '${pattern}'`);
  if (hasLiteral) return literals(spec[literal], `${scope}: '${literal}'`, fail);
  if (hasPattern) {
    const source = spec[pattern];
    if (typeof source !== 'string') return fail(`${scope}: ${pattern} must be a str, got ${pyTypeName(source)}`);
    return { re: compile(source, `${scope}: invalid ${pattern} regex`, fail), canGrow: true };
  }
  return undefined;
}

function field(name: string, spec: unknown, fail: Fail): FieldSpec {
  const scope = `Field ${pyRepr(name)}`;
  if (!isDict(spec)) return fail(`${scope} must be a dict`);
  const unknown = Object.keys(spec).filter((k) => !FIELD_KEYS.has(k));
  if (unknown.length > 0) fail(`${scope}: unknown keys ${pyList(unknown)}`);
  const content = Object.hasOwn(spec, 'content') ? spec['content'] : 'text';
  if (!isContentParser(content)) fail(`${scope}: unknown content parser ${pyRepr(String(content))}. Available: ${pyList([...CONTENT_PARSERS])}`);
  const open = pick(spec, 'open', 'open_pattern', scope, fail);
  const close = pick(spec, 'close', 'close_pattern', scope, fail);
  const repeats = pyTruthy(spec['repeats'] ?? false);
  const join = spec['join'] ?? undefined;
  if (join !== undefined && typeof join !== 'string') fail(`${scope}: 'join' must be a string, got ${pyTypeName(join)}`);
  if (join !== undefined && !repeats) fail(`${scope}: 'join' requires 'repeats': true`);
  const transform = spec['transform'] ?? undefined;
  const transformEach = spec['transform_each'] ?? false;
  if (typeof transformEach !== 'boolean') fail(`${scope}: transform_each must be a bool, got ${pyTypeName(transformEach)}`);
  if (transformEach && transform === undefined) fail(`${scope}: transform_each is set but no transform was provided`);
  if (transform !== undefined) {
    const mixed = findInterpolation(transform);
    if (mixed !== null) fail(`${scope}: transform string ${pyRepr(mixed)} mixes a {placeholder} with literal text; string interpolation is not supported (use a whole-string placeholder such as "{content}", or a plain literal)`);
  } else {
    const names = [...(open?.re.names.keys() ?? []), ...(close?.re.names.keys() ?? [])];
    if (names.length > 0) fail(`${scope}: open_pattern/close_pattern declares named group(s) ${pyList([...new Set(names)])}, but the field has no 'transform' to use them`);
  }
  // transformers loops forever on such a template; refuse it instead.
  if (open?.re.canBeEmpty && close?.re.canBeEmpty) fail(`${scope}: open and close can both match the empty string, so the parser would never advance`);
  return {
    name, content: content as ContentParserName, contentArgs: spec['content_args'], repeats,
    optional: pyTruthy(spec['optional'] ?? true), transformEach: transformEach as boolean,
    ...(open ? { open } : {}), ...(close ? { close } : {}),
    ...(typeof join === 'string' ? { join } : {}), ...(transform !== undefined ? { transform } : {}),
  };
}

/** A literal or a list of them: escaped alternation, longest first, so at one position the longest wins. */
function literals(value: unknown, scope: string, fail: Fail): Delimiter {
  let list: string[];
  if (typeof value === 'string') list = [value];
  else if (Array.isArray(value)) {
    if (value.length === 0) return fail(`${scope} list must contain at least one literal`);
    // An index loop, not every(): a hole in a JS array is Python's None here, not an element to skip.
    for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return fail(`${scope} list must contain only strings`);
    list = [...new Set(value as string[])];
  } else return fail(`${scope} must be a string or list of strings, got ${pyTypeName(value)}`);
  if (list.includes('')) fail(`${scope} literals cannot be empty strings`);
  const sorted = [...list].sort((a, b) => b.length - a.length);
  // Whether one literal begins another: in code-unit order a literal that begins any other begins the next one (a
  // sort, not a test of every pair, which took minutes on a list of 100,000 literals).
  const ordered = [...list].sort();
  let canExtend = false;
  for (let i = 0; i + 1 < ordered.length && !canExtend; i++) canExtend = ordered[i + 1]!.startsWith(ordered[i]!);
  return { re: compile(sorted.map(escapeLiteral).join('|'), `${scope} could not be compiled`, fail), canGrow: canExtend };
}

/** How much of a pattern that does not compile its error quotes: a template's pattern may be megabytes long. */
const QUOTED_PATTERN = 200;

function compile(source: string, context: string, fail: Fail): PyRegex {
  try {
    return PyRegex.compile(source);
  } catch (e) {
    if (e instanceof RegexSyntaxError) return fail(`${context}: ${e.message} (pattern ${clipForMessage(source, QUOTED_PATTERN, pyRepr)})`);
    throw e;
  }
}

/** Validates like transformers' load step (ValueError) and compiles every delimiter. */
export function compileResponseTemplate(template: unknown): CompiledResponseTemplate {
  if (template instanceof CompiledTemplate) return template;
  if (!isDict(template)) {
    throw new ResponseTemplateError('RESPONSE_TEMPLATE_INVALID', 'ValueError', 'load', `response_template must be a dict, got ${pyTypeName(template)}`);
  }
  return new CompiledTemplate(template);
}
