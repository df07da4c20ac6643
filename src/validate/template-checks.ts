import { isChatfmtError } from '../errors.js';
import { familyInfo, type FamilyId } from '../families/info.js';
import { loadTemplate } from '../node/load.js';
import { renderConversation, inspectTemplate, type LoadedTemplate, type RenderOptions, type RenderResult } from '../render/index.js';
import { prepareForTemplate } from '../render/family-call-ids.js';
import { backOffMarker } from '../render/render-prefixes.js';
import { importRow } from '../convert/importers/index.js';
import { rewritesOfWrittenIds } from '../convert/minted-ids.js';
import { parse } from '../parse/index.js';
import type { Conversation, Message, ParsedMessage, Tool } from '../types.js';
import { makeIssue, type DatasetIssue } from '../readers/issues.js';
import { joinPath } from '../readers/paths.js';
import { canonicalJson } from './checks/tool-schemas.js';
import { isPlainObject } from '../util/guards.js';
import type { CallView, RowView, TurnView } from './checks/view.js';
import { createTokenCheck } from './token-checks.js';

/** Options for the checks that need a template (and optionally a tokenizer). Plain data (sent to workers). */
export interface TemplateCheckOptions {
  family?: string;
  template?: string;
  templateName?: string;
  /** Round-trip each assistant tool-call turn through the family parser (default true when the family is known). */
  roundTrip?: boolean;
  /** A tokenizer folder (tokenizer.json + tokenizer_config.json) for --max-length checks. */
  tokenizer?: string;
  maxLength?: number;
  /** Template variables (`enable_thinking: false`), as `convert --var` passes them. */
  variables?: Record<string, unknown>;
  /** ISO time for strftime_now (a string: options travel to worker threads). */
  now?: string;
}

export interface TemplateChecker {
  /** `row` is the parsed row the view was made from: rendering starts from the importer's canonical form of it. */
  check(view: RowView, row: unknown, line: number): DatasetIssue[];
}

// Rendering must not depend on the clock: strftime_now-using templates would differ run to run.
const FIXED_NOW = new Date('2026-01-01T00:00:00Z');

export async function createTemplateChecker(options: TemplateCheckOptions): Promise<TemplateChecker | undefined> {
  if (options.family === undefined && options.template === undefined) return undefined;
  const loaded = loadTemplate({ family: options.family, template: options.template, templateName: options.templateName });
  // Compile now: a template with a syntax error is a usage error, not the same issue on every row.
  loaded.select(false);
  loaded.select(true);
  const family: FamilyId | undefined = loaded.family;
  const roundTrip = options.roundTrip !== false && family !== undefined;
  const tokens = options.tokenizer !== undefined && options.maxLength !== undefined ? await createTokenCheck(options.tokenizer, options.maxLength) : undefined;
  const renderOptions = { args: 'auto' as const, now: options.now ? new Date(options.now) : FIXED_NOW, variables: options.variables };
  return {
    check(view, row, line) {
      const issues: DatasetIssue[] = [];
      formWarnings(loaded, view, line, issues);
      // The conversation `convert` would render for this row: one normalisation path for both commands.
      const imported = importRow(row, view.shape, line).conversation;
      if (!imported) return issues;
      const prepared = prepareForTemplate(imported, family);
      const callTurns = view.turns.filter((turn) => turn.kind === 'calls');
      for (const rewrite of rewritesOfWrittenIds(imported, prepared.rewrites)) issues.push(makeIssue(line, 'TEMPLATE_IDS_REWRITTEN', viewPath(rewrite.path, prepared.conversation, callTurns, view), rewrite.message));
      const conversation = prepared.conversation;
      let rendered: RenderResult;
      try {
        rendered = renderConversation(loaded, conversation, renderOptions);
      } catch (error) {
        issues.push(makeIssue(line, 'TEMPLATE_ERROR', '', `template ${loaded.name} fails on this row: ${errorText(error)}`));
        return issues;
      }
      if (roundTrip) issues.push(...roundTripIssues(loaded, family!, conversation, callTurns, view, rendered, renderOptions, line));
      if (tokens) issues.push(...tokens.check(rendered, () => assistantSpans(loaded, conversation, rendered, renderOptions), line));
      return issues;
    },
  };
}

