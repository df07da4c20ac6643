import type { Conversation, FunctionTool, Message } from '../../types.js';
import type { ConvertIssue } from '../issues.js';

export const importShapes = ['openai', 'sharegpt', 'hermes-text', 'xlam'] as const;
export type ImportShape = (typeof importShapes)[number];

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

export function finish(messages: Message[], tools: FunctionTool[], issues: ConvertIssue[]): ImportResult {
  const failed = issues.some((i) => i.severity === 'error');
  return { conversation: failed ? null : { messages, tools }, issues };
}
