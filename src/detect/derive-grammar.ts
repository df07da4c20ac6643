import type { Grammar } from '../parse/engine/grammar.js';
import { parse } from '../parse/parse.js';
import { grammarParser, type ParserFamily } from '../registry/index.js';
import { renderConversation } from '../render/render.js';
import type { LoadedTemplate } from '../render/types.js';
import type { Message, Tool } from '../types.js';
import { backOffMarker, commonPrefixLength } from '../render/render-prefixes.js';
import { shapes } from './call-shapes.js';
import { markupSegments, splitsOf } from './markup.js';
import { jsonEqual } from '../util/json-equal.js';
import type { ProbeOptions } from './detect.js';

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
export function probeTemplate(template: LoadedTemplate, options: ProbeOptions = {}): ProbeSet | { tried: string[] } {
  const extra = options.variables ? { variables: options.variables } : {};
  const renderOf = (messages: Message[], generation: boolean) =>
    renderConversation(template, { messages, tools }, { addGenerationPrompt: generation, now: options.now ?? NOW, ...extra }).text;
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
  // A template that writes the close before every answer (DeepSeek-V3.2's `</think>`) already has it in the turn.
  const closed = opened && textTurn.startsWith(reasoning.markers!.close[0]!);
  const lead = opened ? (closed ? THOUGHT : `${THOUGHT}${reasoning.markers!.close[0]}\n\n`) : '';
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
        // A trailer with nothing opening it is how a call turn ends where an answer ends otherwise (Llama 3.1 and
        // Functionary write `<|eom_id|>` after calls, `<|eot_id|>` after text): one more stop string.
        const callStops = !sectionOpen && sectionClose && !stops.includes(sectionClose) ? [...stops, sectionClose] : stops;
        const grammar: Grammar = {
          ...shape.build({ open, close, separator: found.separator, nameKey: found.nameKey }),
          section,
          reasoning,
          stopStrings: callStops,
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
              `stop strings: ${callStops.join(', ') || 'none'}`,
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
      // Key order is no part of an object: templates that sort keys (Gemma's dictsort) write the probe's in another.
      return call.function.name === want.name && jsonEqual(JSON.parse(call.function.arguments), want.arguments);
    } catch {
      return false;
    }
  });
}