/** The row's own path for a path into the imported conversation: the k-th tool-call turn is the view's k-th. */
function viewPath(path: string, conversation: Conversation, callTurns: TurnView[], view: RowView): string {
  const index = Number(/^messages\[(\d+)\]/.exec(path)?.[1] ?? -1);
  const ordinal = callMessageIndexes(conversation).indexOf(index);
  const turn = callTurns[ordinal];
  if (!turn) return path;
  const own = view.messagePath(turn.message);
  return view.shape === 'openai' ? own + path.slice(path.indexOf(']') + 1) : own;
}

function callMessageIndexes(conversation: Conversation): number[] {
  return conversation.messages.flatMap((m, i) => (m.role === 'assistant' && m.tool_calls?.length ? [i] : []));
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = isChatfmtError(error) ? `${error.code}: ` : '';
  // Cut first: the message may quote row text, and the whitespace fold must stay linear.
  return code + message.slice(0, 500).replace(/\s*\n\s*/g, ' ');
}

/** Where the raw row would make the template double-encode or crash; `auto` fixes it, so these are warnings. */
function formWarnings(loaded: LoadedTemplate, view: RowView, line: number, issues: DatasetIssue[]): void {
  const messages = view.conversation.messages;
  const hasTools = Array.isArray(view.conversation.tools) && view.conversation.tools.length > 0;
  let needs;
  try {
    needs = inspectTemplate(loaded.select(hasTools), loaded.specialTokens);
  } catch {
    return;
  }
  // ShareGPT stores calls as JSON text: the argument form a template gets is the converter's choice, not the row's.
  if (needs.argumentsForm !== 'either' && view.shape === 'openai') {
    const wrong = firstCall(view, (call) => (needs.argumentsForm === 'object' ? typeof call.args === 'string' : isPlainObject(call.args)));
    if (wrong) {
      const why =
        needs.argumentsForm === 'object'
          ? 'the template wants arguments as an object; this JSON string would be double-encoded or crash it'
          : 'the template concatenates arguments as a JSON string; this object would crash it or render as [object Map]';
      issues.push(makeIssue(line, 'TEMPLATE_ARGS_FORM', wrong.argsPath, `${why} (chatfmt's auto mode converts it)`));
    }
  }
  if (needs.nullContentNeedsString) {
    const index = messages.findIndex((m) => isPlainObject(m) && m.content === null);
    if (index !== -1) {
      issues.push(makeIssue(line, 'TEMPLATE_NULL_CONTENT', joinPath(view.messagePath(index), 'content'), 'content null makes this template crash or print "None" (chatfmt\'s auto mode uses "")'));
    }
  }
}

function firstCall(view: RowView, predicate: (call: CallView) => boolean): CallView | undefined {
  for (const turn of view.turns) if (turn.kind === 'calls') for (const call of turn.calls) if (predicate(call)) return call;
  return undefined;
}

/**
 * For each assistant tool-call turn: the text the model would generate for it, cut from the render, parsed
 * back with the family parser (the prompt before it as prefix) must give the same calls.
 */
