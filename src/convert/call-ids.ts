import type { FamilyId } from '../families/info.js';
import type { Conversation, Message } from '../types.js';

/**
 * Kimi-K2 writes call ids into its syntax (`functions.NAME:IDX`, IDX counting calls across the conversation), so
 * training on other ids (`call_1`) teaches the model ids its parsers reject. For kimi-k2 targets, ids not already in
 * that form are rewritten, and the tool results pointing at them follow. Other families keep ids as they are.
 */
export function withFamilyCallIds(conversation: Conversation, family: FamilyId | undefined): Conversation {
  if (family !== 'kimi-k2') return conversation;
  const renamed = new Map<string, string>();
  let counter = 0;
  const messages = conversation.messages.map((message): Message => {
    if (message.role === 'assistant' && message.tool_calls?.length) {
      const calls = message.tool_calls.map((call) => {
        const id = `functions.${call.function.name}:${counter++}`;
        if (call.id !== undefined && isKimiId(call.id)) return call;
        if (call.id !== undefined) renamed.set(call.id, id);
        return { ...call, id };
      });
      return { ...message, tool_calls: calls };
    }
    if (message.role === 'tool' && typeof message.tool_call_id === 'string' && renamed.has(message.tool_call_id)) {
      return { ...message, tool_call_id: renamed.get(message.tool_call_id)! };
    }
    return message;
  });
  return { ...conversation, messages };
}

function isKimiId(id: string): boolean {
  if (!id.startsWith('functions.')) return false;
  const colon = id.lastIndexOf(':');
  return colon > 'functions.'.length && /^\d+$/.test(id.slice(colon + 1));
}
