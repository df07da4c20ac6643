import { isChatfmtError } from '../errors.js';
import { familyInfo, type FamilyId } from '../families/info.js';
import { loadTemplate, renderConversation, inspectTemplate, type LoadedTemplate, type RenderResult } from '../render/index.js';
import { parse } from '../parse/index.js';
import type { Conversation, Message, ParsedMessage, Tool } from '../types.js';
import { makeIssue, type DatasetIssue } from './issues.js';
import { joinPath } from './paths.js';
import { canonicalJson } from './checks/tool-schemas.js';
import { isPlainObject } from '../util/guards.js';
import type { CallView, RowView } from './checks/view.js';
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
}

export interface TemplateChecker {
  check(view: RowView, line: number): DatasetIssue[];
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
  return {
    check(view, line) {
      const issues: DatasetIssue[] = [];
      formWarnings(loaded, view, line, issues);
      const conversation = view.conversation as Conversation;
      let rendered: RenderResult;
      try {
        rendered = renderConversation(loaded, conversation, { args: 'auto', now: FIXED_NOW });
      } catch (error) {
        issues.push(makeIssue(line, 'TEMPLATE_ERROR', '', `template ${loaded.name} fails on this row: ${errorText(error)}`));
        return issues;
      }
      if (roundTrip) issues.push(...roundTripIssues(loaded, family!, view, rendered, line));
      if (tokens) issues.push(...tokens.check(rendered, () => assistantSpans(loaded, view.conversation, rendered), line));
      return issues;
    },
  };
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
    needs = inspectTemplate(loaded.select(hasTools));
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
function roundTripIssues(loaded: LoadedTemplate, family: FamilyId, view: RowView, rendered: RenderResult, line: number): DatasetIssue[] {
  const issues: DatasetIssue[] = [];
  const messages = view.conversation.messages;
  const tools: Tool[] | null = view.conversation.tools ?? null;
  const assistantIndexes = messages.flatMap((m, i) => (isPlainObject(m) && m.role === 'assistant' ? [i] : []));
  const spansAlign = rendered.generationSpans.length === assistantIndexes.length;
  for (const turn of view.turns) {
    if (turn.kind !== 'calls') continue;
    let cut: { prefix: string; completion: string } | undefined;
    try {
      cut = spansAlign
        ? spanCut(rendered, rendered.generationSpans[assistantIndexes.indexOf(turn.message)]!)
        : promptCut(loaded, view.conversation, turn.message);
    } catch (error) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', view.messagePath(turn.message), `cannot isolate this turn's generated text: ${errorText(error)}`));
      continue;
    }
    if (!cut) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', view.messagePath(turn.message), 'the render with this turn adds nothing after the prompt: the template drops the turn'));
      continue;
    }
    const completion = cutAtStop(cut.completion, family);
    let parsed: ParsedMessage;
    try {
      parsed = parse(completion, { family, tools, prefix: cut.prefix });
    } catch (error) {
      issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', view.messagePath(turn.message), `the ${family} parser failed on the rendered turn: ${errorText(error)}`));
      continue;
    }
    const problem = compareCalls(turn.calls, parsed);
    if (problem) issues.push(makeIssue(line, 'ROUNDTRIP_MISMATCH', problem.path ?? view.messagePath(turn.message), problem.message));
  }
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
function promptCut(loaded: LoadedTemplate, conversation: RowView['conversation'], index: number): { prefix: string; completion: string } | undefined {
  const head = { ...conversation, messages: conversation.messages.slice(0, index) } as Conversation;
  const upTo = { ...conversation, messages: conversation.messages.slice(0, index + 1) } as Conversation;
  const prompt = renderConversation(loaded, head, { args: 'auto', addGenerationPrompt: true, now: FIXED_NOW }).text;
  const full = renderConversation(loaded, upTo, { args: 'auto', now: FIXED_NOW }).text;
  let common = 0;
  const limit = Math.min(prompt.length, full.length);
  while (common < limit && prompt.charCodeAt(common) === full.charCodeAt(common)) common++;
  if (common === full.length) return undefined;
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

function compareCalls(expected: CallView[], parsed: ParsedMessage): { path?: string; message: string } | undefined {
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
function assistantSpans(loaded: LoadedTemplate, conversation: RowView['conversation'], rendered: RenderResult): Array<[number, number]> {
  if (rendered.generationSpans.length > 0) return rendered.generationSpans;
  const spans: Array<[number, number]> = [];
  conversation.messages.forEach((message: Message, index) => {
    if (!isPlainObject(message) || message.role !== 'assistant') return;
    const cut = promptCut(loaded, conversation, index);
    if (cut) spans.push([cut.prefix.length, cut.prefix.length + cut.completion.length]);
  });
  return spans;
}
