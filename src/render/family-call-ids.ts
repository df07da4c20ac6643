import type { FamilyId } from '../families/info.js';
import { toNineCharIds } from './call-ids.js';
import type { Conversation, Message } from '../types.js';

/**
 * Kimi-K2 writes call ids into its syntax (`functions.NAME:IDX`, IDX counting calls across the conversation), so
 * training on other ids (`call_1`) teaches the model ids its parsers reject. For kimi-k2 targets, ids not already in
 * that form are rewritten, and the tool results pointing at them follow. Mistral takes only 9-character ids: other
 * ids are mapped the same way (render's auto mode maps them too). Other families keep ids as they are.
 */
export function withFamilyCallIds(conversation: Conversation, family: FamilyId | undefined): Conversation {
  return prepareForTemplate(conversation, family).conversation;
}

/** A change made to a conversation so the family's template renders it as the model was trained. */
export interface TemplateRewrite {
  /** JSON path into the conversation's messages. */
  path: string;
  message: string;
}

/**
 * The one normalisation both `convert` and `validate --family` apply before rendering, so they render the same text
 * and reach the same verdicts; every change is returned, never made silently.
 */
export function prepareForTemplate(conversation: Conversation, family: FamilyId | undefined): { conversation: Conversation; rewrites: TemplateRewrite[] } {
  const rewrites: TemplateRewrite[] = [];
  if (family === 'mistral') {
    const mapped = toNineCharIds(conversation);
    for (const { path, from, to } of mapped.rewrites) {
      rewrites.push({ path, message: `mistral takes 9-character call ids: ${from === undefined ? 'no id' : `id ${JSON.stringify(from)}`} is written as ${to}` });
    }
    return { conversation: mapped.conversation, rewrites };
  }
  if (family !== 'kimi-k2') return { conversation, rewrites };
  const renamed = new Map<string, string>();
  let counter = 0;
  const messages = conversation.messages.map((message, index): Message => {
    if (message.role === 'assistant' && message.tool_calls?.length) {
      const calls = message.tool_calls.map((call, k) => {
        const id = `functions.${call.function.name}:${counter++}`;
        if (call.id !== undefined && isKimiId(call.id)) return call;
        if (call.id !== undefined) renamed.set(call.id, id);
        const was = call.id === undefined ? 'no id' : `id ${JSON.stringify(call.id)}`;
        rewrites.push({ path: `messages[${index}].tool_calls[${k}].id`, message: `kimi-k2 spells call ids into its syntax: ${was} is written as ${id}` });
        return { ...call, id };
      });
      return { ...message, tool_calls: calls };
    }
    if (message.role === 'tool' && typeof message.tool_call_id === 'string' && renamed.has(message.tool_call_id)) {
      return { ...message, tool_call_id: renamed.get(message.tool_call_id)! };
    }
    return message;
  });
  return { conversation: { ...conversation, messages }, rewrites };
}

function isKimiId(id: string): boolean {
  if (!id.startsWith('functions.')) return false;
  const colon = id.lastIndexOf(':');
  return colon > 'functions.'.length && /^\d+$/.test(id.slice(colon + 1));
}
