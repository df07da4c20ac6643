import { resolveFamilyId, type FamilyId } from '../families/info.js';
import { ChatfmtError } from '../errors.js';
import { CHANNEL, END, MESSAGE, START } from '../parse/harmony/markers.js';
import { formatTurn } from '../format/index.js';
import { parse } from '../parse/index.js';
import { parserFamilies } from '../registry/index.js';
import { familyInfo } from '../families/info.js';
import { withFamilyCallIds } from '../render/family-call-ids.js';
import type { Message, ParsedMessage, ParsedToolCall, Tool } from '../types.js';

export interface TranspileOptions {
  from: string;
  to: string;
  tools?: Tool[] | null;
  /** End of the prompt the source completion followed (sets the parser's starting state). */
  prefix?: string;
  /** Template variables for the target (e.g. enable_thinking). */
  variables?: Record<string, unknown>;
}

export type TranspileWarningCode =
  // The source text had problems the parser reported (kept as content).
  | 'TRANSPILE_SOURCE_DIAGNOSTIC'
  // The target template drops the reasoning.
  | 'TRANSPILE_REASONING_DROPPED'
  // The target template drops the content.
  | 'TRANSPILE_CONTENT_DROPPED'
  // gpt-oss carries one call per message: the calls were written as consecutive assistant messages.
  | 'TRANSPILE_CALLS_SPLIT'
  // The target template writes one call per turn (Llama 3): the calls were chained with the family's separator.
  | 'TRANSPILE_CALLS_JOINED'
  // Parsing the output with the target's parser does not give the same calls back.
  | 'TRANSPILE_CALLS_CHANGED';

export interface TranspileWarning {
  code: TranspileWarningCode;
  message: string;
}

export interface TranspileResult {
  /** The completion in the target syntax, end-of-turn marker included. */
  text: string;
  /** What the source text parsed to. */
  message: ParsedMessage;
  warnings: TranspileWarning[];
}

/**
 * Rewrites a completion from one family's syntax into another's: parse with the source grammar, then write it as the
 * target template renders an assistant turn. The output is parsed back with the target grammar, and everything the
 * target lost (reasoning, content, calls) becomes a warning: nothing is dropped silently.
 *
 * gpt-oss (harmony) carries one call per message, so several calls become consecutive assistant messages
 * (`…<|call|><|start|>assistant…<|call|>`), which harmony parsers read back as parallel calls; a warning says so.
 */
export function transpile(text: string, options: TranspileOptions): TranspileResult {
  const from = familyOf(options.from);
  const to = familyOf(options.to);
  const tools = options.tools ?? null;
  const message = parse(text, { family: from, tools: tools ?? undefined, ...(options.prefix !== undefined ? { prefix: options.prefix } : {}) });
  const warnings: TranspileWarning[] = message.diagnostics.map((d) => ({
    code: 'TRANSPILE_SOURCE_DIAGNOSTIC' as const,
    message: `${d.code}: ${d.message}`,
  }));
  const parsed: Message = {
    role: 'assistant',
    // An answer with no text is '' where no call stands in for it, as OpenAI writes it: templates that add to the
    // content (Hermes, Qwen2.5, Mistral) raise on None, so an empty or reasoning-only completion failed to transpile.
    content: message.content ?? (message.tool_calls.length > 0 ? null : ''),
    ...(message.reasoning_content !== null ? { reasoning_content: message.reasoning_content } : {}),
    ...(message.tool_calls.length ? { tool_calls: message.tool_calls } : {}),
  };
  // Kimi-K2 spells ids into its syntax; the source's ids (or generated ones) are rewritten to its form.
  const assistant = withFamilyCallIds({ messages: [parsed] }, to).messages[0]!;
  const { output, prompt } = write(assistant, to, tools, options.variables, warnings);
  const back = parse(output, { family: to, tools: tools ?? undefined, prefix: prompt });
  compare(message, back, to, warnings);
  return { text: output, message, warnings };
}

