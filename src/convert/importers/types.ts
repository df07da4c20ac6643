import type { Conversation, FunctionTool, Message } from '../../types.js';
import { makeIssue } from '../../readers/issues.js';
import type { ConvertIssue } from '../issues.js';
import { recordMintedIds } from '../minted-ids.js';
import { append } from '../../util/append.js';

export const importShapes = ['openai', 'sharegpt', 'hermes-text', 'xlam', 'llamafactory'] as const;
export type ImportShape = (typeof importShapes)[number];

export function isImportShape(name: string): name is ImportShape {
  return (importShapes as readonly string[]).includes(name);
}

/** The canonical form every importer produces: OpenAI messages (arguments as JSON strings) and JSON-Schema tools. */
export interface ImportedConversation extends Conversation {
  messages: Message[];
  tools: FunctionTool[];
}

/** `conversation` is null exactly when an error-severity issue says why the row could not be mapped. */
export interface ImportResult {
  conversation: ImportedConversation | null;
  issues: ConvertIssue[];
}

export type RowImporter = (row: unknown, line: number) => ImportResult;

export function finish(messages: Message[], tools: FunctionTool[], issues: ConvertIssue[], line = 0, mintedIds?: ReadonlySet<string>): ImportResult {
  append(issues, undeclaredCalls(messages, tools, line));
  const failed = issues.some((i) => i.severity === 'error');
  const conversation = failed ? null : { messages, tools };
  if (conversation && mintedIds) recordMintedIds(conversation, mintedIds);
  return { conversation, issues };
}

/**
 * A call to a tool the row does not declare teaches the model to invent tools: an error here as in validate
 * (TOOL_UNDECLARED), so both commands reject the same rows. Rows that declare no tools at all are left alone.
 */
function undeclaredCalls(messages: Message[], tools: FunctionTool[], line: number): ConvertIssue[] {
  if (tools.length === 0) return [];
  const declared = new Set(tools.map((tool) => tool.function.name));
  const issues: ConvertIssue[] = [];
  messages.forEach((message, index) => {
    message.tool_calls?.forEach((call, k) => {
      if (!declared.has(call.function.name)) {
        issues.push(makeIssue(line, 'TOOL_UNDECLARED', `messages[${index}].tool_calls[${k}].function.name`, `call to "${call.function.name}", which the row's tools do not declare`));
      }
    });
  });
  return issues;
}
