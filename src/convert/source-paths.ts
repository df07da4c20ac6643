import type { Conversation } from '../types.js';

/**
 * Where an imported conversation's parts came from in the row, for importers whose rows are not OpenAI messages one
 * for one (Hermes text, xLAM): validate checks the imported conversation, and its issues must name the row's own
 * places (`conversations[3].value`, `answers[0]`), never `messages[4]` in a file that has no messages.
 */
export interface SourcePaths {
  /** The row's list of turns, for issues about the message list as a whole (an empty one). */
  turns: string;
  /** The row path each imported message came from, by message index. */
  messages: string[];
  /** Where the tools came from: `tools` (a list, so `tools[j]` names each) or one place holding them all. */
  tools: string;
  /** The row path of a message's k-th call, when calls have places of their own. */
  call?: (message: number, k: number) => string | undefined;
}

const sourcesByConversation = new WeakMap<Conversation, SourcePaths>();

export function recordSourcePaths(conversation: Conversation, sources: SourcePaths): void {
  sourcesByConversation.set(conversation, sources);
}

/** `path` (into the imported conversation) as a path into the row it was imported from; unchanged when unknown. */
export function rowPathOf(conversation: Conversation, path: string): string {
  const sources = sourcesByConversation.get(conversation);
  if (!sources) return path;
  if (path === 'messages') return sources.turns;
  const message = /^messages\[(\d+)\](.*)$/.exec(path);
  if (message) {
    const index = Number(message[1]);
    const call = /^\.tool_calls\[(\d+)\]/.exec(message[2]!);
    const own = call ? sources.call?.(index, Number(call[1])) : undefined;
    return own ?? sources.messages[index] ?? path;
  }
  const tool = /^tools\[(\d+)\]/.exec(path);
  if (tool) return sources.tools === 'tools' ? `tools[${tool[1]}]` : sources.tools;
  return path;
}
