import { loadTemplate } from '../node/load.js';
import { renderConversation } from '../render/index.js';
import type { LoadedTemplate, TemplateSpec } from '../render/types.js';
import type { Conversation } from '../types.js';
import { commonPrefixLength, prefixRenderer, type PrefixRenderer, type PrefixRenderOptions } from '../render/render-prefixes.js';

/** A message the full render writes differently from how the model saw or wrote it at some step. */
export interface PrefixChange {
  /** Index of the rewritten message. */
  messageIndex: number;
  role: string;
  /** The step that disagrees: the prompt for assistant turn `assistantIndex`, or that turn as the model wrote it. */
  seenAs: 'prompt' | 'turn';
  assistantIndex: number;
  /** Offset where the step's render and the full render part. */
  offset: number;
  /** Up to 40 characters of each from `offset` on. */
  before: string;
  after: string;
}

/**
 * Reports templates that are not prefix-preserving. At inference, assistant turn i is generated after the prompt
 * render(messages[..i], generation prompt) and then reads as render(messages[..i+1]); a training text (the full
 * render) that does not begin with both, for every assistant turn, trains on text the model never saw. Qwen3 fails
 * when it drops an old turn's reasoning, gpt-oss when a final answer's `<|return|>` becomes `<|end|>`, Hermes when a
 * tool turn's closing changes once an answer follows. Each rewritten message is reported once; partial conversations
 * the template rejects are skipped.
 */
export function checkPrefixPreserving(
  template: LoadedTemplate | TemplateSpec,
  conversation: Conversation,
  options: PrefixRenderOptions = {},
): PrefixChange[] {
  const loaded = 'select' in template ? template : loadTemplate(template);
  const full = renderConversation(loaded, conversation, { variables: options.variables, now: options.now }).text;
  return findPrefixChanges(prefixRenderer(loaded, conversation, options), conversation, full);
}

export function findPrefixChanges(render: PrefixRenderer, conversation: Conversation, full: string): PrefixChange[] {
  const finder = prefixChangeFinder(render, conversation, full);
  conversation.messages.forEach((message, i) => {
    if (message.role === 'assistant') finder.check(i);
  });
  return finder.changes;
}

/**
 * findPrefixChanges one assistant turn at a time (`check(i)`, in order), so a caller that renders the same prefixes
 * for another purpose (training records find each turn's span from them) can use each turn's renders for both while
 * they are still in the renderer's memo.
 */
export function prefixChangeFinder(render: PrefixRenderer, conversation: Conversation, full: string): { check(i: number): void; changes: PrefixChange[] } {
  const { messages } = conversation;
  const changes: PrefixChange[] = [];
  const reported = new Set<number>();
  const boundaries = messageBoundaries(render, messages);
  const check = (i: number): void => {
    const steps: Array<['prompt' | 'turn', string | undefined]> = [
      ['prompt', render(messages.slice(0, i), true)],
      ['turn', render(messages.slice(0, i + 1), false)],
    ];
    for (const [seenAs, text] of steps) {
      if (text === undefined || full.startsWith(text)) continue;
      const offset = commonPrefixLength(text, full);
      // A prompt that parts after its last message parts in the generation prompt: turn i itself does not begin
      // the way the model was prompted (a `<think>\n` prefill the history form lacks, say).
      const messageIndex = seenAs === 'prompt' && offset >= (render(messages.slice(0, i), false)?.length ?? Infinity) ? i : boundaries.messageAt(offset, seenAs === 'prompt' ? i : i + 1);
      if (reported.has(messageIndex)) continue;
      reported.add(messageIndex);
      changes.push({
        messageIndex,
        role: String(messages[messageIndex]?.role),
        seenAs,
        assistantIndex: i,
        offset,
        before: text.slice(offset, offset + 40),
        after: full.slice(offset, offset + 40),
      });
    }
  };
  return { check, changes };
}

/**
 * Where each message starts (the length of the render of the messages before it), rendered only as far as a lookup
 * needs: turns are checked in order, so the prefixes it asks for are mostly the ones that turn's check (and span
 * finding) just rendered, still in the renderer's memo, rather than every prefix of the conversation at once.
 */
function messageBoundaries(render: PrefixRenderer, messages: Conversation['messages']): { messageAt(offset: number, count: number): number } {
  const starts = [0];
  return {
    /** The last of the first `count` messages that starts at or before `offset`. */
    messageAt(offset, count) {
      while (starts.length < Math.min(count, messages.length)) {
        const j = starts.length;
        starts.push(render(messages.slice(0, j), false)?.length ?? starts[j - 1]!);
      }
      let index = 0;
      for (let j = 0; j < count && j < starts.length; j++) if (starts[j]! <= offset) index = j;
      return index;
    },
  };
}
