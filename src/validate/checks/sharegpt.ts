import type { Message, Tool } from '../../types.js';
import { makeIssue, type DatasetIssue } from '../../readers/issues.js';
import { joinPath } from '../../readers/paths.js';
import { isPlainObject } from '../../util/guards.js';
import type { CallView, RowView, ToolView, TurnView } from './view.js';

const userSide = new Set(['human', 'observation']);
const assistantSide = new Set(['gpt', 'function_call']);

/**
 * LLaMA-Factory's ShareGPT rules (converter.py): an optional leading system turn, then human/observation at
 * even positions and gpt/function_call at odd ones, an even count. LLaMA-Factory only logs a warning and drops
 * such rows, so they are errors here. Also converts the row to OpenAI messages for the other checks.
 */
export function viewShareGPTRow(row: Record<string, unknown>, line: number): { view: RowView; issues: DatasetIssue[] } {
  const issues: DatasetIssue[] = [];
  const turnsIn = Array.isArray(row.conversations) ? row.conversations : [];
  const messages: Message[] = [];
  const origins: string[] = [];
  const turns: TurnView[] = [];
  let start = 0;
  const first = turnsIn[0];
  if (isPlainObject(first) && first.from === 'system') {
    messages.push({ role: 'system', content: String(first.value ?? '') });
    origins.push('conversations[0]');
    turns.push({ kind: 'other', message: 0, role: 'system' });
    start = 1;
  } else if (typeof row.system === 'string' && row.system !== '') {
    messages.push({ role: 'system', content: row.system });
    origins.push('system');
    turns.push({ kind: 'other', message: 0, role: 'system' });
  }
  let hasAssistant = false;
  let orderBroken = false;
  for (let j = start; j < turnsIn.length; j++) {
    const turn = turnsIn[j];
    if (!isPlainObject(turn) || typeof turn.from !== 'string') continue;
    const base = joinPath('conversations', j);
    const position = j - start;
    const expected = position % 2 === 0 ? userSide : assistantSide;
    if (!orderBroken && !expected.has(turn.from) && (userSide.has(turn.from) || assistantSide.has(turn.from) || turn.from === 'system')) {
      orderBroken = true;
      const want = position % 2 === 0 ? 'human or observation' : 'gpt or function_call';
      issues.push(makeIssue(line, 'SHAREGPT_ROLE_ORDER', joinPath(base, 'from'), `turn ${position} is "${turn.from}" but LLaMA-Factory expects ${want} here (it drops this row)`));
    }
    const value = typeof turn.value === 'string' ? turn.value : '';
    const index = messages.length;
    origins.push(base);
    switch (turn.from) {
      case 'human':
      case 'system':
        messages.push({ role: turn.from === 'human' ? 'user' : 'system', content: value });
        turns.push({ kind: 'other', message: index, role: turn.from === 'human' ? 'user' : 'system' });
        break;
      case 'gpt':
        hasAssistant = true;
        messages.push({ role: 'assistant', content: value });
        turns.push({ kind: 'other', message: index, role: 'assistant' });
        break;
      case 'function_call': {
        hasAssistant = true;
        const calls = parseCalls(value, index, joinPath(base, 'value'), line, issues);
        messages.push({
          role: 'assistant',
          content: '',
          tool_calls: calls.map((call) => ({ type: 'function', function: { name: call.name as string, arguments: call.args as Record<string, unknown> } })),
        });
        // Even when its value is unreadable, the turn is a call turn: the observation after it is no orphan.
        turns.push({ kind: 'calls', message: index, calls });
        break;
      }
      case 'observation':
        messages.push({ role: 'tool', content: value });
        turns.push({ kind: 'result', message: index, result: { message: index, id: undefined, name: undefined, path: base, idPath: base } });
        break;
      default:
        // Unknown tags were reported by the structure check; keep the index aligned.
        messages.push({ role: turn.from, content: value });
        turns.push({ kind: 'other', message: index, role: turn.from });
    }
  }
  const count = turnsIn.length - start;
  if (!orderBroken && count > 0 && count % 2 !== 0) {
    issues.push(makeIssue(line, 'SHAREGPT_ROLE_ORDER', 'conversations', `${count} turns after the system turn: LLaMA-Factory needs an even count ending with gpt or function_call (it drops this row)`));
  }
  const issuesBefore = issues.length;
  const declared = parseTools(row.tools, line, issues);
  const view: RowView = {
    shape: 'sharegpt',
    turns,
    tools: declared?.views,
    toolsKey: declared ? (typeof row.tools === 'string' ? row.tools : JSON.stringify(row.tools)) : '',
    toolsUnreadable: issues.length > issuesBefore,
    toolsPath: 'tools',
    idsImplicit: true,
    hasAssistant,
    conversation: { messages, ...(declared ? { tools: declared.tools } : {}) },
    messagePath: (index) => origins[index] ?? 'conversations',
  };
  return { view, issues };
}

function parseCalls(value: string, message: number, path: string, line: number, issues: DatasetIssue[]): CallView[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    issues.push(makeIssue(line, 'SHAREGPT_CALL_NOT_JSON', path, `function_call value is not JSON: ${(error as Error).message}`));
    return [];
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  const calls: CallView[] = [];
  list.forEach((call, k) => {
    const callPath = Array.isArray(parsed) ? joinPath(path, k) : path;
    if (!isPlainObject(call) || typeof call.name !== 'string') {
      issues.push(makeIssue(line, 'SHAREGPT_CALL_NOT_JSON', callPath, 'function_call value must be {"name": ..., "arguments": ...} or a list of them'));
      return;
    }
    calls.push({
      message,
      id: undefined,
      name: call.name,
      args: call.arguments,
      path: callPath,
      idPath: callPath,
      namePath: joinPath(callPath, 'name'),
      argsPath: joinPath(callPath, 'arguments'),
    });
  });
  return calls;
}

function parseTools(raw: unknown, line: number, issues: DatasetIssue[]): { views: ToolView[]; tools: Tool[] } | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  let parsed: unknown = raw;
  if (typeof raw === 'string') {
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      issues.push(makeIssue(line, 'SHAREGPT_TOOLS_NOT_JSON', 'tools', `tools is not a JSON string: ${(error as Error).message}`));
      return undefined;
    }
  }
  if (!Array.isArray(parsed)) {
    issues.push(makeIssue(line, 'SHAREGPT_TOOLS_NOT_JSON', 'tools', 'tools must be a JSON list of tool declarations'));
    return undefined;
  }
  if (parsed.length === 0) return undefined;
  const views: ToolView[] = [];
  const tools: Tool[] = [];
  parsed.forEach((tool: unknown, k) => {
    if (!isPlainObject(tool)) return;
    const wrapped = tool.type === 'function' && isPlainObject(tool.function);
    const fn = (wrapped ? tool.function : tool) as Record<string, unknown>;
    if (typeof fn.name !== 'string') return;
    views.push({ name: fn.name, parameters: fn.parameters, path: wrapped ? joinPath('tools', k, 'function') : joinPath('tools', k) });
    tools.push({ type: 'function', function: fn as { name: string } });
  });
  return { views, tools };
}
