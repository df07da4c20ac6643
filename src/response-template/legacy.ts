import { ChatfmtError } from '../errors.js';
import { containsNamed, literalAlternatives, literalOf, parseRegex, refusedLiterals, RegexShapeError, toSource, type RegexNode } from './legacy-regex.js';

/**
 * The legacy `response_schema` (transformers 5.0–5.12: JSON Schema + `x-regex`) converted to a response template,
 * which chatfmt then runs like any other. Supported: a top-level `x-regex` that is a sequence of
 *   - an optional group `OPEN … (?P<field>…) … CLOSE` → a field opened by OPEN and closed by CLOSE;
 *   - `(?P<field>…)` of an array property with `x-regex-iterator` `OPEN(…)CLOSE` → a repeating field;
 *   - one other `(?P<field>…)` → the implicit field, closed by the literals the pattern stops it at;
 * with items parsed by `x-parser` `json` (optionally a `function` object whose own `x-regex` captures `name` and
 * `arguments`) or `gemma4-tool-call`, and the JMESPath transform `{type: 'function', function: @}`. Anything else is
 * refused with RESPONSE_SCHEMA_UNSUPPORTED naming the construct. Differences from running the schema (chatfmt converts,
 * it does not run legacy schemas): text values are stripped (legacy kept the regex's exact capture); the implicit field
 * collects every piece of text outside the other fields, joined (the legacy regex read one stretch, so Gemma 4 E2B's
 * schema, whose content comes after the calls, read calls written after text as content; the template reads them as
 * calls); the template has no assistant-header anchor (legacy schemas took no prefix), so a prefix is used whole.
 */
export function responseTemplateFromSchema(schema: Record<string, unknown>): Record<string, unknown> {
  try {
    return convert(schema);
  } catch (error) {
    if (error instanceof RegexShapeError || error instanceof Unsupported) {
      throw new ChatfmtError('RESPONSE_SCHEMA_UNSUPPORTED', `response_schema cannot be converted to a response template: ${error.message}`);
    }
    throw error;
  }
}

class Unsupported extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function convert(schema: Json): Json {
  if (typeof schema['x-regex'] !== 'string') throw new Unsupported('no top-level "x-regex" (only regex-structured schemas are supported)');
  const properties = isObject(schema.properties) ? schema.properties : {};
  const top = parseRegex(schema['x-regex']);
  if (top.length !== 1) throw new Unsupported('the top-level x-regex is an alternation');
  const defaults: Json = {};
  for (const [key, value] of Object.entries(properties)) if (isObject(value) && 'const' in value) defaults[key] = value.const;
  const fields: Record<string, Json> = {};
  const opens: string[] = [];
  let implicit: { name: string; node: RegexNode; index: number } | undefined;
  const sequence = top[0]!;
  sequence.forEach((element, index) => {
    const names = Object.keys(properties).filter((name) => containsNamed(element, name));
    if (names.length === 0) return;
    if (names.length > 1) throw new Unsupported(`one group holds several fields (${names.join(', ')})`);
    const name = names[0]!;
    const property = properties[name] as Json;
    const group = unquantified(element);
    if (group.t === 'group' && group.kind === 'named') {
      if (typeof property['x-regex-iterator'] === 'string') {
        const { field, open } = iteratorField(property);
        fields[name] = field;
        opens.push(open);
      } else {
        if (implicit) throw new Unsupported(`two fields without delimiters (${implicit.name}, ${name})`);
        implicit = { name, node: group, index };
        fields[name] = {};
      }
      return;
    }
    const field = delimitedField(group, name, property);
    fields[name] = field;
    opens.push(...literalOpens(field));
  });
  if (Object.keys(fields).length === 0) throw new Unsupported('the x-regex captures no property');
  if (implicit) {
    // Where the implicit field stops: what its own lookaheads refuse and what the pattern expects after it, except the
    // other fields' opens (those close it anyway).
    const stops: string[] = [];
    refusedLiterals(implicit.node, stops);
    for (const later of sequence.slice(implicit.index + 1)) {
      if (!Object.keys(properties).some((name) => containsNamed(later, name))) literalAlternatives(later, stops);
    }
    const closes = [...new Set(stops)].filter((text) => !opens.some((open) => open.length > 0 && (open.startsWith(text) || text.startsWith(open))));
    // Pieces joined: a newline after a call opens a new region, which would otherwise overwrite the text before it.
    fields[implicit.name] = { ...(closes.length > 0 ? { close: closes } : {}), ...textParser(properties[implicit.name] as Json), repeats: true, join: '' };
  }
  // Legacy schemas took no prefix, so there is no assistant header to anchor on: a prefix, if given, is used whole.
  return { ...(Object.keys(defaults).length > 0 ? { defaults } : {}), start_anchor_pattern: '\\A', fields: ordered(fields) };
}

