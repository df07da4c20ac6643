import { makeIssue, type DatasetIssue } from '../readers/issues.js';
import { nestingDepth, ROW_MAX_DEPTH, tooDeepMessage } from '../readers/limits.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import { checkStructure, typeName, type RowShape } from './schema.js';
import { checkProtocol } from './checks/protocol.js';
import { viewShareGPTRow } from './checks/sharegpt.js';
import { ToolSchemaCache } from './checks/tool-schemas.js';
import { ToolChecks } from './checks/tools.js';
import { isPlainObject } from '../util/guards.js';
import { viewOpenAIRow, type RowView } from './checks/view.js';
import type { TemplateCheckOptions, TemplateChecker } from './template-checks.js';
import { importRow } from '../convert/importers/index.js';
import type { ImportShape } from '../convert/importers/types.js';

export type { RowShape };

/**
 * Everything that configures per-row checks; plain data so it can be sent to worker threads. `shape` is a row shape
 * validate reads itself, or an importer shape (xlam, hermes-text) whose rows are checked as the conversation
 * `convert --from` makes of them.
 */
export interface RowCheckOptions extends TemplateCheckOptions {
  shape: RowShape | ImportShape;
}

export interface RowOutcome {
  issues: DatasetIssue[];
  /** Argument forms seen in the row (bit flags, see ARGS_FORM_*), for the dataset-wide mixed-forms check. */
  forms: number;
}

export interface RowValidator {
  validate(record: DatasetRecord): RowOutcome;
}

/** The row shape a parsed value looks like, or undefined. */
export function detectRowShape(value: unknown): RowShape | undefined {
  if (!isPlainObject(value)) return undefined;
  if (Array.isArray(value.messages)) return 'openai';
  if (Array.isArray(value.conversations)) return 'sharegpt';
  return undefined;
}

/** Builds the per-row validator (loads the template and tokenizer once). Never throws for a row. */
export async function createRowValidator(options: RowCheckOptions): Promise<RowValidator> {
  const tools = new ToolChecks(new ToolSchemaCache());
  // Loaded on demand: schema-only validation (and its workers) never pay for the template engine and parsers.
  const template: TemplateChecker | undefined =
    options.family !== undefined || options.template !== undefined ? await (await import('./template-checks.js')).createTemplateChecker(options) : undefined;
  return {
    validate(record) {
      if (record.problem) return { issues: [makeIssue(record.line, record.problem.code, '', record.problem.message)], forms: 0 };
      try {
        return validateText(record.text, record.line, options.shape, tools, template);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { issues: [makeIssue(record.line, 'INTERNAL_ERROR', '', `a check failed on this row: ${message}`)], forms: 0 };
      }
    },
  };
}

function validateText(text: string, line: number, declared: RowShape | ImportShape, tools: ToolChecks, template: TemplateChecker | undefined): RowOutcome {
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch (error) {
    return { issues: [makeIssue(line, 'ROW_INVALID_JSON', '', `not valid JSON: ${(error as Error).message}`)], forms: 0 };
  }
  if (nestingDepth(row) > ROW_MAX_DEPTH) return { issues: [makeIssue(line, 'ROW_TOO_DEEP', '', tooDeepMessage())], forms: 0 };
  let shape: RowShape;
  const imported: DatasetIssue[] = [];
  if (declared === 'openai' || declared === 'sharegpt') shape = declared;
  else {
    // Checked as the conversation convert makes of it; the importer's issues come first.
    const result = importRow(row, declared, line);
    imported.push(...result.issues);
    if (!result.conversation) return { issues: imported, forms: 0 };
    row = result.conversation;
    shape = 'openai';
  }
  const outcome = validateRow(row, line, shape, tools, template);
  return imported.length ? { issues: [...imported, ...outcome.issues], forms: outcome.forms } : outcome;
}

function validateRow(row: unknown, line: number, shape: RowShape, tools: ToolChecks, template: TemplateChecker | undefined): RowOutcome {
  if (!isPlainObject(row)) return { issues: [makeIssue(line, 'ROW_NOT_OBJECT', '', `row must be a JSON object, got ${typeName(row)}`)], forms: 0 };
  const foreign = detectRowShape(row) === undefined ? foreignShapeHint(row) : undefined;
  if (foreign) return { issues: [makeIssue(line, 'ROW_WRONG_SHAPE', '', foreign)], forms: 0 };

  const issues = checkStructure(row, shape, line);
  let view: RowView;
  if (shape === 'sharegpt') {
    const converted = viewShareGPTRow(row, line);
    issues.push(...converted.issues);
    view = converted.view;
  } else {
    view = viewOpenAIRow(row);
  }
  issues.push(...tools.declarationIssues(view, line));
  issues.push(...checkProtocol(view, line));
  const args = tools.argumentIssues(view, line);
  issues.push(...args.issues);
  // Rendering a row that is already broken only repeats its problems in template words.
  if (template && !issues.some((issue) => issue.severity === 'error')) issues.push(...template.check(view, row, line));
  return { issues, forms: shape === 'openai' ? args.forms : 0 };
}

/** Row formats validate does not read, told by their keys, with what to do about them. */
const foreignShapes: ReadonlyArray<{ keys: readonly string[]; hint: string }> = [
  { keys: ['query', 'answers'], hint: 'this looks like xLAM (query/tools/answers): use `chatfmt convert --from xlam --to openai` first' },
  { keys: ['instruction', 'output'], hint: 'this looks like Alpaca (instruction/input/output), which has no turns or tool calls to check' },
  { keys: ['prompt', 'completion'], hint: 'this looks like a prompt/completion pair, not a conversation with "messages"' },
  { keys: ['chosen', 'rejected'], hint: 'this looks like a preference pair (chosen/rejected): validate each side as its own conversation' },
  { keys: ['role', 'content'], hint: 'this looks like a single message: a row is a conversation, {"messages": [...]}' },
];

function foreignShapeHint(row: Record<string, unknown>): string | undefined {
  return foreignShapes.find((shape) => shape.keys.every((key) => Object.hasOwn(row, key)))?.hint;
}
