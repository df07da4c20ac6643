import { RegionError } from './errors.js';
import { JsonDecodeError, pyJsonLoads, setKey } from './pyjson.js';
import { isDict, pyFloat, pyInt, pyRepr, pyStrip, pyTruthy, pyTypeName } from './python.js';
import { PyRegex, RegexSyntaxError, escapeLiteral, type RegexStats } from './regex/index.js';
import { clipForMessage } from '../util/utf16.js';

export const CONTENT_PARSERS = ['text', 'int', 'float', 'bool', 'json', 'xml-inline', 'kv-lines'] as const;
export type ContentParserName = (typeof CONTENT_PARSERS)[number];

/** Structured parsers stream raw body chunks (`dirty`): their value only exists once the region closes. */
export function isDirty(name: ContentParserName): boolean {
  return name === 'json' || name === 'xml-inline' || name === 'kv-lines';
}

export function isContentParser(name: unknown): name is ContentParserName {
  return typeof name === 'string' && (CONTENT_PARSERS as readonly string[]).includes(name);
}

type Args = Record<string, unknown>;
export interface ParseEnv { stats: RegexStats; patterns: Map<string, PyRegex> }

/** Runs a content parser with its `content_args` (Python keyword arguments; Python truthiness for flags). */
export function runContentParser(name: unknown, body: string, args: unknown, env: ParseEnv): unknown {
  if (!isContentParser(name)) throw new RegionError('ValueError', `unknown content parser ${pyRepr(String(name))}`);
  if (args !== undefined && args !== null && !isDict(args)) {
    throw new RegionError('TypeError', `content_args must be a mapping, not ${pyTypeName(args)}`);
  }
  const a: Args = args ?? {};
  switch (name) {
    case 'text': return textOf(body, a);
    case 'int': return pyInt(textOf(body, a));
    case 'float': return pyFloat(textOf(body, a));
    case 'bool': { const t = textOf(body, a).toLowerCase(); return t === 'true' || t === '1'; }
    case 'json': return parseJson(body, a, env);
    case 'xml-inline': return parseXmlInline(body, a, env);
    case 'kv-lines': return parseKvLines(body, a, env);
  }
}

/** The `text` parser, which the scalar parsers read through (so `strip: false` reaches them too). */
function textOf(body: string, args: Args): string {
  return flag(args, 'strip', true) ? pyStrip(body) : body;
}

function flag(args: Args, key: string, fallback: boolean): boolean {
  return key in args ? pyTruthy(args[key]) : fallback;
}

function stringArg(args: Args, key: string, fallback: string): string {
  const value = args[key] ?? fallback;
  if (typeof value !== 'string') throw new RegionError('TypeError', `content_args '${key}' must be a str, not ${pyTypeName(value)}`);
  return value;
}

export function compilePattern(source: string, env: ParseEnv): PyRegex {
  let re = env.patterns.get(source);
  if (!re) {
    try { re = PyRegex.compile(source); } catch (e) {
      if (e instanceof RegexSyntaxError) throw new RegionError('ValueError', `invalid pattern ${pyRepr(source)}: ${e.message}`);
      throw e;
    }
    env.patterns.set(source, re);
  }
  return re;
}

const SENTINEL = /\x01(\d+)\x02/g;
const UNQUOTED_KEY = /(?<=[{,])([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\u200c\u200d]+):/gu;

function parseJson(body: string, args: Args, env: ParseEnv): unknown {
  let text = body;
  const spans: string[] = [];
  const delims = args['string_delims'];
  if (delims !== undefined && delims !== null && pyTruthy(delims)) {
    if (text.includes('\x01') || text.includes('\x02')) throw new RegionError('ValueError', 'json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely.');
    if (!Array.isArray(delims)) throw new RegionError('TypeError', 'string_delims must be a list of [open, close] pairs');
    for (const pair of delims) {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
        throw new RegionError('TypeError', 'string_delims must be a list of [open, close] string pairs');
      }
      const re = compilePattern(`${escapeLiteral(pair[0])}(.*?)${escapeLiteral(pair[1])}`, env);
      text = substitute(text, re, env, (inner) => `\x01${spans.push(inner) - 1}\x02`);
    }
  }
  if (flag(args, 'unquoted_keys', false)) text = text.replace(UNQUOTED_KEY, '"$1":');
  if (spans.length > 0) text = text.replace(SENTINEL, (_, k: string) => JSON.stringify(spans[Number(k)]));
  try {
    return pyJsonLoads(text);
  } catch (e) {
    if (!(e instanceof JsonDecodeError)) throw e;
    if (flag(args, 'allow_non_json', false)) return textOf(body, args);
    throw new RegionError('ValueError', text === body
      ? `json parser could not parse region as JSON. Content: ${clip(body)} Error: ${e.message}`
      : `json: could not parse after dialect transforms. Original: ${clip(body)} Transformed: ${clip(text)} Error: ${e.message}`);
  }
}

