import { renderConversation } from './index.js';
import type { LoadedTemplate } from './types.js';
import type { Conversation, Message } from '../types.js';

/** Renders the conversation with its messages replaced, keeping tools and variables; undefined when the template fails. */
export type PrefixRenderer = (messages: Message[], addGenerationPrompt: boolean) => string | undefined;

export interface PrefixRenderOptions {
  variables?: Record<string, unknown>;
  now?: Date;
}

/**
 * A renderer for partial conversations, memoised per (length, prompt flag) since span finding and the prefix check
 * ask for the same prefixes. Templates may legitimately reject a partial conversation (say, one ending in a tool
 * result); that is an undefined render, not an error.
 */
export function prefixRenderer(loaded: LoadedTemplate, conversation: Conversation, options: PrefixRenderOptions = {}): PrefixRenderer {
  const cache = new Map<string, string | undefined>();
  const { messages: all, ...rest } = conversation;
  return (messages, addGenerationPrompt) => {
    const isPrefix = messages.length <= all.length && messages.every((m, i) => m === all[i]);
    const key = isPrefix ? `${messages.length}:${addGenerationPrompt}` : undefined;
    if (key !== undefined && cache.has(key)) return cache.get(key);
    let text: string | undefined;
    try {
      text = renderConversation(loaded, { ...rest, messages }, { addGenerationPrompt, variables: options.variables, now: options.now }).text;
    } catch {
      text = undefined;
    }
    if (key !== undefined) cache.set(key, text);
    return text;
  };
}

export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export function commonSuffixLength(a: string, b: string, limit: number): number {
  let i = 0;
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
