import type { Grammar } from '../parse/engine/grammar.js';
import { withTags } from '../parse/engine/grammar.js';
import { nameUntil } from '../parse/engine/headers.js';
import { deepseekV31Grammar } from '../parse/grammars/deepseek-v3.1.js';
import { glm45Grammar } from '../parse/grammars/glm-4.5.js';
import { callObject } from '../parse/engine/codecs/hermes-json.js';
import { jsonList } from '../parse/engine/codecs/json-list.js';
import { hermesGrammar } from '../parse/grammars/hermes-json.js';
import { qwen3CoderGrammar } from '../parse/grammars/qwen3-coder.js';
import { xmlParameterArgs } from '../parse/grammars/xml-parameter.js';

/** A probe call as the derivation renders it. */
export interface ProbeCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Where a candidate codec's payload starts and ends inside one call's rendered text, or undefined. */
type Located = { start: number; end: number; separator?: string; nameKey?: string };
type Locate = (text: string, call: ProbeCall) => Located | undefined;

interface Shape {
  codec: string;
  locate: Locate;
  build(markers: { open: string; close: string; separator?: string; nameKey?: string }): Grammar;
}

/**
 * The argument codecs a derived grammar may use, each as a registered family's grammar with other markers: a JSON
 * list of call objects (Nemotron's `<TOOLCALL>[…]`), JSON objects naming the call (Hermes), NAME + separator + JSON
 * arguments (DeepSeek; Functionary's `<function=N>{json}`), `<function=N><parameter=K>` (Qwen3-Coder),
 * `N<arg_key>K</arg_key><arg_value>V</arg_value>` (GLM).
 */
export const shapes: Shape[] = [
  {
    // Before the single object: `<TOOLCALL>[{…}]</TOOLCALL>` (Nemotron) would otherwise be read as one object per tag.
    codec: 'json-list-of-calls',
    locate(text, call) {
      const object = callObjectAround(text, call);
      if (!object) return undefined;
      const open = text.slice(0, object.start).trimEnd();
      const closeAt = text.length - text.slice(object.end).trimStart().length;
      if (!open.endsWith('[') || text[closeAt] !== ']') return undefined;
      return { start: open.length - 1, end: closeAt + 1, nameKey: object.nameKey };
    },
    build: ({ open, close, nameKey }) => withTags(hermesGrammar, { id: 'derived', call: { open: [open], close: [close] }, args: jsonList(callObject({ nameKey })) }),
  },
  {
    codec: 'json-object-with-name',
    locate: (text, call) => callObjectAround(text, call),
    build: ({ open, close, nameKey }) => withTags(hermesGrammar, { id: 'derived', call: { open: [open], close: [close] }, args: callObject({ nameKey }) }),
  },
  {
    codec: 'function-tag-parameters',
    locate(text, call) {
      const at = text.indexOf(`<function=${call.name}>`);
      const end = text.indexOf('</function>', at);
      return at < 0 || end < 0 ? undefined : { start: at, end: end + '</function>'.length };
    },
    build: ({ open, close }) => withTags(qwen3CoderGrammar, { id: 'derived', call: { open: [open], close: [close] }, args: xmlParameterArgs(close) }),
  },
  {
    codec: 'arg-key-value',
    locate(text, call) {
      const at = text.indexOf(call.name);
      const end = text.lastIndexOf('</arg_value>');
      return at < 0 || end < at ? undefined : { start: at, end: end + '</arg_value>'.length };
    },
    build: ({ open, close }) =>
      withTags(glm45Grammar, {
        id: 'derived',
        call: { open: [open], close: [close] },
        header: nameUntil({ delimiters: ['\n', '<arg_key>', close], keep: ['<arg_key>', close] }),
      }),
  },
  {
    codec: 'name-then-json-arguments',
    locate(text, call) {
      const at = text.indexOf(call.name);
      const object = at < 0 ? undefined : jsonObjectAt(text, text.indexOf('{', at + call.name.length));
      if (!object) return undefined;
      const separator = text.slice(at + call.name.length, object.start).trim();
      return separator ? { start: at, end: object.end, separator } : undefined;
    },
    build: ({ open, close, separator }) =>
      withTags(deepseekV31Grammar, { id: 'derived', section: undefined, call: { open: [open], close: [close] }, header: nameUntil({ delimiters: [separator!] }), defaultPrefix: '' }),
  },
];

/**
 * Finds how a template of unknown family writes tool calls and reasoning, by rendering probe conversations and
 * trying the engine's codecs with the markers found around the probe calls. A candidate is accepted only when it
 * parses every probe completion back to the probe message. Returns the reasons when nothing fits.
 */

/**
 * The JSON object that names the probe call, and the key naming it: `name` (Hermes, Nemotron) or another, such as
 * Command-R's `tool_name`.
 */
function callObjectAround(text: string, call: ProbeCall): { start: number; end: number; nameKey: string } | undefined {
  const object = jsonObjectAround(text, text.indexOf(`"${call.name}"`));
  if (!object) return undefined;
  const parsed = JSON.parse(text.slice(object.start, object.end)) as Record<string, unknown>;
  const nameKey = Object.keys(parsed).find((key) => parsed[key] === call.name);
  return nameKey === undefined ? undefined : { ...object, nameKey };
}

/** The JSON object that contains position `at` (searching back for its `{`), if it parses. */
function jsonObjectAround(text: string, at: number): { start: number; end: number } | undefined {
  if (at < 0) return undefined;
  for (let start = text.lastIndexOf('{', at); start >= 0 && at - start <= 64; start = text.lastIndexOf('{', start - 1)) {
    const object = jsonObjectAt(text, start);
    if (object && object.end > at) return object;
  }
  return undefined;
}

/** The balanced JSON object starting at `start`, when it parses. Linear: one pass with string awareness. */
function jsonObjectAt(text: string, start: number): { start: number; end: number } | undefined {
  if (start < 0 || text[start] !== '{') return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      try {
        JSON.parse(text.slice(start, i + 1));
        return { start, end: i + 1 };
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
