import { importRow } from '../convert/importers/index.js';
import type { ImportShape } from '../convert/importers/types.js';
import { foreignShapeHint } from '../validate/foreign-shapes.js';
import { ChatfmtError } from '../errors.js';
import { parsePythonJson } from '../jinja/index.js';
import type { Conversation } from '../types.js';
import { isPlainObject } from '../util/guards.js';

/**
 * One input of `render`: a conversation as the template takes it. `openai` (the default) passes the object through
 * untouched, as transformers would; another shape goes through the importer `convert --from` uses, so a ShareGPT or
 * xLAM file renders to the same text its converted rows do. A row of another shape without --from is refused with a
 * hint naming the --from that reads it.
 */
export function readConversation(text: string, from: ImportShape = 'openai', line = 0): Conversation {
  const value = parseJson(text);
  const record = value instanceof Map ? Object.fromEntries(value) : value;
  if (from === 'openai') return asConversation(record);
  const imported = importRow(record, from, line);
  if (imported.conversation) return imported.conversation;
  const reason = imported.issues.find((issue) => issue.severity === 'error');
  const at = reason?.path ? ` (at ${reason.path})` : '';
  throw new ChatfmtError('INPUT_INVALID', `not a ${from} row: ${reason?.message ?? 'it could not be imported'}${at}`);
}

function parseJson(text: string): unknown {
  try {
    return parsePythonJson(text);
  } catch (error) {
    throw new ChatfmtError('INPUT_INVALID', `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function asConversation(record: unknown): Conversation {
  if (isPlainObject(record) && Array.isArray(record.messages)) return record as unknown as Conversation;
  const hint = isPlainObject(record) ? foreignShapeHint(record, 'openai') : undefined;
  throw new ChatfmtError('INPUT_INVALID', `expected a JSON object with a "messages" array${hint ? `; ${hint}` : ''}`);
}
