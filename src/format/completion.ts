import { ChatfmtError } from '../errors.js';
import { familyInfo, type FamilyId } from '../families/info.js';
import { loadTemplate } from '../render/load.js';
import { renderConversation } from '../render/render.js';
import type { LoadedTemplate } from '../render/types.js';
import { withFamilyCallIds } from '../render/family-call-ids.js';
import type { Message, ParsedMessage, Tool } from '../types.js';

export interface FormatOptions {
  family: string;
  tools?: Tool[] | null;
  /** Template variables such as enable_thinking; they shape the generation prompt too. */
  variables?: Record<string, unknown>;
}

export interface FormattedTurn {
  /** The rendered prompt up to and including the generation prompt: the parser's prefix. */
  prompt: string;
  /** What the model generates for this message, end-of-turn token included. */
  completion: string;
}

const FORMAT_NOW = new Date('2025-01-15T12:00:00Z');
const PLACEHOLDER_USER: Message = { role: 'user', content: 'chatfmt' };

/**
 * Writes an assistant message in the family's completion syntax, exactly as the family template
 * renders that turn: the rendered conversation minus the rendered generation prompt, cut at the
 * end of the turn's generation block. Defined through the template so the two cannot drift apart.
 */
export function formatCompletion(message: Message | ParsedMessage, options: FormatOptions): string {
  return formatTurn(message, options).completion;
}

/** Takes a message as users write it or as `parse` returns it, so `formatCompletion(parse(...))` just works. */
export function formatTurn(message: Message | ParsedMessage, options: FormatOptions, history: Message[] = [PLACEHOLDER_USER]): FormattedTurn {
  const template = loadTemplate({ family: options.family });
  const { diagnostics: _diagnostics, ...fields } = message as Message & { diagnostics?: unknown };
  const assistant = withReasoningAliases({ ...fields, role: 'assistant' });
  // Kimi-K2 spells call ids into its syntax and its parser reads only that form: write ids as convert does.
  const messages = withFamilyCallIds({ messages: [...history, assistant] }, template.family).messages;
  if (options.tools != null) return formatWith(template, messages, options.tools, options.variables);
  try {
    return formatWith(template, messages, null, options.variables);
  } catch (error) {
    // A tool-use template that insists on a tools list (Hermes) writes the same assistant turn with an empty one.
    if (error instanceof ChatfmtError && error.code === 'TEMPLATE_RAISED') return formatWith(template, messages, [], options.variables);
    throw error;
  }
}

function formatWith(template: LoadedTemplate, messages: Message[], tools: Tool[] | null, variables: Record<string, unknown> | undefined): FormattedTurn {
  const renderOptions = { now: FORMAT_NOW, variables };
  const history = messages.slice(0, -1);
  const prompt = renderConversation(template, { messages: history, tools }, { ...renderOptions, addGenerationPrompt: true }).text;
  const full = renderConversation(template, { messages, tools }, { ...renderOptions, addGenerationPrompt: false });
  const start = divergence(prompt, full.text);
  const turnSpans = full.generationSpans.filter(([, end]) => end > start);
  const lastSpan = turnSpans[turnSpans.length - 1];
  if (!lastSpan) {
    // The template wrote nothing for the turn (Seed-OSS gives an empty answer no <seed:eos>, and not even the newline
    // its generation prompt ends with): the model's output is empty.
    if (wroteNothing(full.generationSpans, full.text.length)) return { prompt, completion: '' };
    throw new ChatfmtError('TEMPLATE_SOURCE', `${template.name}: the template marks no generation block, so the assistant turn cannot be located`);
  }
  const completion = full.text.slice(start, lastSpan[1]);
  return { prompt: full.text.slice(0, start), completion: cutAtFirstStop(completion, template.family) };
}

/** The last generation block is empty and ends the text: the turn being formatted rendered as nothing. */
function wroteNothing(spans: readonly (readonly [number, number])[], end: number): boolean {
  const last = spans[spans.length - 1];
  return last !== undefined && last[0] === last[1] && last[1] === end;
}

/** A model's output ends at its first stop token; anything a template renders after it is a new turn. */
function cutAtFirstStop(completion: string, family: FamilyId | undefined): string {
  let end = completion.length;
  for (const stop of family ? familyInfo[family].stopStrings : []) {
    const at = completion.indexOf(stop);
    if (at >= 0) end = Math.min(end, at + stop.length);
  }
  return completion.slice(0, end);
}

/**
 * Where the model's output begins: the end of what the generation prompt and the rendered turn
 * share. A prompt may prefill more than the history shows (R1's `<think>\n`) or less, so neither
 * text is a prefix of the other in general. Never cut inside a `<...>` marker they both start.
 */
function divergence(prompt: string, full: string): number {
  const limit = Math.min(prompt.length, full.length);
  let shared = 0;
  while (shared < limit && prompt.charCodeAt(shared) === full.charCodeAt(shared)) shared++;
  if (shared === prompt.length) return shared;
  const open = full.lastIndexOf('<', shared - 1);
  return open > full.lastIndexOf('>', shared - 1) ? open : shared;
}

/** gpt-oss templates read `thinking`; the others read `reasoning_content`. */
function withReasoningAliases(message: Message): Message {
  const reasoning = message.reasoning_content ?? (typeof message.thinking === 'string' ? message.thinking : undefined);
  if (reasoning === undefined || reasoning === null) return message;
  return { ...message, reasoning_content: reasoning, thinking: reasoning };
}
