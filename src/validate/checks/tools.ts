import { makeIssue, type DatasetIssue, type DatasetIssueCode } from '../../readers/issues.js';
import { joinPath } from '../../readers/paths.js';
import { typeName } from '../schema.js';
import type { CompiledToolSchema, ToolSchemaCache } from './tool-schemas.js';
import { isPlainObject } from '../../util/guards.js';
import type { RowView, ToolView } from './view.js';

/** Bit flags of the argument forms a row uses, for the dataset-wide ARGS_MIXED_FORMS check. */
export const ARGS_FORM_STRING = 1;
export const ARGS_FORM_OBJECT = 2;

interface DeclaredTool {
  tool: ToolView;
  schema: CompiledToolSchema | undefined;
}

/** A row's tool declarations, checked once: problems (without a line) and each name's compiled schema. */
interface Declarations {
  problems: Array<{ code: DatasetIssueCode; path: string; message: string }>;
  byName: Map<string, DeclaredTool>;
}

/**
 * Checks tool declarations and call arguments. Datasets repeat the same tool list on every row, so the checked
 * declarations are cached by the tools' JSON text (bounded, like the schema cache under it).
 */
export class ToolChecks {
  private readonly declarations = new Map<string, Declarations>();
  constructor(private readonly schemas: ToolSchemaCache, private readonly limit = 1000) {}

  private declared(view: RowView): Declarations | undefined {
    if (!view.tools) return undefined;
    let entry = this.declarations.get(view.toolsKey);
    if (!entry) {
      if (this.declarations.size >= this.limit) this.declarations.clear();
      entry = this.checkDeclarations(view.tools);
      this.declarations.set(view.toolsKey, entry);
    }
    return entry;
  }

  /** Duplicate names, and `parameters` that are not usable JSON Schema (pseudo-types, bare maps, invalid). */
  private checkDeclarations(tools: ToolView[]): Declarations {
    const declarations: Declarations = { problems: [], byName: new Map() };
    for (const tool of tools) {
      if (declarations.byName.has(tool.name)) {
        declarations.problems.push({ code: 'TOOL_DUPLICATE_NAME', path: joinPath(tool.path, 'name'), message: `tool "${tool.name}" is declared twice` });
        continue;
      }
      const schema = tool.parameters === undefined ? undefined : this.schemas.get(tool.parameters);
      declarations.byName.set(tool.name, { tool, schema });
      const base = joinPath(tool.path, 'parameters');
      for (const problem of schema?.problems ?? []) {
        declarations.problems.push({ code: problem.code, path: problem.path === '' ? base : `${base}.${problem.path}`, message: `tool "${tool.name}": ${problem.message}` });
      }
    }
    return declarations;
  }

  declarationIssues(view: RowView, line: number): DatasetIssue[] {
    return (this.declared(view)?.problems ?? []).map((p) => makeIssue(line, p.code, p.path, p.message));
  }

  /** Every call's arguments: valid JSON, an object, valid against the declared tool's parameters. */
  argumentIssues(view: RowView, line: number): { issues: DatasetIssue[]; forms: number } {
    const issues: DatasetIssue[] = [];
    let forms = 0;
    const declared = this.declared(view);
    for (const turn of view.turns) {
      if (turn.kind !== 'calls') continue;
      for (const call of turn.calls) {
        let args: unknown = call.args;
        if (typeof args === 'string') {
          forms |= ARGS_FORM_STRING;
          try {
            args = JSON.parse(args);
          } catch (error) {
            issues.push(makeIssue(line, 'ARGS_INVALID_JSON', call.argsPath, `arguments is not valid JSON: ${(error as Error).message}`));
            continue;
          }
          if (!isPlainObject(args)) {
            issues.push(makeIssue(line, 'ARGS_NOT_OBJECT', call.argsPath, `arguments must be a JSON object, got ${typeName(args)} in a string`));
            continue;
          }
        } else if (isPlainObject(args)) {
          forms |= ARGS_FORM_OBJECT;
        } else {
          if (args !== undefined) issues.push(makeIssue(line, 'ARGS_NOT_OBJECT', call.argsPath, `arguments must be an object or a JSON string of one, got ${typeName(args)}`));
          continue;
        }
        const entry = typeof call.name === 'string' ? declared?.byName.get(call.name) : undefined;
        const schema = entry?.schema;
        if (!entry || !schema) continue;
        if (schema.validate && !schema.validate(args)) {
          const details = (schema.validate.errors ?? []).slice(0, 3).map((e) => {
            const where = e.instancePath === '' ? 'arguments' : `arguments${e.instancePath.replaceAll('/', '.')}`;
            const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : '';
            return `${where} ${e.message ?? 'is invalid'}${extra}`;
          });
          issues.push(makeIssue(line, 'ARGS_SCHEMA_MISMATCH', call.argsPath, `arguments do not match the parameters of "${entry.tool.name}": ${details.join('; ')}`));
          continue;
        }
        if (schema.knownProperties) {
          const unknown = Object.keys(args as Record<string, unknown>).filter((key) => !schema.knownProperties!.has(key));
          if (unknown.length > 0) {
            issues.push(makeIssue(line, 'ARGS_UNKNOWN_PARAMETER', call.argsPath, `"${entry.tool.name}" has no parameter ${unknown.map((k) => `"${k}"`).join(', ')}`));
          }
        }
      }
    }
    return { issues, forms };
  }
}
