import { ChatfmtError } from '../errors.js';
import { renderConversation } from './index.js';
import type { LoadedTemplate } from './types.js';
import type { Conversation, Message } from '../types.js';

/** Renders the conversation with its messages replaced, keeping tools and variables; undefined when the template fails. */
export type PrefixRenderer = (messages: Message[], addGenerationPrompt: boolean) => string | undefined;

/**
 * A render's cost in characters: its text, plus this much per message it renders (measured with qwen3 in training
 * records: ~1.1 µs a message against ~2.2 ns a character of text rendered and compared).
 */
export const MESSAGE_RENDER_CHARS = 512;

/**
 * Locating every assistant turn renders the conversation up to each one, so the work grows with the square of the
 * conversation: a 4 MB agent conversation of 200 turns renders ~2.5 billion characters (~5 s). A row of thousands of
 * one-word messages, or of 30 MB in 100 turns, would otherwise run for minutes or exhaust the heap; past this
 * budget (~10 s of work) a conversation is refused instead.
 */
export const DEFAULT_MAX_PREFIX_RENDER_CHARS = 4_000_000_000;

/** Rendered texts the renderer keeps for reuse, in characters; past it the oldest are dropped and rendered again. */
export const PREFIX_MEMO_CHARS = 64 * 1024 * 1024;

export interface PrefixRenderOptions {
  variables?: Record<string, unknown>;
  now?: Date;
  /**
   * The work the renderer may do in all, in characters rendered, each render also counting MESSAGE_RENDER_CHARS per
   * message (an answer from the memo is free); past it a render throws ChatfmtError INPUT_TOO_LARGE. Default
   * DEFAULT_MAX_PREFIX_RENDER_CHARS.
   */
  maxChars?: number;
}

/**
 * A renderer for partial conversations, memoised per (length, prompt flag) since span finding and the prefix check
 * ask for the same prefixes. Templates may legitimately reject a partial conversation (say, one ending in a tool
 * result); that is an undefined render, not an error. The memo keeps at most PREFIX_MEMO_CHARS of text (the oldest go
 * first): kept whole, the prefixes of a long conversation take the square of its size in memory.
 */
export function prefixRenderer(loaded: LoadedTemplate, conversation: Conversation, options: PrefixRenderOptions = {}): PrefixRenderer {
  const memo = new Map<string, string | undefined>();
  let memoChars = 0;
  const { messages: all, ...rest } = conversation;
  const maxChars = options.maxChars ?? DEFAULT_MAX_PREFIX_RENDER_CHARS;
  let spent = 0;
  const spend = (chars: number): void => {
    spent += chars;
    if (spent > maxChars) throw prefixBudgetExceeded(all.length, maxChars);
  };
  return (messages, addGenerationPrompt) => {
    const isPrefix = messages.length <= all.length && messages.every((m, i) => m === all[i]);
    const key = isPrefix ? `${messages.length}:${addGenerationPrompt}` : undefined;
    if (key !== undefined && memo.has(key)) return memo.get(key);
    spend(messages.length * MESSAGE_RENDER_CHARS);
    let text: string | undefined;
    try {
      text = renderConversation(loaded, { ...rest, messages }, { addGenerationPrompt, variables: options.variables, now: options.now }).text;
    } catch {
      text = undefined;
    }
    spend(text?.length ?? 0);
    if (key !== undefined) {
      memo.set(key, text);
      memoChars += text?.length ?? 0;
      for (const [oldKey, oldText] of memo) {
        if (memoChars <= PREFIX_MEMO_CHARS || oldKey === key) break;
        memo.delete(oldKey);
        memoChars -= oldText?.length ?? 0;
      }
    }
    return text;
  };
}

/** The error of a renderer over its budget; a caller that can tell in advance throws it before rendering. */
export function prefixBudgetExceeded(messages: number, maxChars = DEFAULT_MAX_PREFIX_RENDER_CHARS): ChatfmtError {
  return new ChatfmtError('INPUT_TOO_LARGE', `these ${messages} messages are located by rendering the conversation up to each one: over ${maxChars} characters in all (the limit)`);
}

/**
 * Span finding compares each turn's render with the whole conversation's, so on a long conversation these run over
 * megabytes per turn. Blocks are compared natively (a slice of a flat string is a view, and `===` compares its
 * characters in C++), growing while they match and shrinking where the strings part, and only the last small block
 * character by character: a JavaScript loop over every character was most of the time of converting a long agent
 * conversation.
 */
const SMALL_BLOCK = 256;
const LARGE_BLOCK = 1 << 20;

export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  for (let block = SMALL_BLOCK; block >= SMALL_BLOCK; ) {
    if (i + block <= n && a.slice(i, i + block) === b.slice(i, i + block)) {
      i += block;
      block = Math.min(block * 2, LARGE_BLOCK);
    } else block >>= 1;
  }
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** How many characters a and b share at their ends, counting no further than `limit`. */
export function commonSuffixLength(a: string, b: string, limit: number): number {
  let i = 0;
  for (let block = SMALL_BLOCK; block >= SMALL_BLOCK; ) {
    if (i + block <= limit && a.slice(a.length - i - block, a.length - i) === b.slice(b.length - i - block, b.length - i)) {
      i += block;
      block = Math.min(block * 2, LARGE_BLOCK);
    } else block >>= 1;
  }
  while (i < limit && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/** Moves `at` back to the `<` of a `<…>` marker it would cut in two (`<think>` and `<tool_call>` share `<t`). */
export function backOffMarker(text: string, at: number): number {
  const open = text.lastIndexOf('<', at - 1);
  if (open < 0) return at;
  const close = text.indexOf('>', open);
  return close >= at ? open : at;
}
