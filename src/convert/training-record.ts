import { ChatfmtError, inContext, isChatfmtError } from '../errors.js';
import { familyInfo } from '../families/info.js';
import { PyFloat } from '../jinja/index.js';
import { loadTemplate } from '../node/load.js';
import { renderConversation } from '../render/index.js';
import type { LoadedTemplate } from '../render/types.js';
import type { Conversation, Message } from '../types.js';
import { issue, rowFailure, type ConvertIssue } from './issues.js';
import { prepareForTemplate } from '../render/family-call-ids.js';
import { rewritesOfWrittenIds } from './minted-ids.js';
import { prefixChangeFinder } from './prefix-check.js';
import { commonPrefixLength, DEFAULT_MAX_PREFIX_RENDER_CHARS, MESSAGE_RENDER_CHARS, prefixBudgetExceeded, prefixRenderer } from '../render/render-prefixes.js';
import { leastMessagesRendered, spanByDiff, type DiffSpan, type Span } from './spans-by-diff.js';
import { droppedCalls, droppedCallsMessage } from './dropped-calls.js';
import { convertSpans, overlaps, type OffsetUnit } from './text-offsets.js';
import type { ChatTokenizer } from './tokenizer.js';
import { append } from '../util/append.js';
import { clipForMessage } from '../util/utf16.js';

export type TrainOn = 'all' | 'last';

export interface TrainingRecordOptions {
  /** A family id/alias, or a template (file, folder, tokenizer_config.json); or an already loaded template. */
  family?: string;
  template?: string;
  templateName?: string;
  loaded?: LoadedTemplate;
  tokenizer?: ChatTokenizer;
  /** `all` (default): every assistant turn carries loss; `last`: only the final one. Turns with `weight: 0` never do. */
  trainOn?: TrainOn;
  /** Report templates that rewrite earlier turns (default true; costs one render per message). */
  checkPrefix?: boolean;
  variables?: Record<string, unknown>;
  now?: Date;
  /** Line number issues carry (the row's line in the dataset). */
  line?: number;
  /** How `spans` count: UTF-16 units (default, JS strings), code points (Python `str` slicing) or UTF-8 bytes. */
  offsets?: OffsetUnit;
  /**
   * The work of locating the row's assistant turns (each renders the conversation up to it), in characters rendered,
   * each message counting MESSAGE_RENDER_CHARS more; a row that needs more is not converted (CONVERT_TOO_LONG).
   * Default DEFAULT_MAX_PREFIX_RENDER_CHARS (4,000,000,000: about 10 s).
   */
  maxPrefixRenderChars?: number;
}

export interface TrainingRecord {
  /** Exactly the render of the conversation, without a generation prompt. */
  text: string;
  /** [start, end) ranges of the assistant output that carries loss, in order; UTF-16 units unless `offsets` says otherwise. */
  spans: Span[];
  input_ids?: number[];
  /** `input_ids` inside a span, -100 elsewhere. */
  labels?: number[];
  /** 1 for tokens inside a span, 0 elsewhere. */
  assistant_masks?: number[];
}

export interface TrainingRecordResult {
  /** null exactly when an error issue says why no record could be built. */
  record: TrainingRecord | null;
  issues: ConvertIssue[];
}

/** Markers that end an assistant turn in common templates, beyond the family's own stop strings. */
const commonEndMarkers = ['<|im_end|>', '<|eot_id|>', '<|eom_id|>', '<|end|>', '<|return|>', '<|call|>', '</s>', '<|endoftext|>'];

/**
 * Builds a training record: the rendered text, the spans of assistant output to train on, and with a tokenizer
 * `input_ids` / `labels` / `assistant_masks`. Spans come from the template's `{% generation %}` blocks when it has
 * them, else from render diffing (see spanByDiff); with both, they are checked against each other. A token is
 * trained when its character range overlaps a span by at least one character.
 */
