import type { Conversation, Message } from '../types.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const NINE = /^[A-Za-z0-9]{9}$/;

/** One call id changed, at a JSON path into the messages. */
export interface IdRewrite {
  path: string;
  from: string | undefined;
  to: string;
}

/**
 * Mistral's templates take only ids of 9 letters and digits (FORMATS-NEXT §4); OpenAI clients send `call_…`.
 * Every other id becomes a 9-character one derived from it (a hash, so a conversation and each of its prefixes map
 * alike), in the calls and in the tool results that point at them. A call with no id gets one from its position.
 */
export function toNineCharIds(conversation: Conversation): { conversation: Conversation; rewrites: IdRewrite[] } {
  const rewrites: IdRewrite[] = [];
  const renamed = new Map<string, string>();
  const taken = new Set<string>();
  const mint = (seed: string): string => {
    let id = hashId(seed);
    for (let salt = 1; taken.has(id); salt++) id = hashId(`${seed}#${salt}`);
    taken.add(id);
    return id;
  };
  for (const message of conversation.messages) {
    for (const call of message?.tool_calls ?? []) if (typeof call?.id === 'string' && NINE.test(call.id)) taken.add(call.id);
  }
  let changed = false;
  const messages = conversation.messages.map((message, index): Message => {
    if (message?.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      let callsChanged = false;
      const calls = message.tool_calls.map((call, k) => {
        const id = call?.id;
        if (typeof id === 'string' && NINE.test(id)) return call;
        const to = typeof id === 'string' ? (renamed.get(id) ?? mint(id)) : mint(`messages[${index}].tool_calls[${k}]`);
        if (typeof id === 'string') renamed.set(id, to);
        rewrites.push({ path: `messages[${index}].tool_calls[${k}].id`, from: typeof id === 'string' ? id : undefined, to });
        callsChanged = true;
        return { ...call, id: to };
      });
      if (!callsChanged) return message;
      changed = true;
      return { ...message, tool_calls: calls };
    }
    const from = message?.role === 'tool' ? message.tool_call_id : undefined;
    if (typeof from !== 'string' || NINE.test(from)) return message;
    // A result with no call before it (a truncated history) is mapped alike, so its later call would match.
    const target = renamed.get(from) ?? mint(from);
    renamed.set(from, target);
    rewrites.push({ path: `messages[${index}].tool_call_id`, from, to: target });
    changed = true;
    return { ...message, tool_call_id: target };
  });
  return { conversation: changed ? { ...conversation, messages } : conversation, rewrites };
}

/** 9 letters and digits from two 32-bit FNV-1a hashes of the text (different offsets). */
function hashId(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  let id = '';
  for (let i = 0; i < 5; i++, a = Math.floor(a / 62)) id += ALPHABET[a % 62];
  for (let i = 0; i < 4; i++, b = Math.floor(b / 62)) id += ALPHABET[b % 62];
  return id;
}
