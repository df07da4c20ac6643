import type { Message, ToolCall } from '../../types.js';
import { issue, type ConvertIssue } from '../issues.js';
import { isPlainObject, lookupTable } from '../../util/guards.js';
import { decodeJsonField, preview } from '../loose-json.js';
import { importTools } from '../tool-schema.js';
import { CallLedger, readCall, resultText, toolMessage } from './calls.js';
import { finish, type ImportResult } from './types.js';
import { append } from '../../util/append.js';

/** The ShareGPT turn kinds LLaMA-Factory defines, plus the OpenAI role names some datasets use as tags. */
type TurnKind = 'user' | 'assistant' | 'system' | 'call' | 'result';
const turnKinds = lookupTable<TurnKind>({
  human: 'user',
  user: 'user',
  gpt: 'assistant',
  assistant: 'assistant',
  system: 'system',
  function_call: 'call',
  observation: 'result',
  tool: 'result',
});

export interface ShareGptTurn {
  kind: TurnKind;
  value: unknown;
  path: string;
}

/**
 * Reads the turns of a ShareGPT row (`conversations` with `from`/`value`, or `messages` with `role`/`content`),
 * checking what every ShareGPT variant shares. Returns undefined (with an issue) when there is nothing to read.
 */
export function readShareGptTurns(row: unknown, line: number, issues: ConvertIssue[]): ShareGptTurn[] | undefined {
  if (!isPlainObject(row)) {
    issues.push(issue(line, 'IMPORT_BAD_ROW', '', 'a row must be a JSON object'));
    return undefined;
  }
  const key = Array.isArray(row.conversations) ? 'conversations' : Array.isArray(row.messages) ? 'messages' : undefined;
  if (!key) {
    issues.push(issue(line, 'IMPORT_BAD_ROW', 'conversations', 'a ShareGPT row needs a "conversations" list'));
    return undefined;
  }
  const turns: ShareGptTurn[] = [];
  (row[key] as unknown[]).forEach((turn, index) => {
    const path = `${key}[${index}]`;
    if (!isPlainObject(turn)) {
      issues.push(issue(line, 'IMPORT_BAD_ROW', path, 'a turn must be an object'));
      return;
    }
    // `conversations` turns are tagged by `from`, `messages` turns by `role`; a turn may use either.
    const tagKey = 'from' in turn ? 'from' : 'role' in turn || key === 'messages' ? 'role' : 'from';
    const tag = turn[tagKey];
    if (typeof tag !== 'string') {
      const problem = tag === undefined ? `a turn needs a "${tagKey}" tag` : `a turn's "${tagKey}" must be a string, not ${tag === null ? 'null' : Array.isArray(tag) ? 'a list' : typeof tag}`;
      issues.push(issue(line, 'IMPORT_UNKNOWN_ROLE', `${path}.${tagKey}`, problem));
      return;
    }
    const kind = turnKinds[tag];
    if (!kind) {
      issues.push(issue(line, 'IMPORT_UNKNOWN_ROLE', `${path}.${tagKey}`, `unknown turn tag ${preview(tag)}`));
      return;
    }
    const valueKey = 'value' in turn ? 'value' : 'content';
    turns.push({ kind, value: turn[valueKey], path: `${path}.${valueKey}` });
  });
  return turns;
}

/** LLaMA-Factory's positional rule: user/result turns at even positions, assistant/call turns at odd, even count. */
export function checkPositions(turns: ShareGptTurn[], line: number, issues: ConvertIssue[]): void {
  const body = turns[0]?.kind === 'system' ? turns.slice(1) : turns;
  const bad = body.findIndex((turn, i) => (i % 2 === 0 ? turn.kind !== 'user' && turn.kind !== 'result' : turn.kind !== 'assistant' && turn.kind !== 'call'));
  if (bad >= 0 || body.length % 2 !== 0) {
    const at = bad >= 0 ? body[bad]!.path : 'conversations';
    issues.push(issue(line, 'IMPORT_ROLE_ORDER', at, 'turn order breaks LLaMA-Factory\'s alternation (LLaMA-Factory would skip this row); converted as written', 'warning'));
  }
}

