import { makeIssue, type DatasetIssue } from '../../readers/issues.js';
import type { CallView, ResultView, RowView } from './view.js';

interface CallGroup {
  calls: CallView[];
  answered: boolean[];
  results: number;
  outOfOrderReported: boolean;
  /**
   * Indexes that keep matching linear in the turn's size: each result used to scan the calls from the start (by id,
   * for the first unanswered one and for an earlier unanswered one), so 32,000 parallel calls and their results took
   * 7 s. `firstOpen` only moves forward past answered calls; `byId` keeps the first call of each id, as findIndex did;
   * `byName` keeps each name's calls in order with a cursor past the answered ones.
   */
  firstOpen: number;
  byId: Map<string, number>;
  byName: Map<string, { at: number[]; next: number }>;
  allAnswered: boolean;
}

function openGroup(calls: CallView[]): CallGroup {
  const byId = new Map<string, number>();
  const byName = new Map<string, { at: number[]; next: number }>();
  calls.forEach((call, k) => {
    if (hasId(call.id) && !byId.has(call.id)) byId.set(call.id, k);
    if (typeof call.name !== 'string') return;
    const named = byName.get(call.name);
    if (named) named.at.push(k);
    else byName.set(call.name, { at: [k], next: 0 });
  });
  return { calls, answered: calls.map(() => false), results: 0, outOfOrderReported: false, firstOpen: 0, byId, byName, allAnswered: false };
}

/** The first unanswered call, or -1. */
function firstUnanswered(group: CallGroup): number {
  while (group.firstOpen < group.calls.length && group.answered[group.firstOpen]) group.firstOpen++;
  return group.firstOpen < group.calls.length ? group.firstOpen : -1;
}

/** The first unanswered call with this name, or -1. */
function firstUnansweredNamed(group: CallGroup, name: string): number {
  const named = group.byName.get(name);
  if (!named) return -1;
  while (named.next < named.at.length && group.answered[named.at[named.next]!]) named.next++;
  return named.next < named.at.length ? named.at[named.next]! : -1;
}

/** Declared tool names quoted in a TOOL_UNDECLARED message: a few, so a row of thousands of tools and calls does not write each list again per call. */
const NAMES_SHOWN = 10;

const hasId = (id: unknown): id is string => typeof id === 'string' && id !== '';

/**
 * The tool protocol of one conversation: every call answered by a result right after its assistant turn, in
 * call order, matched by id; ids unique; every called tool declared. Rows that use no ids at all (the HF/TRL
 * convention) are matched by position and tool name instead, without warnings.
 */
export function checkProtocol(view: RowView, line: number): DatasetIssue[] {
  const issues: DatasetIssue[] = [];
  const push = (code: Parameters<typeof makeIssue>[1], path: string, message: string) => issues.push(makeIssue(line, code, path, message));
  // With no turns at all, the structure check already said why (missing or empty messages).
  if (!view.hasAssistant && view.turns.length > 0) push('MSG_NO_ASSISTANT', '', 'the conversation has no assistant turn: nothing to train on');

  const allCalls = view.turns.flatMap((turn) => (turn.kind === 'calls' ? turn.calls : []));
  const usesIds = !view.idsImplicit && view.turns.some((turn) => (turn.kind === 'calls' ? turn.calls.some((c) => hasId(c.id)) : turn.kind === 'result' && hasId(turn.result.id)));

  checkDeclared(view, allCalls, push);

  const seenIds = new Map<string, number>();
  allCalls.forEach((call, k) => {
    if (!usesIds) return;
    if (!hasId(call.id)) push('TOOL_CALL_ID_MISSING', call.path, 'tool call has no id while others in this row do; results cannot be matched to it');
    else if (seenIds.has(call.id)) push('TOOL_CALL_ID_DUPLICATE', call.idPath, `tool call id "${call.id}" is used twice in this row`);
    else seenIds.set(call.id, k);
  });

  let group: CallGroup | undefined;
  const earlierIds = new Set<string>();
  const closeGroup = (endedByMessage: boolean): void => {
    if (!group) return;
    if (endedByMessage || group.results > 0) {
      group.calls.forEach((call, k) => {
        if (!group!.answered[k]) push('TOOL_CALL_UNANSWERED', call.path, `tool call${typeof call.name === 'string' ? ` to "${call.name}"` : ''} has no result before the conversation moves on`);
      });
    }
    for (const call of group.calls) if (hasId(call.id)) earlierIds.add(call.id);
    group = undefined;
  };
  for (const turn of view.turns) {
    if (turn.kind === 'calls') {
      closeGroup(true);
      group = openGroup(turn.calls);
    } else if (turn.kind === 'result') {
      if (!group) push('TOOL_RESULT_ORPHAN', turn.result.path, 'tool result does not follow an assistant turn with tool calls');
      else matchResult(view, group, turn.result, usesIds, earlierIds, push);
    } else {
      closeGroup(true);
    }
  }
  closeGroup(false);
  return issues;
}