/** Python repr of model text for an error message, cut so the message stays readable. */
function clip(text: string): string {
  return clipForMessage(text, 200, pyRepr);
}

/** `re.sub(pattern, fn, text)` with group 1 handed to `fn`. */
function substitute(text: string, re: PyRegex, env: ParseEnv, fn: (group1: string) => string): string {
  let out = '', last = 0;
  for (const m of re.finditer(text, env.stats)) {
    out += text.slice(last, m.start) + fn(m.groups[1] ?? '');
    last = m.end;
  }
  return out + text.slice(last);
}

function valueParser(args: Args): ((value: string, env: ParseEnv) => unknown) | null {
  const spec = args['value_parser'];
  if (spec === undefined || spec === null) return null;
  if (!isDict(spec)) throw new RegionError('TypeError', `value_parser must be a dict, not ${pyTypeName(spec)}`);
  const name = spec['name'] ?? 'text';
  return (value, env) => runContentParser(name, value, spec['args'] ?? {}, env);
}

function parseXmlInline(body: string, args: Args, env: ParseEnv): Record<string, unknown> {
  const source = args['tag_pattern'];
  if (source === undefined || source === null) throw new RegionError('ValueError', "xml-inline: 'tag_pattern' content_arg is required");
  if (typeof source !== 'string') throw new RegionError('TypeError', `tag_pattern must be a str, not ${pyTypeName(source)}`);
  const re = compilePattern(source, env);
  const keyGroup = re.groupIndex('key');
  const valueGroup = re.groupIndex('value');
  const parse = valueParser(args);
  const merge = flag(args, 'merge_duplicates', false);
  const out: Record<string, unknown> = {};
  for (const m of re.finditer(body, env.stats)) {
    const key = keyGroup === undefined ? undefined : m.groups[keyGroup];
    if (key === undefined) throw new RegionError('ValueError', `xml-inline: tag_pattern must have a named group 'key' (that takes part in every match). Pattern: ${source}`);
    // A value group that did not take part is Python's None; parsers need a str, so they get ''.
    const raw = valueGroup === undefined ? '' : m.groups[valueGroup];
    const value = parse ? parse(raw ?? '', env) : raw ?? null;
    if (merge && Object.hasOwn(out, key)) {
      // As transformers does: a first value that is already a list takes the duplicates in.
      if (!Array.isArray(out[key])) setKey(out, key, [out[key]]);
      (out[key] as unknown[]).push(value);
    } else setKey(out, key, value);
  }
  return out;
}

function parseKvLines(body: string, args: Args, env: ParseEnv): Record<string, unknown> {
  const lineSep = stringArg(args, 'line_sep', '\n');
  const kvSep = stringArg(args, 'kv_sep', ':');
  if (lineSep === '' || kvSep === '') throw new RegionError('ValueError', 'empty separator');
  const strip = flag(args, 'strip', true);
  const parse = valueParser(args);
  const out: Record<string, unknown> = {};
  for (let line of body.split(lineSep)) {
    if (strip) line = pyStrip(line);
    const at = line.indexOf(kvSep);
    if (line === '' || at < 0) continue;
    let key = line.slice(0, at), value = line.slice(at + kvSep.length);
    if (strip) { key = pyStrip(key); value = pyStrip(value); }
    setKey(out, key, parse ? parse(value, env) : value);
  }
  return out;
}