/** Explicit fields keep the schema's order; the implicit one goes last (transformers scans opens in field order). */
function ordered(fields: Record<string, Json>): Record<string, Json> {
  const entries = Object.entries(fields);
  return Object.fromEntries([...entries.filter(([, f]) => 'open' in f || 'open_pattern' in f), ...entries.filter(([, f]) => !('open' in f || 'open_pattern' in f))]);
}

function unquantified(node: RegexNode): RegexNode {
  if (node.t !== 'quant') return node;
  if (node.q !== '?') throw new Unsupported(`a field group repeated with "${node.q}"`);
  return node.node;
}

function literalOpens(field: Json): string[] {
  const open = field.open;
  return typeof open === 'string' ? [open] : [];
}

/** The literal characters a pattern starts with. */
function literalPrefix(nodes: readonly RegexNode[]): string {
  let text = '';
  for (const node of nodes) {
    if (node.t !== 'char') break;
    text += node.text;
  }
  return text;
}

/** `(?:OPEN (…(?P<name>…)…) CLOSE)?`: the parts around the child holding the field are its delimiters. */
function delimitedField(group: RegexNode, name: string, property: Json): Json {
  if (group.t !== 'group' || group.alts.length !== 1) throw new Unsupported(`the group around "${name}" is not a plain sequence`);
  const parts = group.alts[0]!;
  const at = parts.findIndex((part) => containsNamed(part, name));
  const before = trimOptionalNewline(parts.slice(0, at));
  const after = parts.slice(at + 1);
  if (before.length === 0 || after.length === 0) throw new Unsupported(`"${name}" has no literal open and close around it`);
  return { ...delimiter('open', before), ...delimiter('close', after), ...textParser(property) };
}

/** A text open's optional trailing newline only feeds whitespace the text parser strips; as a tail it would stream badly. */
function trimOptionalNewline(nodes: RegexNode[]): RegexNode[] {
  const last = nodes[nodes.length - 1];
  return last?.t === 'quant' && last.q === '?' && last.node.t === 'char' && last.node.text === '\n' ? nodes.slice(0, -1) : nodes;
}

function delimiter(kind: 'open' | 'close', nodes: RegexNode[]): Json {
  const text = literalOf(nodes);
  return text !== undefined ? { [kind]: text } : { [`${kind}_pattern`]: toSource(nodes) };
}

function textParser(property: Json | undefined): Json {
  if (property && property.type !== undefined && property.type !== 'string') {
    throw new Unsupported(`a field of type ${JSON.stringify(property.type)} without x-regex-iterator`);
  }
  return { content: 'text' };
}