function familyOf(name: string): FamilyId {
  const id = resolveFamilyId(name);
  if (!id) throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family ${JSON.stringify(name)}`);
  return id;
}

function write(
  assistant: Message,
  to: FamilyId,
  tools: Tool[] | null,
  variables: Record<string, unknown> | undefined,
  warnings: TranspileWarning[],
): { output: string; prompt: string } {
  const calls = assistant.tool_calls ?? [];
  const format = (m: Message) => formatTurn(m, { family: to, tools, variables });
  const separator = parserFamilies[to].grammar?.callSeparators?.[0];
  if (calls.length > 1 && separator !== undefined) return joined(assistant, calls, to, format, separator, warnings);
  if (to !== 'gpt-oss' || calls.length === 0) {
    const turn = format(assistant);
    return { output: turn.completion, prompt: turn.prompt };
  }
  // Harmony writes each part as a message of its own: analysis (reasoning), a commentary preamble (content), then
  // one message per call. The template renders reasoning with a call; the preamble is written in its syntax here.
  const { content, ...rest } = assistant;
  const first = format({ ...rest, content: null, tool_calls: [calls[0]!] });
  let output = typeof content === 'string' && content.trim() !== '' ? withPreamble(first.completion, content) : first.completion;
  if (calls.length > 1) {
    warnings.push({ code: 'TRANSPILE_CALLS_SPLIT', message: `gpt-oss carries one call per message: wrote ${calls.length} consecutive assistant messages` });
  }
  for (const call of calls.slice(1)) {
    const next = format({ role: 'assistant', content: null, tool_calls: [call] });
    output += messageStart(next.prompt) + next.completion;
  }
  return { output, prompt: first.prompt };
}

/**
 * A family whose template writes one call per turn but whose models chain calls with a separator (Llama 3:
 * `{…}; {…}`, as its peers read them): each call as the template writes it, end token only after the last.
 */
function joined(
  assistant: Message,
  calls: NonNullable<Message['tool_calls']>,
  to: FamilyId,
  format: (m: Message) => { completion: string; prompt: string },
  separator: string,
  warnings: TranspileWarning[],
): { output: string; prompt: string } {
  const turns = calls.map((call) => format({ ...assistant, tool_calls: [call] }));
  const pieces = turns.map((turn, i) => (i === turns.length - 1 ? turn.completion : withoutStop(turn.completion, familyInfo[to].stopStrings)));
  warnings.push({ code: 'TRANSPILE_CALLS_JOINED', message: `${to}'s template writes one call per turn: wrote ${calls.length} calls joined by "${separator} "` });
  return { output: pieces.join(`${separator} `), prompt: turns[0]!.prompt };
}

function withoutStop(text: string, stops: readonly string[]): string {
  const stop = stops.find((candidate) => text.endsWith(candidate));
  return stop === undefined ? text : text.slice(0, -stop.length);
}

/** Puts a commentary message without recipient (a preamble: what the model tells the user) before the call's message. */
function withPreamble(completion: string, text: string): string {
  const call = completion.indexOf(' to=functions.');
  const callStart = call < 0 ? -1 : completion.lastIndexOf(START, call);
  const preamble = `${CHANNEL}commentary${MESSAGE}${text}${END}`;
  if (callStart < 0) return `${preamble}${START}assistant${completion}`;
  return `${completion.slice(0, callStart)}${START}assistant${preamble}${completion.slice(callStart)}`;
}

/** The header a new harmony message starts with: the tail of the generation prompt (`<|start|>assistant`). */
function messageStart(prompt: string): string {
  const at = prompt.lastIndexOf('<|start|>');
  return at >= 0 ? prompt.slice(at) : '<|start|>assistant';
}

function compare(source: ParsedMessage, back: ParsedMessage, to: FamilyId, warnings: TranspileWarning[]): void {
  if (nonEmpty(source.reasoning_content) && !nonEmpty(back.reasoning_content)) {
    warnings.push({ code: 'TRANSPILE_REASONING_DROPPED', message: `${to} does not carry the reasoning (${source.reasoning_content!.length} characters dropped)` });
  }
  if (nonEmpty(source.content) && !nonEmpty(back.content)) {
    warnings.push({ code: 'TRANSPILE_CONTENT_DROPPED', message: `${to} drops the content next to the calls` });
  }
  const want = source.tool_calls.map(callKey);
  const got = back.tool_calls.map(callKey);
  if (want.join('\n') !== got.join('\n')) {
    warnings.push({ code: 'TRANSPILE_CALLS_CHANGED', message: `parsing the ${to} text gives [${got.join(', ')}], not [${want.join(', ')}]` });
  }
}

function nonEmpty(text: string | null): boolean {
  return text !== null && text.trim() !== '';
}

/** A call's identity for comparison: name plus arguments as canonical JSON (key order and spacing ignored). */
export function callKey(call: ParsedToolCall): string {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    args = call.function.arguments;
  }
  return `${call.function.name}(${canonicalJson(args)})`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