/** Imports a LLaMA-Factory ShareGPT row: function_call / observation turns, `tools` as a JSON string. */
export function importShareGpt(row: unknown, line: number): ImportResult {
  const issues: ConvertIssue[] = [];
  const turns = readShareGptTurns(row, line, issues);
  if (!turns) return finish([], [], issues);
  const record = row as Record<string, unknown>;
  const { tools, issues: toolIssues } = importTools(record.tools, line, 'tools');
  append(issues, toolIssues);
  // Only worth a warning on a row that converts: a broken row already says what is wrong with it.
  if (!issues.some((i) => i.severity === 'error')) checkPositions(turns, line, issues);

  const messages: Message[] = [];
  if (typeof record.system === 'string' && record.system !== '') messages.push({ role: 'system', content: record.system });
  const ledger = new CallLedger();
  for (const turn of turns) {
    if (turn.kind !== 'result' && ledger.waiting > 0 && messages.at(-1)?.role === 'tool') {
      issues.push(issue(line, 'IMPORT_RESULT_COUNT', turn.path, `${ledger.waiting} call(s) got no result`, 'warning'));
      while (ledger.answer());
    }
    if (turn.kind === 'call') {
      const calls = readCalls(turn, ledger, line, issues);
      if (calls) {
        ledger.opened(calls);
        messages.push({ role: 'assistant', content: null, tool_calls: calls });
      }
    } else if (turn.kind === 'result') {
      append(messages, readResults(turn, ledger, line, issues));
    } else if (typeof turn.value !== 'string') {
      issues.push(issue(line, 'IMPORT_BAD_ROW', turn.path, 'a turn value must be a string'));
    } else {
      messages.push({ role: turn.kind, content: turn.value });
    }
  }
  return finish(messages, tools, issues, line, ledger.minted);
}

function readCalls(turn: ShareGptTurn, ledger: CallLedger, line: number, issues: ConvertIssue[]): ToolCall[] | undefined {
  const decoded = decodeJsonField(turn.value);
  if (!decoded.ok) {
    issues.push(issue(line, 'IMPORT_BAD_JSON', turn.path, `function_call is not JSON: ${decoded.error}`));
    return undefined;
  }
  const list = Array.isArray(decoded.value) ? decoded.value : [decoded.value];
  if (list.length === 0) {
    issues.push(issue(line, 'IMPORT_BAD_CALL', turn.path, 'function_call holds no call'));
    return undefined;
  }
  const calls: ToolCall[] = [];
  list.forEach((value, index) => {
    const call = readCall(value, ledger.newId(), line, Array.isArray(decoded.value) ? `${turn.path}[${index}]` : turn.path, issues);
    if (call) calls.push(call);
  });
  return calls.length === list.length ? calls : undefined;
}

/**
 * One observation answers the calls of the function_call before it. For parallel calls the results may come as a
 * JSON list with one entry per call; otherwise the whole text answers the next waiting call.
 */
function readResults(turn: ShareGptTurn, ledger: CallLedger, line: number, issues: ConvertIssue[]): Message[] {
  if (ledger.waiting === 0) {
    issues.push(issue(line, 'IMPORT_ORPHAN_RESULT', turn.path, 'a tool result with no call before it'));
    return [];
  }
  if (ledger.waiting > 1) {
    const decoded = typeof turn.value === 'string' ? decodeJsonField(turn.value) : { ok: true as const, value: turn.value };
    if (decoded.ok && Array.isArray(decoded.value) && decoded.value.length === ledger.waiting) {
      return decoded.value.map((result) => toolMessage(resultText(result), ledger.answer()));
    }
  }
  return [toolMessage(resultText(turn.value), ledger.answer())];
}
