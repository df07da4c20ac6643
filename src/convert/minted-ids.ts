import type { Conversation } from '../types.js';

/**
 * Call ids an importer made up for rows that had none (ShareGPT, xLAM, Hermes text, id-less OpenAI calls). A rewrite
 * of such an id (Kimi's `functions.NAME:IDX`, Mistral's 9 characters) changes nothing the user wrote, so it is not
 * reported: a warning about `call_1` in a file without ids would name something the user never saw.
 */
const mintedByConversation = new WeakMap<Conversation, ReadonlySet<string>>();

export function recordMintedIds(conversation: Conversation, minted: ReadonlySet<string>): void {
  if (minted.size > 0) mintedByConversation.set(conversation, minted);
}

/** The rewrites whose id the row itself wrote; `path` is `messages[i].tool_calls[k].id` or `messages[i].tool_call_id`. */
export function rewritesOfWrittenIds<T extends { path: string }>(conversation: Conversation, rewrites: readonly T[]): T[] {
  const minted = mintedByConversation.get(conversation);
  if (!minted) return [...rewrites];
  return rewrites.filter((rewrite) => {
    const id = idAt(conversation, rewrite.path);
    return id === undefined || !minted.has(id);
  });
}

function idAt(conversation: Conversation, path: string): string | undefined {
  const match = /^messages\[(\d+)\](?:\.tool_calls\[(\d+)\]\.id|\.tool_call_id)$/.exec(path);
  if (!match) return undefined;
  const message = conversation.messages[Number(match[1])];
  const id = match[2] === undefined ? message?.tool_call_id : message?.tool_calls?.[Number(match[2])]?.id;
  return typeof id === 'string' ? id : undefined;
}
