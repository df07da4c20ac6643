// How many tokens each message costs in the rendered prompt. Core-safe (no Node): the playground counts in the page
// with the same code Node callers use.
import { renderConversation } from '../render/index.js';
import type { LoadedTemplate } from '../render/types.js';
import type { Conversation } from '../types.js';
import { commonPrefixLength, prefixRenderer } from '../render/render-prefixes.js';
import type { ChatTokenizer } from './tokenizer-offsets.js';

export interface MessageTokenSpan {
  /** UTF-16 range of the rendered text the message accounts for. */
  start: number;
  end: number;
  /** Tokens that start inside [start, end). */
  tokens: number;
}

export interface MessageTokenCounts {
  /** The rendered text that was tokenized. */
  text: string;
  total: number;
  /**
   * One entry per message. A message the template cannot render as the last of a partial conversation (some reject a
   * conversation that ends in a tool result) has no boundary of its own: it is counted with the next one and marked
   * `withNext`, with an empty range.
   */
  messages: Array<MessageTokenSpan & { withNext: boolean }>;
  /** The generation prompt's tokens, when `addGenerationPrompt` is set. */
  generationPrompt?: MessageTokenSpan;
}

export interface MessageTokenOptions {
  addGenerationPrompt?: boolean;
  variables?: Record<string, unknown>;
  now?: Date;
  /**
   * The work of finding each message's end (a render of the conversation up to it), in characters rendered as
   * toTrainingRecord counts them; past it a ChatfmtError INPUT_TOO_LARGE. Default DEFAULT_MAX_PREFIX_RENDER_CHARS.
   */
  maxPrefixRenderChars?: number;
}

/**
 * Renders the conversation, tokenizes the text once, and splits the tokens at message boundaries. A message's range
 * ends where the render of the conversation up to it ends within the full render (see messageEnd), so what a template
 * writes after a turn belongs to it and the next turn's header to the next. A token that straddles a
 * boundary counts for the message it starts in, so the counts always add up to `total`.
 */
export function messageTokenCounts(loaded: LoadedTemplate, conversation: Conversation, tokenizer: ChatTokenizer, options: MessageTokenOptions = {}): MessageTokenCounts {
  const addGenerationPrompt = options.addGenerationPrompt ?? false;
  const renderOptions = { variables: options.variables, now: options.now };
  const text = renderConversation(loaded, conversation, { ...renderOptions, addGenerationPrompt }).text;
  const render = prefixRenderer(loaded, conversation, { ...renderOptions, maxChars: options.maxPrefixRenderChars });
  const messages = conversation.messages;
  const ends: Array<number | undefined> = messages.map((_, i) => {
    const prefix = render(messages.slice(0, i + 1), false);
    return prefix === undefined ? undefined : messageEnd(prefix, text);
  });
  // The conversation's own end: without a generation prompt that is the text's end.
  const conversationEnd = addGenerationPrompt ? (ends[messages.length - 1] ?? text.length) : text.length;
  if (messages.length > 0) ends[messages.length - 1] = conversationEnd;

  const starts = tokenStarts(tokenizer, text);
  let cursor = 0;
  let from = 0;
  const count = (end: number): number => {
    let n = 0;
    while (cursor < starts.length && starts[cursor]! < end) {
      cursor++;
      n++;
    }
    return n;
  };
  const counted = messages.map((_, i) => {
    const end = ends[i];
    if (end === undefined) return { start: from, end: from, tokens: 0, withNext: true };
    const bounded = Math.max(end, from);
    const span = { start: from, end: bounded, tokens: count(bounded), withNext: false };
    from = bounded;
    return span;
  });
  const result: MessageTokenCounts = { text, total: starts.length, messages: counted };
  if (addGenerationPrompt) result.generationPrompt = { start: from, end: text.length, tokens: count(text.length + 1) };
  else if (counted.length > 0) counted[counted.length - 1]!.tokens += count(text.length + 1);
  return result;
}

/**
 * Lengths of a prefix render's closing text looked for in the full render (see messageEnd), longest first: the shorter
 * ones skip what the template wrote only because the message came last, the longest disambiguate repeated turns.
 */
const TAIL_LENGTHS = [64, 32, 16];

/**
 * Where the message that ends `prefix` (the render up to it) ends in `full`. Usually `prefix` is a prefix of `full`.
 * Some templates write the last message differently (Qwen3 gives the final assistant turn an empty `<think>` block),
 * so the two part inside it; then the prefix's closing characters (the turn's content end and its end marker) are
 * found again in `full` past that point, and the message ends there. Without them, it ends where the texts part.
 */
function messageEnd(prefix: string, full: string): number {
  const agreed = commonPrefixLength(prefix, full);
  if (agreed === prefix.length) return agreed;
  for (const length of TAIL_LENGTHS) {
    const tail = prefix.slice(Math.max(agreed, prefix.length - length));
    const found = full.indexOf(tail, agreed);
    if (found >= 0) return found + tail.length;
  }
  return agreed;
}

function tokenStarts(tokenizer: ChatTokenizer, text: string): number[] {
  return tokenizer.encode(text).offsets.map(([start]) => start);
}
