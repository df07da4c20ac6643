import { ChatfmtError } from '../errors.js';
import type { Message } from '../types.js';

/**
 * transformers' continue_final_message: cut the rendered text right after the final message's
 * content, dropping end-of-turn tokens, so generation continues that message (a prefill).
 * Python's str.strip() is whitespace-only, like JS trim() for these purposes.
 */
export function cutAfterFinalMessage(text: string, messages: readonly Message[], templateName: string): string {
  const final = finalText(messages);
  const stripped = final.trim();
  const location = text.lastIndexOf(stripped);
  if (location < 0) {
    throw new ChatfmtError('INPUT_INVALID', `${templateName}: continue_final_message is set but the final message does not appear in the rendered text`);
  }
  const leftStripped = final.trimStart();
  // The template kept the message's own spacing: cut after it; otherwise after its stripped form.
  if (text.slice(location, location + leftStripped.length) === leftStripped) return text.slice(0, location + leftStripped.length);
  return text.slice(0, location + stripped.length);
}

function finalText(messages: readonly Message[]): string {
  const last = messages[messages.length - 1];
  if (!last) throw new ChatfmtError('INPUT_INVALID', 'continue_final_message needs at least one message');
  const content = last.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    for (let i = content.length - 1; i >= 0; i--) {
      const part = content[i] as { text?: unknown };
      if (part && typeof part.text === 'string') return part.text;
    }
  }
  throw new ChatfmtError('INPUT_INVALID', 'continue_final_message is set but the final message has no text to continue');
}