export function toTrainingRecord(input: Conversation, options: TrainingRecordOptions): TrainingRecordResult {
  const line = options.line ?? 0;
  const loaded = options.loaded ?? loadTemplate({ family: options.family, template: options.template, templateName: options.templateName });
  checkTrainOn(options.trainOn ?? 'all');
  try {
    return buildRecord(input, options, loaded, line);
  } catch (error) {
    if (isChatfmtError(error) && runWideCodes.has(error.code)) throw error;
    // Only the prefix renderer's budget says INPUT_TOO_LARGE here: the conversation is too long to locate its turns.
    if (isChatfmtError(error) && error.code === 'INPUT_TOO_LARGE') {
      return { record: null, issues: [issue(line, 'CONVERT_TOO_LONG', 'messages', `${error.message}; split the conversation, or raise the limit (--max-prefix-render-chars)`)] };
    }
    // Whatever one conversation holds (a stack overflow, a chatfmt bug), it costs that row only.
    return { record: null, issues: [rowFailure(line, error)] };
  }
}

/** Errors about the run's configuration, not the row: they end the run. */
const runWideCodes = new Set(['UNKNOWN_FAMILY', 'TEMPLATE_SOURCE', 'TEMPLATE_SYNTAX']);

function buildRecord(input: Conversation, options: TrainingRecordOptions, loaded: LoadedTemplate, line: number): TrainingRecordResult {
  const prepared = prepareForTemplate(input, loaded.family);
  const conversation = prepared.conversation;
  const issues: ConvertIssue[] = rewritesOfWrittenIds(input, prepared.rewrites).map((rewrite) => issue(line, 'TEMPLATE_IDS_REWRITTEN', rewrite.path, rewrite.message));
  // Per-row template arguments (TRL's `chat_template_kwargs`) under the caller's.
  const rowVariables = conversation.chat_template_kwargs;
  const variables = rowVariables && typeof rowVariables === 'object' ? { ...(rowVariables as Record<string, unknown>), ...options.variables } : options.variables;
  let text: string;
  let generationSpans: Span[];
  let hasGenerationBlocks: boolean;
  try {
    const hasTools = Array.isArray(conversation.tools) && conversation.tools.length > 0;
    hasGenerationBlocks = loaded.select(hasTools).hasGenerationBlocks;
    let readsClock: boolean;
    ({ text, generationSpans, readsClock } = renderConversation(loaded, conversation, { addGenerationPrompt: false, variables, now: options.now }));
    if (readsClock && options.now === undefined) {
      issues.push(issue(line, 'TEMPLATE_READS_CLOCK', '', `${loaded.name} writes today's date (strftime_now) into the text, so converting on another day gives other records; give --now <iso> to fix the date`));
    }
  } catch (error) {
    if (!isChatfmtError(error) || error.code === 'UNKNOWN_FAMILY' || error.code === 'TEMPLATE_SOURCE') throw error;
    const message = inContext(loaded.name, error.message);
    return { record: null, issues: [issue(line, 'CONVERT_RENDER_FAILED', 'messages', message)] };
  }

  const messages = conversation.messages;
  const assistantIndices = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const maxChars = options.maxPrefixRenderChars ?? DEFAULT_MAX_PREFIX_RENDER_CHARS;
  // A conversation of thousands of short messages is over the budget on its message count alone: refused unrendered.
  if (leastMessagesRendered(assistantIndices) * MESSAGE_RENDER_CHARS > maxChars) throw prefixBudgetExceeded(messages.length, maxChars);
  const render = prefixRenderer(loaded, conversation, { variables, now: options.now, maxChars });
  // Each turn's span, then its prefix check, while the renders of that turn are in the renderer's memo.
  const prefixCheck = options.checkPrefix !== false ? prefixChangeFinder(render, conversation, text) : undefined;
  const markers = endMarkers(loaded);
  const diffed = new Map<number, DiffSpan | undefined>();
  for (const index of assistantIndices) {
    diffed.set(index, spanByDiff(render, messages, index, text, markers));
    prefixCheck?.check(index);
  }
  const spansByTurn = locateTurns(diffed, assistantIndices, text, generationSpans, hasGenerationBlocks, line, issues);
  append(issues, droppedCallIssues(loaded, messages, diffed, spansByTurn, text, line));

  const trained = selectTurns(messages, assistantIndices, options.trainOn ?? 'all');
  if (trained.length === 0) issues.push(issue(line, 'CONVERT_NO_ASSISTANT', 'messages', 'no assistant turn carries loss'));
  const spans: Span[] = [];
  for (const index of trained) {
    const found = spansByTurn.get(index) ?? [];
    if (found.length) append(spans, found);
    else if (!issues.some((i) => i.code === 'TEMPLATE_DROPS_TOOL_CALLS' && i.path === `messages[${index}].tool_calls`)) issues.push(issue(line, 'CONVERT_SPAN_NOT_FOUND', `messages[${index}]`, `cannot locate assistant turn ${index} in the rendered text`));
  }
  spans.sort((a, b) => a[0] - b[0]);
  // Back-to-back blocks (a turn's text, then the stop token written as the next header) are one stretch of output.
  const joined = spans.reduce<Span[]>((out, span) => {
    const last = out[out.length - 1];
    if (last && last[1] === span[0]) last[1] = span[1];
    else out.push([span[0], span[1]]);
    return out;
  }, []);

  if (prefixCheck) {
    for (const change of prefixCheck.changes) {
      const step = change.seenAs === 'prompt' ? `the prompt for turn ${change.assistantIndex}` : `turn ${change.assistantIndex} as generated`;
      issues.push(
        issue(line, 'CONVERT_NOT_PREFIX_PRESERVING', `messages[${change.messageIndex}]`,
          `${loaded.name} renders this ${change.role} message differently in the full conversation than in ${step} (${JSON.stringify(change.before)} became ${JSON.stringify(change.after)}): the training text is not what the model saw at inference`),
      );
    }
  }
  if (issues.some((i) => i.severity === 'error')) return { record: null, issues };
  const record: TrainingRecord = { text, spans: options.offsets && options.offsets !== 'utf16' ? convertSpans(text, joined, options.offsets) : joined };
  if (options.tokenizer) {
    const tokens = tokenize(options.tokenizer, text, joined, line, issues);
    if (!tokens) return { record: null, issues };
    Object.assign(record, tokens);
  }
  return { record, issues };
}

