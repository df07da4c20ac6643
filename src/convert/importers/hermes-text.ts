import type { FunctionTool, Message, ToolCall } from '../../types.js';
import { issue, type ConvertIssue } from '../issues.js';
import { parseLooseJson, preview } from '../loose-json.js';
import { importTools } from '../tool-schema.js';
import { CallLedger, readCall, toolMessage } from './calls.js';
import { readShareGptTurns, type ShareGptTurn } from './sharegpt.js';
import { finish, type ImportResult } from './types.js';
import { recordSourcePaths, type SourcePaths } from '../source-paths.js';
import { append } from '../../util/append.js';

interface Block {
  inner: string;
  start: number;
  end: number;
}

/**
 * Finds `<tag>…</tag>` blocks with indexOf (linear, no regex over untrusted text). An opening tag without its
 * closing tag yields `unclosed` at its offset.
 */
export function findBlocks(text: string, tag: string): { blocks: Block[]; unclosed?: number } {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const blocks: Block[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf(open, from);
    if (start < 0) return { blocks };
    const end = text.indexOf(close, start + open.length);
    if (end < 0) return { blocks, unclosed: start };
    blocks.push({ inner: text.slice(start + open.length, end), start, end: end + close.length });
    from = end + close.length;
  }
}

/** Text with the blocks cut out; the seams are tidied so no run of blank lines is left behind. */
function withoutBlocks(text: string, blocks: Block[]): string {
  let out = '';
  let at = 0;
  for (const block of blocks) {
    out += text.slice(at, block.start);
    at = block.end;
  }
  out += text.slice(at);
  return collapseBlankLines(out).trim();
}

function collapseBlankLines(text: string): string {
  let out = text;
  while (out.includes('\n\n\n')) out = out.split('\n\n\n').join('\n\n');
  return out;
}

/**
 * The body of `<tools>`: a JSON/Python list, or tool objects one after another (how Hermes templates print them).
 */
function readToolsBlock(inner: string): unknown {
  const whole = parseLooseJson(inner.trim());
  if (whole.ok) return whole.value;
  const values: unknown[] = [];
  for (const piece of splitTopLevelObjects(inner)) {
    const parsed = parseLooseJson(piece);
    if (!parsed.ok) return inner;
    values.push(parsed.value);
  }
  return values.length ? values : inner;
}

/** Splits `{…} {…}` into its objects, respecting strings (both quote styles). */
function splitTopLevelObjects(text: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let start = -1;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && depth > 0 && --depth === 0) pieces.push(text.slice(start, i + 1));
  }
  return pieces;
}

/**
 * Imports a Hermes function-calling row: ShareGPT turns whose calls are `<tool_call>` JSON text (JSON or Python-dict
 * quoting), tools in `<tools>` inside the system text (the rest of the system text is kept as the system message)
 * and results in `<tool_response>` blocks.
 */
export function importHermesText(row: unknown, line: number): ImportResult {
  const issues: ConvertIssue[] = [];
  const turns = readShareGptTurns(row, line, issues);
  if (!turns) return finish([], [], issues);
  const messages: Message[] = [];
  let tools: FunctionTool[] = [];
  const ledger = new CallLedger();
  const sources: SourcePaths = { turns: turns[0]?.path.split('[')[0] ?? 'conversations', messages: [], tools: 'tools' };
  // Each message made from a turn (a result turn can hold several) came from that turn's value.
  const cameFrom = (path: string) => {
    while (sources.messages.length < messages.length) sources.messages.push(path);
  };
  for (const turn of turns) {
    if (typeof turn.value !== 'string') {
      issues.push(issue(line, 'IMPORT_BAD_ROW', turn.path, 'a turn value must be a string'));
      continue;
    }
    if (turn.kind === 'system') {
      // Empty blocks are prose ("signatures within <tools> </tools> XML tags"), not definitions.
      const found = { blocks: findBlocks(turn.value, 'tools').blocks.filter((b) => b.inner.trim() !== '') };
      if (found.blocks.length) {
        const read = importTools(readToolsBlock(found.blocks.map((b) => b.inner).join('\n')), line, turn.path);
        append(issues, read.issues);
        tools = [...tools, ...read.tools];
        sources.tools = turn.path;
      }
      const rest = withoutBlocks(turn.value, found.blocks);
      if (rest !== '') messages.push({ role: 'system', content: rest });
    } else if (turn.kind === 'assistant' || turn.kind === 'call') {
      const message = readAssistant(turn, turn.value, ledger, line, issues);
      if (message) messages.push(message);
    } else if (turn.kind === 'result') {
      append(messages, readResults(turn, turn.value, ledger, line, issues));
    } else {
      messages.push({ role: 'user', content: turn.value });
    }
    cameFrom(turn.path);
  }
  const rowTools = (row as Record<string, unknown>).tools;
  if (tools.length === 0 && rowTools !== undefined) {
    const read = importTools(rowTools, line, 'tools');
    append(issues, read.issues);
    tools = read.tools;
  }
  const result = finish(messages, tools, issues, line, ledger.minted);
  if (result.conversation) recordSourcePaths(result.conversation, sources);
  return result;
}

