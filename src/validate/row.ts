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
import type { ImportedConversation, ImportShape } from '../convert/importers/types.js';
import { importableValue } from '../convert/import-dataset.js';
import { exactJson } from '../convert/exact-json.js';
import { rowPathOf } from '../convert/source-paths.js';
import { foreignShapeHint } from './foreign-shapes.js';
import { append } from '../util/append.js';

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
  /**
   * The conversation convert writes for this row: null exactly when an issue is an error. Validate and convert share
   * this one verdict, so a row one of them rejects the other rejects too, with the same issues.
   */
  conversation: ImportedConversation | null;
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
      if (record.problem) return rejected([makeIssue(record.line, record.problem.code, '', record.problem.message)]);
      try {
        return validateText(record.text, record.line, options, tools, template);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return rejected([makeIssue(record.line, 'INTERNAL_ERROR', '', `a check failed on this row: ${message}`)]);
      }
    },
  };
}

function validateText(text: string, line: number, options: RowCheckOptions, tools: ToolChecks, template: TemplateChecker | undefined): RowOutcome {
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch (error) {
    return rejected([makeIssue(line, 'ROW_INVALID_JSON', '', `not valid JSON: ${(error as Error).message}`)]);
  }
  if (nestingDepth(row) > ROW_MAX_DEPTH) return rejected([makeIssue(line, 'ROW_TOO_DEEP', '', tooDeepMessage())]);
  if (!isPlainObject(row)) return rejected([makeIssue(line, 'ROW_NOT_OBJECT', '', `row must be a JSON object, got ${typeName(row)}`)]);
  const declared = options.shape;
  const foreign = foreignShapeHint(row, declared);
  if (foreign) return rejected([makeIssue(line, 'ROW_WRONG_SHAPE', '', foreign)]);
  // What convert writes: the importer's conversation, read with render's number model (1.0 stays a float).
  const exactImport = () => importRow(importableValue(text, row), declared, line);
  if (declared === 'openai' || declared === 'sharegpt') {
    const checked = validateRow(row, line, declared, tools, template);
    // A row the checks reject is reported in their words only: the importer would say the same thing again.
    if (hasError(checked.issues)) return rejected(checked.issues, checked.forms);
    const imported = exactImport();
    const issues = [...checked.issues, ...notYetSaid(imported.issues, checked.issues)];
    return { issues, forms: checked.forms, conversation: hasError(issues) ? null : imported.conversation };
  }
  // Checked as the conversation convert makes of it; the importer's issues come first. The checks read plain JSON
  // (render's number model holds big integers and floats that JSON.stringify and ajv do not take).
  const imported = exactImport();
  if (!imported.conversation) return rejected(imported.issues);
  const plain = JSON.parse(exactJson(imported.conversation)) as Record<string, unknown>;
  const checked = validateRow(plain, line, 'openai', tools, template);
  // The checks saw the imported conversation; their paths name the row's own places.
  const own = checked.issues.map((issue) => ({ ...issue, path: rowPathOf(imported.conversation!, issue.path) }));
  const issues = [...imported.issues, ...own];
  if (hasError(issues)) return rejected(issues, checked.forms);
  return { issues, forms: checked.forms, conversation: imported.conversation };
}

function rejected(issues: DatasetIssue[], forms = 0): RowOutcome {
  return { issues, forms, conversation: null };
}

const hasError = (issues: readonly DatasetIssue[]) => issues.some((issue) => issue.severity === 'error');

/** Importer issues the checks have not already reported at the same place. */
function notYetSaid(imported: readonly DatasetIssue[], checked: readonly DatasetIssue[]): DatasetIssue[] {
  const said = new Set(checked.map((issue) => `${issue.code} ${issue.path}`));
  return imported.filter((issue) => !said.has(`${issue.code} ${issue.path}`));
}

function validateRow(row: Record<string, unknown>, line: number, shape: RowShape, tools: ToolChecks, template: TemplateChecker | undefined): { issues: DatasetIssue[]; forms: number } {
  const issues = checkStructure(row, shape, line);
  let view: RowView;
  if (shape === 'sharegpt') {
    const converted = viewShareGPTRow(row, line);
    append(issues, converted.issues);
    view = converted.view;
  } else {
    view = viewOpenAIRow(row);
  }
  append(issues, tools.declarationIssues(view, line));
  append(issues, checkProtocol(view, line));
  const args = tools.argumentIssues(view, line);
  append(issues, args.issues);
  // Rendering a row that is already broken only repeats its problems in template words.
  if (template && !issues.some((issue) => issue.severity === 'error')) append(issues, template.check(view, row, line));
  return { issues, forms: shape === 'openai' ? args.forms : 0 };
}
