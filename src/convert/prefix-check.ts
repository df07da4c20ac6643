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
  const { messages } = conversation;
  const changes: PrefixChange[] = [];
  const reported = new Set<number>();
  let boundaries: number[] | undefined;
  messages.forEach((message, i) => {
    if (message.role !== 'assistant') return;
    const steps: Array<['prompt' | 'turn', string | undefined]> = [
      ['prompt', render(messages.slice(0, i), true)],
      ['turn', render(messages.slice(0, i + 1), false)],
    ];
    for (const [seenAs, text] of steps) {
      if (text === undefined || full.startsWith(text)) continue;
      const offset = commonPrefixLength(text, full);
      boundaries ??= messageBoundaries(render, messages);
      // A prompt that parts after its last message parts in the generation prompt: turn i itself does not begin
      // the way the model was prompted (a `<think>\n` prefill the history form lacks, say).
      const messageIndex = seenAs === 'prompt' && offset >= (render(messages.slice(0, i), false)?.length ?? Infinity) ? i : messageAt(boundaries, offset, seenAs === 'prompt' ? i : i + 1);
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
  });
  return changes;
}

/** boundaries[j] = where message j starts: the length of the render of the messages before it. */
function messageBoundaries(render: PrefixRenderer, messages: Conversation['messages']): number[] {
  const boundaries = [0];
  for (let j = 1; j < messages.length; j++) boundaries.push(render(messages.slice(0, j), false)?.length ?? boundaries[j - 1]!);
  return boundaries;
}

/** The last of the first `count` messages that starts at or before `offset`. */
function messageAt(boundaries: number[], offset: number, count: number): number {
  let index = 0;
  for (let j = 0; j < count; j++) if (boundaries[j]! <= offset) index = j;
  return index;
}