/**
 * Each assistant turn's spans. With generation blocks, each block goes to the turn whose diff span it overlaps (a
 * template may write one message as several blocks: DeepSeek-R1 puts content after the calls), or by order when the
 * counts match; diffs cross-check the blocks' extent where the diff is exact. Without blocks, the diff spans.
 */
function locateTurns(
  diffed: Map<number, DiffSpan | undefined>,
  assistantIndices: number[],
  text: string,
  generationSpans: Span[],
  hasGenerationBlocks: boolean,
  line: number,
  issues: ConvertIssue[],
): Map<number, Span[]> {
  const byTurn = new Map<number, Span[]>(assistantIndices.map((index) => [index, []]));
  if (!hasGenerationBlocks) {
    for (const index of assistantIndices) {
      const found = diffed.get(index);
      if (found) byTurn.get(index)!.push(found.span);
    }
    return byTurn;
  }
  const blocks = generationSpans.filter(([s, e]) => e > s);
  blocks.forEach((block, k) => {
    const owners = assistantIndices.filter((index) => {
      const found = diffed.get(index);
      return found !== undefined && overlaps(block[0], block[1], found.span[0], found.span[1]);
    });
    const owner = owners.length === 1 ? owners[0] : blocks.length === assistantIndices.length ? assistantIndices[k] : undefined;
    if (owner !== undefined) byTurn.get(owner)!.push(block);
    else issues.push(issue(line, 'CONVERT_SPANS_DISAGREE', 'messages', `the generation block ${clipForMessage(text.slice(block[0], block[1]), 60, JSON.stringify)} matches no single assistant turn; left out`));
  });
  for (const index of assistantIndices) {
    const marked = byTurn.get(index)!;
    const found = diffed.get(index);
    if (!found || (found.method !== 'prompt' && found.method !== 'header')) continue;
    const extent: Span | undefined = marked.length ? [marked[0]![0], marked.at(-1)![1]] : undefined;
    if (!extent || extent[0] !== found.span[0] || extent[1] !== found.span[1]) {
      const show = (span: Span | undefined) => (span ? clipForMessage(text.slice(span[0], span[1]), 60, JSON.stringify) : 'nothing');
      issues.push(issue(line, 'CONVERT_SPANS_DISAGREE', `messages[${index}]`,
        `{% generation %} marks ${show(extent)} but the render diff finds ${show(found.span)}; using the generation blocks`));
    }
  }
  return byTurn;
}

