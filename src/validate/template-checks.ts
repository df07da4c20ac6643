import { isChatfmtError } from '../errors.js';
import { familyInfo, type FamilyId } from '../families/info.js';
import { loadTemplate } from '../node/load.js';
import { renderConversation, inspectTemplate, type LoadedTemplate, type RenderOptions, type RenderResult } from '../render/index.js';
import { prepareForTemplate } from '../render/family-call-ids.js';
import { droppedCalls, droppedCallsMessage } from '../convert/dropped-calls.js';
import { cutAtStop, cutCallTurns, promptCut, type CallTurnCut } from './call-turn-cuts.js';
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
import { append } from '../util/append.js';
import { clipForMessage } from '../util/utf16.js';

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
      const cuts = cutCallTurns(loaded, conversation, callTurns, view, rendered, renderOptions, errorText);
      const shown = cuts.filter((turn) => !droppedCallsIssue(loaded, turn, line, issues));
      if (rendered.readsClock && options.now === undefined) issues.push(makeIssue(line, 'TEMPLATE_READS_CLOCK', '', readsClockMessage(loaded.name)));
      if (roundTrip) append(issues, roundTripIssues(family!, conversation, shown, line));
      else if (shown.length > 0 && options.roundTrip !== false) issues.push(makeIssue(line, 'ROUNDTRIP_SKIPPED', '', roundTripSkipped(loaded)));
      if (tokens) append(issues, tokens.check(rendered, () => assistantSpans(loaded, conversation, rendered, renderOptions), line));
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
  return code + clipForMessage(message, 500, String).replace(/\s*\n\s*/g, ' ');
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
 * For each assistant tool-call turn the template shows: the text the model would generate for it, cut from the
 * render, parsed back with the family parser (the prompt before it as prefix) must give the same calls.
 */
function roundTripIssues(family: FamilyId, conversation: Conversation, turns: CallTurnCut[], line: number): DatasetIssue[] {
  const issues: DatasetIssue[] = [];
  const tools: Tool[] | null = conversation.tools ?? null;
  for (const { index, turn, where, cut, failure } of turns) {
    if (!cut) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', where, `cannot isolate this turn's generated text: ${failure ?? 'the render with this turn adds nothing after the prompt'}`));
      continue;
    }
    const completion = cutAtStop(cut.completion, familyInfo[family].stopStrings);
    let parsed: ParsedMessage;
    try {
      parsed = parse(completion, { family, tools, prefix: cut.prefix });
    } catch (error) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', where, `the ${family} parser failed on the rendered turn: ${errorText(error)}`));
      continue;
    }
    const expected = (conversation.messages[index]!.tool_calls ?? []).map((call, k) => {
      const own = turn?.kind === 'calls' ? turn.calls[k] : undefined;
      return { name: call.function.name, args: call.function.arguments, namePath: own?.namePath ?? where, argsPath: own?.argsPath ?? where };
    });
    const problem = compareCalls(expected, parsed);
    if (problem) issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', problem.path ?? where, problem.message));
  }
  return issues;
}

/** A tool-call turn whose render shows none of a call is an error whatever the parser: the calls are not trained. */
function droppedCallsIssue(loaded: LoadedTemplate, { calls, turn, where, cut, failure }: CallTurnCut, line: number, issues: DatasetIssue[]): boolean {
  if (failure !== undefined) return false;
  const dropped = droppedCalls(cut?.completion ?? '', calls);
  if (dropped.length === 0) return false;
  const path = turn?.kind === 'calls' && dropped.length === 1 ? (turn.calls[dropped[0]!]?.namePath ?? where) : where;
  issues.push(makeIssue(line, 'TEMPLATE_DROPS_TOOL_CALLS', path, droppedCallsMessage(loaded.name, calls, dropped)));
  return true;
}

function readsClockMessage(name: string): string {
  return `${name} writes the current date (strftime_now) into the text, so converting this data gives other text on another day; give --now <iso> to fix the date (checked here as ${FIXED_NOW.toISOString()}; reported once)`;
}

function roundTripSkipped(loaded: LoadedTemplate): string {
  return `${loaded.name} is not a family chatfmt parses, so tool-call turns were checked only for showing their calls, not parsed back (give --family for the round trip, or --no-round-trip to silence this; reported once)`;
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
  return clipForMessage(text, 200, String);
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
