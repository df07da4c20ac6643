import { backOffMarker } from '../render/render-prefixes.js';
import { renderConversation, type LoadedTemplate, type RenderOptions, type RenderResult } from '../render/index.js';
import type { Conversation, ToolCall } from '../types.js';
import type { RowView, TurnView } from './checks/view.js';

/** What the model generates for one turn, and the prompt before it. */
export interface TurnCut {
  prefix: string;
  completion: string;
}

/** One assistant tool-call turn of the rendered row, cut out of the render. */
export interface CallTurnCut {
  /** Index of the turn in the rendered conversation's messages. */
  index: number;
  calls: ToolCall[];
  /** The row's own view of the turn (its paths), when the view has it. */
  turn: TurnView | undefined;
  /** The turn's path in the row. */
  where: string;
  /** Undefined when the render with this turn adds nothing after the prompt (the template leaves it out). */
  cut: TurnCut | undefined;
  /** Why the turn could not be cut out at all (a render failed); `cut` is undefined then. */
  failure?: string;
}

/**
 * Every assistant tool-call turn, cut from the render: by its generation span when the template marks one per
 * assistant turn, else by rendering the prompt up to the turn (see promptCut).
 */
export function cutCallTurns(
  loaded: LoadedTemplate,
  conversation: Conversation,
  callTurns: TurnView[],
  view: RowView,
  rendered: RenderResult,
  renderOptions: RenderOptions,
  errorText: (error: unknown) => string,
): CallTurnCut[] {
  const messages = conversation.messages;
  const assistantIndexes = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const spansAlign = rendered.generationSpans.length === assistantIndexes.length;
  const callIndexes = messages.flatMap((m, i) => (m.role === 'assistant' && m.tool_calls?.length ? [i] : []));
  return callIndexes.map((index, ordinal) => {
    const turn = callTurns[ordinal];
    const where = turn ? view.messagePath(turn.message) : `messages[${index}]`;
    const calls = messages[index]!.tool_calls!;
    try {
      const cut = spansAlign ? spanCut(rendered, rendered.generationSpans[assistantIndexes.indexOf(index)]!) : promptCut(loaded, conversation, index, renderOptions);
      return { index, calls, turn, where, cut };
    } catch (error) {
      return { index, calls, turn, where, cut: undefined, failure: errorText(error) };
    }
  });
}

function spanCut(rendered: RenderResult, span: [number, number]): TurnCut {
  return { prefix: rendered.text.slice(0, span[0]), completion: rendered.text.slice(span[0], span[1]) };
}

/**
 * Without usable generation spans: the prompt is the render up to the turn, with the generation prompt. Some
 * templates open the turn differently in a prompt than in history (DeepSeek-R1 prompts with `<think>\n`), so
 * the cut is where the prompt and the render with the turn stop agreeing. (Text before the turn that lands in
 * the completion, such as DeepSeek's `<｜tool▁outputs▁end｜>`, is plain content to the parser: calls still compare.)
 */
export function promptCut(loaded: LoadedTemplate, conversation: Conversation, index: number, renderOptions: RenderOptions): TurnCut | undefined {
  const head = { ...conversation, messages: conversation.messages.slice(0, index) };
  const upTo = { ...conversation, messages: conversation.messages.slice(0, index + 1) };
  const prompt = renderConversation(loaded, head, { ...renderOptions, addGenerationPrompt: true }).text;
  const full = renderConversation(loaded, upTo, renderOptions).text;
  let common = 0;
  const limit = Math.min(prompt.length, full.length);
  while (common < limit && prompt.charCodeAt(common) === full.charCodeAt(common)) common++;
  if (common === full.length) return undefined;
  // A prompt that pre-fills a marker the turn does not write (Gemma's `<|channel>` vs `<|tool_call>`) shares its `<|`.
  common = backOffMarker(full, common);
  return { prefix: full.slice(0, common), completion: full.slice(common) };
}

/** A model's output ends at its first stop string; the end-of-turn tokens are not part of it. */
export function cutAtStop(text: string, stopStrings: readonly string[]): string {
  let end = text.length;
  for (const stop of stopStrings) {
    const at = text.indexOf(stop);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}