/**
 * Reasoning data (Hermes 3, DeepHermes) opens the assistant turn with `<think>…</think>`: that is the turn's
 * `reasoning_content`, which family templates place themselves; left in content it would be rendered as answer text.
 * Only a block at the very start counts; an unclosed one stays content.
 */
function splitLeadingThink(text: string): { reasoning?: string; rest: string } {
  const open = '<think>';
  const close = '</think>';
  const start = text.length - text.trimStart().length;
  if (!text.startsWith(open, start)) return { rest: text };
  const end = text.indexOf(close, start + open.length);
  if (end < 0) return { rest: text };
  return { reasoning: text.slice(start + open.length, end).trim(), rest: text.slice(end + close.length).trimStart() };
}

function readAssistant(turn: ShareGptTurn, whole: string, ledger: CallLedger, line: number, issues: ConvertIssue[]): Message | undefined {
  const { reasoning, rest: text } = splitLeadingThink(whole);
  const thought = reasoning === undefined ? {} : { reasoning_content: reasoning };
  const found = findBlocks(text, 'tool_call');
  if (found.unclosed !== undefined) {
    issues.push(issue(line, 'IMPORT_BAD_CALL', turn.path, `<tool_call> at offset ${found.unclosed} is never closed`));
    return undefined;
  }
  const calls: ToolCall[] = [];
  for (const [index, block] of found.blocks.entries()) {
    const parsed = parseLooseJson(block.inner.trim());
    if (!parsed.ok) {
      issues.push(issue(line, 'IMPORT_BAD_CALL', turn.path, `<tool_call> #${index + 1} is neither JSON nor a Python literal: ${parsed.error}`));
      return undefined;
    }
    const call = readCall(parsed.value, ledger.newId(), line, turn.path, issues);
    if (!call) return undefined;
    calls.push(call);
  }
  const content = withoutBlocks(text, found.blocks);
  if (calls.length === 0) return { role: 'assistant', content: text, ...thought };
  ledger.opened(calls);
  return { role: 'assistant', content: content === '' ? null : content, ...thought, tool_calls: calls };
}

function readResults(turn: ShareGptTurn, text: string, ledger: CallLedger, line: number, issues: ConvertIssue[]): Message[] {
  const found = findBlocks(text, 'tool_response');
  // With blocks, only the blocks become tool messages: text around them, or after an unclosed opener, has no place
  // to go and was dropped without a word. The row is refused instead, as an unclosed <tool_call> refuses it. (With
  // none, the whole text is the one result and nothing is lost.)
  if (found.blocks.length && found.unclosed !== undefined) {
    issues.push(issue(line, 'IMPORT_BAD_ROW', turn.path, `<tool_response> at offset ${found.unclosed} is never closed`));
    return [];
  }
  const outside = found.blocks.length ? withoutBlocks(text, found.blocks) : '';
  if (outside !== '') {
    issues.push(issue(line, 'IMPORT_BAD_ROW', turn.path, `text outside the <tool_response> blocks (${preview(outside)}) would be lost: a tool result is the inside of one block`));
    return [];
  }
  const results = found.blocks.length ? found.blocks.map((b) => b.inner.trim()) : [text];
  const messages: Message[] = [];
  for (const result of results) {
    const call = ledger.answer();
    if (!call) {
      issues.push(issue(line, 'IMPORT_ORPHAN_RESULT', turn.path, 'a tool result with no call before it'));
      break;
    }
    messages.push(toolMessage(result, call));
  }
  return messages;
}