type Push = (code: Parameters<typeof makeIssue>[1], path: string, message: string) => void;

function checkDeclared(view: RowView, calls: CallView[], push: Push): void {
  if (calls.length === 0) return;
  if (view.toolsUnreadable) return;
  if (!view.tools) {
    push('TOOLS_NOT_DECLARED', view.toolsPath, 'the row calls tools but declares none: the rendered prompt will not list them');
    return;
  }
  const names = new Set(view.tools.map((tool) => tool.name));
  let declared: string | undefined;
  for (const call of calls) {
    if (typeof call.name === 'string' && !names.has(call.name)) {
      declared ??= declaredList(names);
      push('TOOL_UNDECLARED', call.namePath, `call to "${call.name}", which is not among the declared tools (${declared})`);
    }
  }
}

function declaredList(names: Set<unknown>): string {
  if (names.size === 0) return 'none';
  const shown = [...names].slice(0, NAMES_SHOWN).join(', ');
  return names.size > NAMES_SHOWN ? `${shown} and ${names.size - NAMES_SHOWN} more` : shown;
}

function matchResult(view: RowView, group: CallGroup, result: ResultView, usesIds: boolean, earlierIds: Set<string>, push: Push): void {
  group.results++;
  if (view.idsImplicit) {
    // ShareGPT: one observation answers the whole function_call turn.
    if (!group.allAnswered) group.answered.fill(true);
    group.allAnswered = true;
    return;
  }
  let k: number;
  if (usesIds && hasId(result.id)) {
    k = group.byId.get(result.id) ?? -1;
    if (k === -1) {
      const why = earlierIds.has(result.id) ? 'answers a call of an earlier assistant turn; results must directly follow their call' : 'matches no call of the preceding assistant turn';
      push('TOOL_RESULT_UNMATCHED', result.idPath, `tool_call_id "${result.id}" ${why}`);
      return;
    }
    if (group.answered[k]) {
      push('TOOL_RESULT_UNMATCHED', result.idPath, `second result for tool call "${result.id}"`);
      return;
    }
  } else {
    if (usesIds) push('TOOL_RESULT_ID_MISSING', result.path, 'tool result has no tool_call_id while calls in this row have ids');
    k = firstUnanswered(group);
    if (k === -1) {
      push('TOOL_RESULT_UNMATCHED', result.path, `more tool results than the ${group.calls.length} call(s) of the preceding assistant turn`);
      return;
    }
    if (typeof result.name === 'string' && group.calls[k]!.name !== result.name) {
      const byName = firstUnansweredNamed(group, result.name);
      if (byName === -1) {
        push('TOOL_RESULT_UNMATCHED', result.idPath, `result names "${result.name}" but no pending call of the preceding assistant turn has that name`);
        return;
      }
      k = byName;
    }
  }
  if (!group.outOfOrderReported && firstUnanswered(group) < k) {
    group.outOfOrderReported = true;
    push('TOOL_RESULT_OUT_OF_ORDER', result.path, 'tool results are not in the order of the calls; templates without ids pair them by position');
  }
  group.answered[k] = true;
}
