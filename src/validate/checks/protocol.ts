import { makeIssue, type DatasetIssue } from '../../readers/issues.js';
import type { CallView, ResultView, RowView } from './view.js';

interface CallGroup {
  calls: CallView[];
  answered: boolean[];
  results: number;
  outOfOrderReported: boolean;
}

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
      group = { calls: turn.calls, answered: turn.calls.map(() => false), results: 0, outOfOrderReported: false };
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
  for (const call of calls) {
    if (typeof call.name === 'string' && !names.has(call.name)) {
      push('TOOL_UNDECLARED', call.namePath, `call to "${call.name}", which is not among the declared tools (${[...names].join(', ') || 'none'})`);
    }
  }
}

function matchResult(view: RowView, group: CallGroup, result: ResultView, usesIds: boolean, earlierIds: Set<string>, push: Push): void {
  group.results++;
  if (view.idsImplicit) {
    // ShareGPT: one observation answers the whole function_call turn.
    group.answered.fill(true);
    return;
  }
  const unanswered = (k: number) => !group.answered[k];
  let k: number;
  if (usesIds && hasId(result.id)) {
    k = group.calls.findIndex((call) => call.id === result.id);
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
    k = group.calls.findIndex((_, j) => unanswered(j));
    if (k === -1) {
      push('TOOL_RESULT_UNMATCHED', result.path, `more tool results than the ${group.calls.length} call(s) of the preceding assistant turn`);
      return;
    }
    if (typeof result.name === 'string' && group.calls[k]!.name !== result.name) {
      const byName = group.calls.findIndex((call, j) => unanswered(j) && call.name === result.name);
      if (byName === -1) {
        push('TOOL_RESULT_UNMATCHED', result.idPath, `result names "${result.name}" but no pending call of the preceding assistant turn has that name`);
        return;
      }
      k = byName;
    }
  }
  if (!group.outOfOrderReported && group.calls.some((_, j) => j < k && unanswered(j))) {
    group.outOfOrderReported = true;
    push('TOOL_RESULT_OUT_OF_ORDER', result.path, 'tool results are not in the order of the calls; templates without ids pair them by position');
  }
  group.answered[k] = true;
}
