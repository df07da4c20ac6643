import type { ImportShape } from '../convert/importers/types.js';
import { isPlainObject } from '../util/guards.js';
import type { RowShape } from './schema.js';

/**
 * Rows of a format other than the one being read get one hint (ROW_WRONG_SHAPE) instead of the wall of structure errors
 * their missing fields would cause. Each entry is told by its keys and says what to do instead.
 */
interface ForeignShape {
  readonly name: string;
  readonly looksLike: (row: Record<string, unknown>) => boolean;
  readonly hint: string;
}

const has = (row: Record<string, unknown>, ...keys: string[]) => keys.every((key) => Object.hasOwn(row, key));

/** Preference data is refused whatever else the row holds: its `conversations` or `messages` are only the prompt. */
const preferenceShapes: readonly ForeignShape[] = [
  {
    name: 'preference pair',
    looksLike: (row) => has(row, 'chosen', 'rejected'),
    hint: 'this looks like a preference pair for DPO (chosen/rejected), not an SFT conversation: check each side as a conversation of its own',
  },
  {
    name: 'KTO example',
    looksLike: (row) => has(row, 'prompt', 'completion', 'label'),
    hint: 'this looks like a KTO example (prompt/completion/label), not an SFT conversation: write it as {"messages": [...]} to check it',
  },
];

/** Formats told apart from the declared one only when the row lacks that format's own keys. */
const otherShapes: readonly ForeignShape[] = [
  { name: 'xlam', looksLike: (row) => has(row, 'query', 'answers'), hint: 'this looks like xLAM (query/tools/answers): use `--from xlam`' },
  { name: 'sharegpt', looksLike: (row) => Array.isArray(row.conversations), hint: 'this looks like ShareGPT (conversations with from/value): use `--from sharegpt`' },
  { name: 'openai', looksLike: (row) => Array.isArray(row.messages), hint: 'this looks like OpenAI messages: use `--from openai`' },
  { name: 'alpaca', looksLike: (row) => has(row, 'instruction', 'output'), hint: 'this looks like Alpaca (instruction/input/output), which has no turns or tool calls to check' },
  { name: 'prompt/completion', looksLike: (row) => has(row, 'prompt', 'completion'), hint: 'this looks like a prompt/completion pair, not a conversation with "messages"' },
  { name: 'message', looksLike: (row) => has(row, 'role', 'content'), hint: 'this looks like a single message: a row is a conversation, {"messages": [...]}' },
];

/** The keys that make a row the declared shape's own. */
function isOwnShape(row: Record<string, unknown>, shape: RowShape | ImportShape): boolean {
  switch (shape) {
    case 'openai':
    case 'llamafactory':
      return Object.hasOwn(row, 'messages');
    case 'sharegpt':
      return Object.hasOwn(row, 'conversations');
    case 'hermes-text':
      // The Hermes importer also reads role/content turns under "messages".
      return Object.hasOwn(row, 'conversations') || Object.hasOwn(row, 'messages');
    case 'xlam':
      return Object.hasOwn(row, 'query');
  }
}

/** The hint for a row of another format than `shape`, or undefined when the row is (or tries to be) `shape`. */
export function foreignShapeHint(row: Record<string, unknown>, shape: RowShape | ImportShape): string | undefined {
  const preference = preferenceShapes.find((candidate) => candidate.looksLike(row));
  if (preference) return preference.hint;
  if (isOwnShape(row, shape)) return llamaFactoryV1Hint(row, shape);
  return otherShapes.find((candidate) => candidate.looksLike(row))?.hint;
}

/**
 * LLaMA-Factory v1's messages: content is a list of `{type: text|reasoning|tool_call, value}` parts and each message has
 * a `loss_weight`. Read as OpenAI rows they would fail on every part.
 */
function llamaFactoryV1Hint(row: Record<string, unknown>, shape: RowShape | ImportShape): string | undefined {
  if (shape !== 'openai' || !Array.isArray(row.messages)) return undefined;
  const v1 = row.messages.some(
    (message) =>
      isPlainObject(message) &&
      (Object.hasOwn(message, 'loss_weight') || (Array.isArray(message.content) && message.content.some((part) => isPlainObject(part) && typeof part.value === 'string' && !Object.hasOwn(part, 'text')))),
  );
  return v1 ? 'this looks like LLaMA-Factory v1 messages (content parts with "value", "loss_weight"): use `--from llamafactory`' : undefined;
}