/** An array property read by `x-regex-iterator` `OPEN(…)CLOSE`: a repeating field whose items are parsed by `items`. */
function iteratorField(property: Json): { field: Json; open: string } {
  const top = parseRegex(property['x-regex-iterator'] as string);
  if (top.length !== 1) throw new Unsupported('an x-regex-iterator that is an alternation');
  const parts = top[0]!;
  const at = parts.findIndex((part) => part.t === 'group' && part.kind === 'capture');
  if (at < 0) throw new Unsupported('an x-regex-iterator without a capturing group');
  const open = parts.slice(0, at);
  const close = parts.slice(at + 1);
  if (literalPrefix(open).length === 0) throw new Unsupported('an x-regex-iterator that does not start with a literal open');
  const item = itemParser(isObject(property.items) ? property.items : {});
  const openPattern = toSource(open) + (item.headerPattern ?? '');
  const field: Json = item.headerPattern ? { open_pattern: openPattern } : delimiter('open', open);
  return { field: { ...field, ...delimiter('close', close), repeats: true, ...item.field }, open: literalPrefix(open) };
}

/** What parses one item: its `x-parser`, or a `function` object whose x-regex captures `name` then `arguments`. */
function itemParser(items: Json): { field: Json; headerPattern?: string } {
  if (items['x-parser'] !== undefined) {
    const field = parserField(items);
    const transform = jmesTransform(isObject(items['x-parser-args']) ? items['x-parser-args'].transform : undefined);
    return { field: { ...field, ...(transform !== undefined ? { transform } : {}) } };
  }
  const properties = isObject(items.properties) ? items.properties : {};
  const fn = properties.function;
  if (isObject(fn) && typeof fn['x-regex'] === 'string') {
    const top = parseRegex(fn['x-regex']);
    const parts = top.length === 1 ? top[0]! : [];
    const at = parts.findIndex((part) => containsNamed(part, 'arguments'));
    const argsGroup = parts[at];
    if (at < 0 || at !== parts.length - 1 || !argsGroup || argsGroup.t !== 'group') throw new Unsupported('a function x-regex that does not end with (?P<arguments>…)');
    const fnProperties = isObject(fn.properties) ? fn.properties : {};
    const args = isObject(fnProperties.arguments) ? fnProperties.arguments : {};
    const nameNode = parts.find((part) => containsNamed(part, 'name'));
    if (!nameNode) throw new Unsupported('a function x-regex without (?P<name>…)');
    return {
      headerPattern: toSource(parts.slice(0, at)),
      field: { ...parserField(args), transform: { type: 'function', function: { name: '{name}', arguments: '{content}' } } },
    };
  }
  throw new Unsupported('array items without x-parser or a function x-regex');
}

function parserField(schema: Json): Json {
  const parser = schema['x-parser'];
  const args = isObject(schema['x-parser-args']) ? schema['x-parser-args'] : {};
  if (parser === 'json') return { content: 'json', ...(args.allow_non_json === true ? { content_args: { allow_non_json: true } } : {}) };
  // Gemma 4's call syntax: JSON with bare keys and strings between <|"|> marks (what transformers' serve template for
  // Gemma 4 reads it with).
  if (parser === 'gemma4-tool-call') return { content: 'json', content_args: { unquoted_keys: true, string_delims: [['<|"|>', '<|"|>']] } };
  throw new Unsupported(`x-parser ${JSON.stringify(parser)}`);
}

/** The JMESPath transforms legacy schemas use: a multiselect hash of string literals and `@`. */
function jmesTransform(expression: unknown): unknown {
  if (expression === undefined) return undefined;
  if (typeof expression !== 'string') throw new Unsupported('a non-string x-parser-args transform');
  const body = expression.trim();
  if (!body.startsWith('{') || !body.endsWith('}')) throw new Unsupported(`the JMESPath transform ${JSON.stringify(expression)}`);
  const out: Json = {};
  for (const pair of body.slice(1, -1).split(',')) {
    const kv = /^\s*(\w+)\s*:\s*(?:'([^']*)'|(@))\s*$/.exec(pair);
    if (!kv) throw new Unsupported(`the JMESPath transform ${JSON.stringify(expression)}`);
    out[kv[1]!] = kv[3] ? '{content}' : kv[2]!;
  }
  return out;
}
