import type { ToolCall } from '../../types.js';
import { issue, type ConvertIssue } from '../issues.js';
import { isPlainObject } from '../../util/guards.js';
import { decodeJsonField } from '../loose-json.js';
import { importTools } from '../tool-schema.js';
import { CallLedger, readCall } from './calls.js';
import { finish, type ImportResult } from './types.js';
import { recordSourcePaths } from '../source-paths.js';
import { append } from '../../util/append.js';

/**
 * Imports an xLAM / APIGen row: `query`, and `tools` / `answers` as JSON strings. The result is one user turn and
 * one assistant turn with the calls (xLAM has no tool results or final answers). Parameter pseudo-types become
 * JSON Schema; a parameter is required unless its type says optional or it has a default.
 */
export function importXlam(row: unknown, line: number): ImportResult {
  const issues: ConvertIssue[] = [];
  if (!isPlainObject(row)) return finish([], [], [issue(line, 'IMPORT_BAD_ROW', '', 'a row must be a JSON object')]);
  if (typeof row.query !== 'string' || row.query === '') {
    return finish([], [], [issue(line, 'IMPORT_BAD_ROW', 'query', 'an xLAM row needs a non-empty "query" string')]);
  }
  const { tools, issues: toolIssues } = importTools(row.tools, line, 'tools');
  append(issues, toolIssues);
  const calls = readAnswers(row.answers, line, issues);
  const messages = [{ role: 'user', content: row.query }, ...(calls ? [{ role: 'assistant', content: null, tool_calls: calls }] : [])];
  // xLAM has no call ids: every one is made up.
  const result = finish(messages, tools, issues, line, new Set(calls?.map((call) => call.id!) ?? []));
  if (result.conversation) recordSourcePaths(result.conversation, { turns: 'answers', messages: ['query', 'answers'], tools: 'tools', call: (message, k) => (message === 1 ? `answers[${k}]` : undefined) });
  return result;
}

function readAnswers(value: unknown, line: number, issues: ConvertIssue[]): ToolCall[] | undefined {
  const decoded = decodeJsonField(value);
  if (value === undefined || !decoded.ok) {
    issues.push(issue(line, 'IMPORT_BAD_JSON', 'answers', decoded.ok ? 'an xLAM row needs "answers"' : `answers is not JSON: ${decoded.error}`));
    return undefined;
  }
  if (!Array.isArray(decoded.value) || decoded.value.length === 0) {
    issues.push(issue(line, 'IMPORT_BAD_CALL', 'answers', 'answers must be a non-empty list of calls'));
    return undefined;
  }
  const ledger = new CallLedger();
  const calls: ToolCall[] = [];
  decoded.value.forEach((answer, index) => {
    const call = readCall(answer, ledger.newId(), line, `answers[${index}]`, issues);
    if (call) calls.push(call);
  });
  return calls;
}
