import type { ImportShape } from '../convert/importers/types.js';
import { foreignShapeHint } from './foreign-shapes.js';
import { ChatfmtError } from '../errors.js';
import { parsePythonJson } from '../jinja/index.js';
import type { Conversation } from '../types.js';
import { isPlainObject } from '../util/guards.js';
import { repeatedToolsReader } from './repeated-tools.js';

/**
 * How `render` reads one input: a conversation as the template takes it. `openai` (the default) passes the object
 * through untouched, as transformers would; another shape goes through the importer `convert --from` uses (loaded only
 * then), so a ShareGPT or xLAM file renders to the same text its converted rows do. A row of another shape without
 * --from is refused with a hint naming the --from that reads it.
 */
export async function conversationReader(from: ImportShape = 'openai'): Promise<(text: string, line: number) => Conversation> {
  if (from === 'openai') {
    // The row goes to the template as it is, so rows that repeat one tool list can share its value.
    const read = repeatedToolsReader();
    return (text) => asConversation(plain(parseJson(text, read)));
  }
  const { importRow } = await import('../convert/importers/index.js');
  return (text, line) => {
    const imported = importRow(plain(parseJson(text)), from, line);
    if (imported.conversation) return imported.conversation;
    const reason = imported.issues.find((issue) => issue.severity === 'error');
    const at = reason?.path ? ` (at ${reason.path})` : '';
    throw new ChatfmtError('INPUT_INVALID', `not a ${from} row: ${reason?.message ?? 'it could not be imported'}${at}`);
  };
}

function plain(value: unknown): unknown {
  return value instanceof Map ? Object.fromEntries(value) : value;
}

function parseJson(text: string, read: (text: string) => unknown = parsePythonJson): unknown {
  try {
    return read(text);
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function asConversation(record: unknown): Conversation {
  if (isPlainObject(record) && Array.isArray(record.messages)) return record as unknown as Conversation;
  const hint = isPlainObject(record) ? foreignShapeHint(record, 'openai') : undefined;
  throw new ChatfmtError('INPUT_INVALID', `expected a JSON object with a "messages" array${hint ? `; ${hint}` : ''}`);
}
