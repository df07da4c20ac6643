import { makeIssue, type DatasetIssue } from '../issues.js';
import { joinPath } from '../paths.js';
import { typeName } from '../schema.js';
import type { ToolSchemaCache } from './tool-schemas.js';
import { isPlainObject, type RowView } from './view.js';

/** Declared tools: duplicate names, `parameters` that are not usable JSON Schema (pseudo-types, bare maps). */
export function checkToolDeclarations(view: RowView, schemas: ToolSchemaCache, line: number): DatasetIssue[] {
  if (!view.tools) return [];
  const issues: DatasetIssue[] = [];
  const seen = new Set<string>();
  for (const tool of view.tools) {
    if (seen.has(tool.name)) {
      issues.push(makeIssue(line, 'TOOL_DUPLICATE_NAME', joinPath(tool.path, 'name'), `tool "${tool.name}" is declared twice`));
    }
    seen.add(tool.name);
    if (tool.parameters === undefined) continue;
    const base = joinPath(tool.path, 'parameters');
    for (const problem of schemas.get(tool.parameters).problems) {
      const path = problem.path === '' ? base : `${base}.${problem.path}`;
      issues.push(makeIssue(line, problem.code, path, `tool "${tool.name}": ${problem.message}`));
    }
  }
  return issues;
}

/** Bit flags of the argument forms a row uses, for the dataset-wide ARGS_MIXED_FORMS check. */
export const ARGS_FORM_STRING = 1;
export const ARGS_FORM_OBJECT = 2;

/** Every call's arguments: valid JSON, an object, valid against the declared tool's parameters. */
export function checkArguments(view: RowView, schemas: ToolSchemaCache, line: number): { issues: DatasetIssue[]; forms: number } {
  const issues: DatasetIssue[] = [];
  let forms = 0;
  const byName = new Map(view.tools?.map((tool) => [tool.name, tool]));
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
      const tool = typeof call.name === 'string' ? byName.get(call.name) : undefined;
      if (!tool || tool.parameters === undefined) continue;
      const compiled = schemas.get(tool.parameters);
      if (compiled.validate && !compiled.validate(args)) {
        const details = (compiled.validate.errors ?? []).slice(0, 3).map((e) => {
          const where = e.instancePath === '' ? 'arguments' : `arguments${e.instancePath.replaceAll('/', '.')}`;
          const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : '';
          return `${where} ${e.message ?? 'is invalid'}${extra}`;
        });
        issues.push(makeIssue(line, 'ARGS_SCHEMA_MISMATCH', call.argsPath, `arguments do not match the parameters of "${tool.name}": ${details.join('; ')}`));
        continue;
      }
      if (compiled.knownProperties) {
        const unknown = Object.keys(args as Record<string, unknown>).filter((key) => !compiled.knownProperties!.has(key));
        if (unknown.length > 0) {
          issues.push(makeIssue(line, 'ARGS_UNKNOWN_PARAMETER', call.argsPath, `"${tool.name}" has no parameter ${unknown.map((k) => `"${k}"`).join(', ')}`));
        }
      }
    }
  }
  return { issues, forms };
}