function roundTripIssues(
  loaded: LoadedTemplate,
  family: FamilyId,
  conversation: Conversation,
  callTurns: TurnView[],
  view: RowView,
  rendered: RenderResult,
  renderOptions: RenderOptions,
  line: number,
): DatasetIssue[] {
  const issues: DatasetIssue[] = [];
  const messages = conversation.messages;
  const tools: Tool[] | null = conversation.tools ?? null;
  const assistantIndexes = messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const spansAlign = rendered.generationSpans.length === assistantIndexes.length;
  callMessageIndexes(conversation).forEach((index, ordinal) => {
    const turn = callTurns[ordinal];
    const where = turn ? view.messagePath(turn.message) : `messages[${index}]`;
    let cut: { prefix: string; completion: string } | undefined;
    try {
      cut = spansAlign ? spanCut(rendered, rendered.generationSpans[assistantIndexes.indexOf(index)]!) : promptCut(loaded, conversation, index, renderOptions);
    } catch (error) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', where, `cannot isolate this turn's generated text: ${errorText(error)}`));
      return;
    }
    if (!cut) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', where, 'the render with this turn adds nothing after the prompt: the template drops the turn'));
      return;
    }
    const completion = cutAtStop(cut.completion, family);
    let parsed: ParsedMessage;
    try {
      parsed = parse(completion, { family, tools, prefix: cut.prefix });
    } catch (error) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', where, `the ${family} parser failed on the rendered turn: ${errorText(error)}`));
      return;
    }
    const expected = (messages[index]!.tool_calls ?? []).map((call, k) => {
      const own = turn?.kind === 'calls' ? turn.calls[k] : undefined;
      return { name: call.function.name, args: call.function.arguments, namePath: own?.namePath ?? where, argsPath: own?.argsPath ?? where };
    });
    const problem = compareCalls(expected, parsed);
    if (problem) issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', problem.path ?? where, problem.message));
  });
  return issues;
}

function spanCut(rendered: RenderResult, span: [number, number]): { prefix: string; completion: string } {
  return { prefix: rendered.text.slice(0, span[0]), completion: rendered.text.slice(span[0], span[1]) };
}

/**
 * Without usable generation spans: the prompt is the render up to the turn, with the generation prompt. Some
 * templates open the turn differently in a prompt than in history (DeepSeek-R1 prompts with `<think>\n`), so
 * the cut is where the prompt and the render with the turn stop agreeing. (Text before the turn that lands in
 * the completion, such as DeepSeek's `<｜tool▁outputs▁end｜>`, is plain content to the parser: calls still compare.)
 */
function promptCut(loaded: LoadedTemplate, conversation: Conversation, index: number, renderOptions: RenderOptions): { prefix: string; completion: string } | undefined {
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
function cutAtStop(text: string, family: FamilyId): string {
  let end = text.length;
  for (const stop of familyInfo[family].stopStrings) {
    const at = text.indexOf(stop);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}

type ExpectedCall = { name: string; args: unknown; namePath: string; argsPath: string };

function compareCalls(expected: ExpectedCall[], parsed: ParsedMessage): { path?: string; message: string } | undefined {
  const got = parsed.tool_calls ?? [];
  const diagnostic = parsed.diagnostics?.[0];
  const note = diagnostic ? ` (parser: ${diagnostic.code}: ${diagnostic.message})` : '';
  if (got.length !== expected.length) {
    const names = got.map((c) => c.function.name).join(', ') || 'none';
    return { message: `parsing the rendered turn gives ${got.length} call(s) [${names}] instead of ${expected.length}${note}` };
  }
  for (let k = 0; k < expected.length; k++) {
    const want = expected[k]!;
    const call = got[k]!;
    if (call.function.name !== want.name) {
      return { path: want.namePath, message: `parsing the rendered turn gives call "${call.function.name}" instead of "${String(want.name)}"${note}` };
    }
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      args = call.function.arguments;
    }
    const wantArgs = typeof want.args === 'string' ? safeParse(want.args) : want.args;
    if (canonicalJson(args) !== canonicalJson(wantArgs ?? {})) {
      return { path: want.argsPath, message: `parsing the rendered turn gives different arguments: ${truncate(call.function.arguments)}${note}` };
    }
  }
  return undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Character spans of the assistant turns in the render: generation spans, or prompt/turn renders as fallback. */
function assistantSpans(loaded: LoadedTemplate, conversation: Conversation, rendered: RenderResult, renderOptions: RenderOptions): Array<[number, number]> {
  if (rendered.generationSpans.length > 0) return rendered.generationSpans;
  const spans: Array<[number, number]> = [];
  conversation.messages.forEach((message: Message, index) => {
    if (!isPlainObject(message) || message.role !== 'assistant') return;
    const cut = promptCut(loaded, conversation, index, renderOptions);
    if (cut) spans.push([cut.prefix.length, cut.prefix.length + cut.completion.length]);
  });
  return spans;
}
