import type { Grammar } from '../parse/engine/grammar.js';
import { withTags } from '../parse/engine/grammar.js';
import { nameUntil } from '../parse/engine/headers.js';
import { glm45Grammar } from '../parse/grammars/glm-4.5.js';
import { hermesGrammar } from '../parse/grammars/hermes-json.js';
import { deepseekV31Grammar } from '../parse/grammars/deepseek-v3.1.js';
import { qwen3CoderGrammar } from '../parse/grammars/qwen3-coder.js';
import { xmlParameterArgs } from '../parse/grammars/xml-parameter.js';
import { parse } from '../parse/parse.js';
import { grammarParser, type ParserFamily } from '../parse/registry.js';
import { renderConversation } from '../render/render.js';
import type { LoadedTemplate } from '../render/types.js';
import type { Message, Tool } from '../types.js';
import { backOffMarker, commonPrefixLength } from '../convert/render-prefixes.js';
import { markupSegments, splitsOf } from './markup.js';

/** A call syntax found by rendering probe conversations through a template of unknown family. */
export interface DerivedParser {
  parser: ParserFamily;
  /** Which of the engine's argument codecs the calls use. */
  codec: string;
  /** What the generation prompt pre-fills (`<think>\n`): the parse prefix. */
  prefix: string;
  evidence: string[];
}

const NOW = new Date('2025-01-15T12:00:00Z');
const ANSWER = 'Probe answer 42.';
const THOUGHT = 'Probe thought 17.';
const calls = [
  { name: 'probe_lookup', arguments: { query: 'xyzzy plover', limit: 7 } },
  { name: 'probe_fetch', arguments: { query: 'plugh', limit: 8 } },
];
const tools: Tool[] = calls.map(({ name }) => ({
  type: 'function',
  function: {
    name,
    description: 'A probe tool.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
  },
}));
const ask: Message = { role: 'user', content: 'Probe question?' };

type Expected = { content: string | null; reasoning: string | null; calls: typeof calls };
interface Probe {
  completion: string;
  expected: Expected;
}

/** Where a candidate codec's payload starts and ends inside one call's rendered text, or undefined. */
type Locate = (text: string, call: (typeof calls)[number]) => { start: number; end: number; separator?: string } | undefined;

interface Shape {
  codec: string;
  locate: Locate;
  build(markers: { open: string; close: string; separator?: string }): Grammar;
}

/**
 * The argument codecs a derived grammar may use, each as a registered family's grammar with other markers:
 * JSON objects naming the call (Hermes), NAME + separator + JSON arguments (DeepSeek), `<function=N><parameter=K>`
 * (Qwen3-Coder), `N<arg_key>K</arg_key><arg_value>V</arg_value>` (GLM).
 */
