import type { Message } from '../types.js';
import { backOffMarker, commonPrefixLength, commonSuffixLength, type PrefixRenderer } from '../render/render-prefixes.js';

export type Span = [number, number];

/**
 * How a turn's span was found. `prompt`: the generation prompt is a prefix of the turn's render (exact).
 * `header`: the history before the turn renders differently once the turn exists, and the turn starts after its
 * generation header. `prefill`: the prompt pre-fills text (`<think>\n`) the history form of the turn lacks, so the
 * start is where they part. `rewritten`: the full render changes the turn itself; found by a placeholder diff.
 * Only `prompt` and `header` are exact; the others are best effort.
 */
export type DiffMethod = 'prompt' | 'header' | 'prefill' | 'rewritten';

export interface DiffSpan {
  span: Span;
  method: DiffMethod;
}

// Private-use code point: no real text or template marker contains it, so diffs against it stop exactly at the content.
const PLACEHOLDER = '\uE000';
const MAX_HEADER_GAP = 32;

/**
 * Finds assistant turn `index`'s output in `fullText` without generation markers (axolotl-style), by rendering:
 * 1. the prompt for turn i (messages before it + generation prompt) and the conversation through turn i: the turn's
 *    output is what the second adds after the first, minus the trailing whitespace templates put between turns (so
 *    `<|im_end|>` is in, the `\n` after it is not, as `{% generation %}` blocks mark it);
 * 2. if the full render does not begin with that text (the template rewrites the turn once later messages exist, e.g.
 *    drops old reasoning), the full conversation with turn i replaced by a placeholder: the region where the two
 *    renders differ is the turn as the full render has it, widened back to its generation header and forward over
 *    the end-of-turn text the template writes after an assistant message.
 * A stop token that follows the turn's text belongs to the turn (see overStopToken).
 * A turn that neither way locates is undefined. One turn at a time: the caller takes the prefix check of the same turn
 * while these renders are still in the renderer's memo.
 */
export function spanByDiff(render: PrefixRenderer, messages: Message[], index: number, fullText: string, endMarkers: string[]): DiffSpan | undefined {
  const history = messages.slice(0, index);
  const prompt = render(history, true);
  const through = render(messages.slice(0, index + 1), false);
  const before = render(history, false);
  if (prompt === undefined || through === undefined) return undefined;
  const header = before !== undefined && prompt.startsWith(before) ? prompt.slice(before.length) : '';
  const { start, method } = turnStart(prompt, through, before, header);
  const end = Math.max(start, trimmedEnd(through));
  if (fullText.startsWith(through.slice(0, end))) return { span: [start, overStopToken(fullText, end, endMarkers)], method };
  const trailer = turnTrailer(render, history);
  const located = locateRewritten(render, messages, index, fullText, header, trailer, endMarkers);
  return located && { span: [located[0], overStopToken(fullText, located[1], endMarkers)], method: 'rewritten' };
}

/**
 * Messages spanByDiff renders at the least for these turns: each turn's prompt and the conversation through it
 * (each a different prefix, so the memo answers neither). A row over the budget on this count alone is refused
 * before any render.
 */
export function leastMessagesRendered(assistantIndices: number[]): number {
  let total = 0;
  for (const index of assistantIndices) total += 2 * index + 1;
  return total;
}

/**
 * A stop token right after the turn is what the model wrote to end it, even when the template prints it as the
 * next message's header (GLM ends a turn by writing `<|observation|>` or `<|user|>`), so it carries loss too.
 */
function overStopToken(fullText: string, end: number, endMarkers: string[]): number {
  const marker = endMarkers.find((candidate) => fullText.startsWith(candidate, end));
  return marker === undefined ? end : end + marker.length;
}

function turnStart(prompt: string, through: string, before: string | undefined, header: string): { start: number; method: DiffMethod } {
  if (through.startsWith(prompt)) return { start: prompt.length, method: 'prompt' };
  if (header !== '' && before !== undefined) {
    if (through.startsWith(before)) {
      // The prompt's tail pre-fills text the turn's history form lacks; start where they part, off any marker.
      const parted = before.length + commonPrefixLength(header, through.slice(before.length));
      return { start: backOffMarker(through, parted), method: 'prefill' };
    }
    // The history changed once the turn was added (a tool turn closed differently): the turn is the last message,
    // so its header is the last one in the render.
    const at = through.lastIndexOf(header);
    if (at >= 0) return { start: at + header.length, method: 'header' };
  }
  return { start: backOffMarker(through, commonPrefixLength(prompt, through)), method: 'prefill' };
}

function trimmedEnd(text: string): number {
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  return end;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * What the template writes after an assistant message's content when it ends the conversation (`<|im_end|>`,
 * `<seed:eos>`, or nothing for GLM, whose next turn's header is the stop token), or undefined when unknown.
 */
function turnTrailer(render: PrefixRenderer, history: Message[]): string | undefined {
  const text = render([...history, { role: 'assistant', content: PLACEHOLDER }], false);
  const at = text?.lastIndexOf(PLACEHOLDER) ?? -1;
  return at < 0 ? undefined : text!.slice(at + PLACEHOLDER.length, trimmedEnd(text!));
}

function locateRewritten(
  render: PrefixRenderer,
  messages: Message[],
  index: number,
  fullText: string,
  header: string,
  trailer: string | undefined,
  endMarkers: string[],
): Span | undefined {
  const replaced = messages.slice();
  replaced[index] = { role: 'assistant', content: PLACEHOLDER };
  const other = render(replaced, false);
  if (other === undefined || other === fullText) return undefined;
  let start = commonPrefixLength(fullText, other);
  const suffix = commonSuffixLength(fullText, other, Math.min(fullText.length, other.length) - start);
  const regionEnd = fullText.length - suffix;
  // Both renders share what the template writes between the header and the content (`<think>\n`, part of
  // `<|channel|>`); the model writes it, so it belongs to the span. Only a short gap counts: a long one means the
  // turn has no header of its own (it follows tool outputs directly) and the match is an earlier turn's.
  if (header !== '') {
    const at = fullText.lastIndexOf(header, start);
    if (at >= 0 && at + header.length <= start && start - (at + header.length) <= MAX_HEADER_GAP) start = at + header.length;
  }
  let end = regionEnd;
  for (const marker of endMarkers) {
    // A marker the region cuts in two (`<|call|>` against the placeholder's `<|end|>` share `|>`) belongs to it.
    for (let p = Math.max(start, regionEnd - marker.length + 1); p < regionEnd; p++) {
      if (fullText.startsWith(marker, p)) end = Math.max(end, p + marker.length);
    }
  }
  if (end === regionEnd && trailer !== '') {
    // The end-of-turn text after the content: the template's own trailer, or else an end marker right there.
    if (trailer !== undefined && fullText.startsWith(trailer, regionEnd)) end = regionEnd + trailer.length;
    else for (const marker of endMarkers) if (fullText.startsWith(marker, regionEnd)) end = Math.max(end, regionEnd + marker.length);
  }
  return end > start ? [start, end] : undefined;
}