/**
 * Each tool-call turn must show its calls: the turn's generation blocks, else the turn as the render diff finds it
 * (which can reach into later messages the turn changes, such as gpt-oss's tool results naming the call), else
 * nothing (a turn the template leaves out entirely).
 */
function droppedCallIssues(loaded: LoadedTemplate, messages: Message[], diffed: Map<number, DiffSpan | undefined>, byTurn: Map<number, Span[]>, text: string, line: number): ConvertIssue[] {
  const issues: ConvertIssue[] = [];
  messages.forEach((message, index) => {
    const calls = message.role === 'assistant' ? message.tool_calls : undefined;
    if (!calls?.length) return;
    const blocks = byTurn.get(index) ?? [];
    const found = diffed.get(index)?.span;
    const turnText = blocks.length ? blocks.map(([start, end]) => text.slice(start, end)).join('') : found ? text.slice(found[0], found[1]) : '';
    const dropped = droppedCalls(turnText, calls);
    if (dropped.length) issues.push(issue(line, 'TEMPLATE_DROPS_TOOL_CALLS', `messages[${index}].tool_calls`, droppedCallsMessage(loaded.name, calls, dropped)));
  });
  return issues;
}

function checkTrainOn(trainOn: TrainOn): void {
  if (trainOn !== 'all' && trainOn !== 'last') throw new ChatfmtError('INPUT_INVALID', `trainOn must be "all" or "last", not ${JSON.stringify(trainOn)}`);
}

function selectTurns(messages: Message[], assistantIndices: number[], trainOn: TrainOn): number[] {
  const candidates = trainOn === 'last' ? assistantIndices.slice(-1) : assistantIndices;
  // OpenAI's `weight: 0` and axolotl's `train: false` opt a turn out.
  // `weight: 0.0` is read as a Python float (PyFloat): compare numbers, not representations.
  return candidates.filter((i) => !isZero(messages[i]!.weight) && messages[i]!.train !== false);
}

function isZero(value: unknown): boolean {
  return value === 0 || (value instanceof PyFloat && value.value === 0);
}

function endMarkers(loaded: LoadedTemplate): string[] {
  const own = loaded.family ? familyInfo[loaded.family].stopStrings : [];
  const eos = loaded.specialTokens.eos_token;
  return [...new Set([...own, ...(eos ? [eos] : []), ...commonEndMarkers])];
}

function tokenize(tokenizer: ChatTokenizer, text: string, spans: Span[], line: number, issues: ConvertIssue[]): Pick<TrainingRecord, 'input_ids' | 'labels' | 'assistant_masks'> | undefined {
  let encoded;
  let decoded;
  try {
    encoded = tokenizer.encode(text);
    decoded = tokenizer.decode(encoded.ids);
  } catch (error) {
    const timedOut = isChatfmtError(error) && error.code === 'TOKENIZER_TIMEOUT';
    issues.push(issue(line, timedOut ? 'TOKENS_TIMEOUT' : 'CONVERT_TOKENIZE_FAILED', '', (error as Error).message));
    return undefined;
  }
  if (decoded !== text) {
    const at = commonPrefixLength(text, decoded);
    issues.push(issue(line, 'CONVERT_TOKENIZE_FAILED', '', `${tokenizer.name}: decoding the tokens does not give the text back (they part at character ${at}; does the tokenizer normalise the text?)`));
    return undefined;
  }
  const labels: number[] = [];
  const masks: number[] = [];
  let s = 0;
  encoded.ids.forEach((id, t) => {
    const [start, end] = encoded.offsets[t]!;
    while (s < spans.length && spans[s]![1] <= start) s++;
    const inside = s < spans.length && overlaps(start, end, spans[s]![0], spans[s]![1]);
    labels.push(inside ? id : -100);
    masks.push(inside ? 1 : 0);
  });
  return { input_ids: encoded.ids, labels, assistant_masks: masks };
}