const shapes: Shape[] = [
  {
    codec: 'json-object-with-name',
    locate: (text, call) => jsonObjectAround(text, text.indexOf(`"${call.name}"`)),
    build: ({ open, close }) => withTags(hermesGrammar, { id: 'derived', call: { open: [open], close: [close] } }),
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
/** What a template's model writes for the probe conversations, and what a correct parser returns for each. */
export interface ProbeSet {
  probes: Probe[];
  /** The generation prompt's prefill: what the completion continues from. */
  prefix: string;
  stopStrings: string[];
  reasoning?: { open: string[]; close: string[] };
  /** One call's rendered text, stop strings cut off. */
  oneCall: string;
}

/** Renders the probe conversations; the reasons when the template cannot render them. */
export function probeTemplate(template: LoadedTemplate): ProbeSet | { tried: string[] } {
  const renderOf = (messages: Message[], generation: boolean) =>
    renderConversation(template, { messages, tools }, { addGenerationPrompt: generation, now: NOW }).text;
  let prompt: string;
  let answered: string;
  let oneCall: string;
  try {
    prompt = renderOf([ask], true);
    answered = renderOf([ask, { role: 'assistant', content: ANSWER }], false);
    oneCall = completionOf(prompt, renderOf([ask, callMessage(calls.slice(0, 1))], false));
  } catch (error) {
    return { tried: [`rendering the probe conversations failed: ${(error as Error).message}`] };
  }
  // Some templates refuse parallel calls (Llama 3 raises); then one call is all the evidence there is.
  let twoCalls: string | undefined;
  try {
    twoCalls = completionOf(prompt, renderOf([ask, callMessage(calls)], false));
  } catch {
    twoCalls = undefined;
  }
  const textTurn = completionOf(prompt, answered);
  const prefix = prefillOf(prompt, answered);
  const trailerAt = textTurn.indexOf(ANSWER);
  if (trailerAt < 0) return { tried: ['the template does not render an assistant answer after the generation prompt'] };
  const eos = template.specialTokens.eos_token;
  const stopStrings = [...new Set([...markupSegments(textTurn.slice(trailerAt + ANSWER.length)), ...(eos ? [eos] : [])])];
  const reasoning = reasoningMarkers(template, renderOf, prompt, prefix);
  // History drops the reasoning a pre-filled `<think>` opened; the model's own completion closes it first.
  const opened = reasoning.markers && prefix.includes(reasoning.markers.open[0]!) && !prefix.includes(reasoning.markers.close[0]!);
  const lead = opened ? `${THOUGHT}${reasoning.markers!.close[0]}\n\n` : '';
  const thought = opened ? THOUGHT : null;
  const probes: Probe[] = [
    { completion: lead + textTurn, expected: { content: ANSWER, reasoning: thought, calls: [] } },
    { completion: lead + oneCall, expected: { content: null, reasoning: thought, calls: calls.slice(0, 1) } },
    ...(twoCalls === undefined ? [] : [{ completion: lead + twoCalls, expected: { content: null, reasoning: thought, calls } }]),
    ...(reasoning.probe && !opened ? [reasoning.probe] : []),
  ];
  return { probes, prefix, stopStrings, ...(reasoning.markers ? { reasoning: reasoning.markers } : {}), oneCall: cutAt(oneCall, stopStrings) };
}

/** True when `parser` reads every probe completion back to the probe message. */
export function parsesProbes(parser: string | ParserFamily, set: ProbeSet, prefix?: string): boolean {
  return set.probes.every((probe) => parsesBack(parser, probe, prefix));
}

/**
 * Finds how a template of unknown family writes tool calls and reasoning, by rendering probe conversations and
 * trying the engine's codecs with the markers found around the probe calls. A candidate is accepted only when it
 * parses every probe completion back to the probe message. Returns the reasons when nothing fits.
 */
export function deriveParser(template: LoadedTemplate, probed: ProbeSet | { tried: string[] } = probeTemplate(template)): DerivedParser | { tried: string[] } {
  if (!('probes' in probed)) return probed;
  const { prefix, stopStrings: stops, reasoning, oneCall: body } = probed;
  const tried: string[] = [];
  for (const shape of shapes) {
    const found = shape.locate(body, calls[0]!);
    if (!found) {
      tried.push(`${shape.codec}: the probe call is not written in this form`);
      continue;
    }
    const before = body.slice(0, found.start);
    const after = body.slice(found.end);
    for (const [sectionOpen, open] of splitsOf(before)) {
      for (const [close, sectionClose] of splitsOf(after)) {
        if (!open || !close) continue;
        const section = sectionOpen && sectionClose ? { open: [sectionOpen], close: [sectionClose] } : undefined;
        const grammar: Grammar = {
          ...shape.build({ open, close, separator: found.separator }),
          section,
          reasoning,
          stopStrings: stops,
          defaultPrefix: prefix,
        };
        const parser = grammarParser('derived', grammar);
        if (parsesProbes(parser, probed, prefix)) {
          const where = section ? ` inside ${sectionOpen} … ${sectionClose}` : '';
          return {
            parser,
            codec: shape.codec,
            prefix,
            evidence: [
              `calls are ${open} … ${close}${where} with ${shape.codec} arguments`,
              ...(reasoning ? [`reasoning is ${reasoning.open[0]} … ${reasoning.close[0]}`] : []),
              ...(prefix ? [`the generation prompt pre-fills ${JSON.stringify(prefix)}`] : []),
              `stop strings: ${stops.join(', ') || 'none'}`,
            ],
          };
        }
      }
    }
    tried.push(`${shape.codec}: no marker split around the probe call parses the probes back`);
  }
  return { tried };
}

function callMessage(list: typeof calls): Message {
  return {
    role: 'assistant',
    content: null,
    tool_calls: list.map((call, i) => ({ id: `call_probe${i}`, type: 'function', function: { name: call.name, arguments: call.arguments } })),
  };
}

/** The text a model writes for its turn: the render after the prompt (or after where the two part). */
function completionOf(prompt: string, rendered: string): string {
  return rendered.slice(partAt(prompt, rendered));
}

/** What the generation prompt writes that the rendered turn does not (`<think>\n`): the completion starts after it. */
function prefillOf(prompt: string, rendered: string): string {
  return prompt.slice(partAt(prompt, rendered));
}

function partAt(prompt: string, rendered: string): number {
  return backOffMarker(rendered, commonPrefixLength(prompt, rendered));
}

function cutAt(text: string, stops: readonly string[]): string {
  let end = text.length;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

function reasoningMarkers(
  template: LoadedTemplate,
  renderOf: (messages: Message[], generation: boolean) => string,
  prompt: string,
  prefix: string,
): { markers?: { open: string[]; close: string[] }; probe?: Probe } {
  let turn: string;
  try {
    turn = completionOf(prompt, renderOf([ask, { role: 'assistant', content: ANSWER, reasoning_content: THOUGHT }], false));
  } catch {
    return {};
  }
  const at = turn.indexOf(THOUGHT);
  const answerAt = turn.indexOf(ANSWER);
  if (at >= 0 && answerAt > at) {
    const open = markupSegments(prefix + turn.slice(0, at)).at(-1);
    const close = markupSegments(turn.slice(at + THOUGHT.length, answerAt))[0];
    if (open && close) return { markers: { open: [open], close: [close] }, probe: { completion: turn, expected: { content: ANSWER, reasoning: THOUGHT, calls: [] } } };
  }
  // The template drops reasoning from history; a pre-filled `<tag>` still names the block the model writes.
  const tag = /<([A-Za-z][\w:-]{0,30})>\s*$/.exec(prefix)?.[1] ?? (template.select(false).source.includes('</think>') ? 'think' : undefined);
  return tag ? { markers: { open: [`<${tag}>`], close: [`</${tag}>`] } } : {};
}

function parsesBack(parser: string | ParserFamily, probe: Probe, prefix: string | undefined): boolean {
  const message = parse(probe.completion, { family: parser, tools, ...(prefix === undefined ? {} : { prefix }) });
  if ((message.content ?? null) !== probe.expected.content) return false;
  if ((message.reasoning_content ?? null) !== probe.expected.reasoning) return false;
  if (message.tool_calls.length !== probe.expected.calls.length) return false;
  return message.tool_calls.every((call, i) => {
    const want = probe.expected.calls[i]!;
    try {
      return call.function.name === want.name && JSON.stringify(JSON.parse(call.function.arguments)) === JSON.stringify(want.arguments);
    } catch {
      return false;
    }
  });
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
