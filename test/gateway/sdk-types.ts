// Reads field lists out of the official SDKs' TypeScript declarations, so the protocol tests check every frame the
// gateway writes against the types a client compiles against: no field the type lacks, every required field there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';

export interface FieldSet {
  all: Set<string>;
  required: Set<string>;
}

const declarations = new Map<string, string>();

function declarationText(file: string): string {
  let text = declarations.get(file);
  if (text === undefined) {
    text = readFileSync(join(repoRoot, 'node_modules', file), 'utf8');
    declarations.set(file, text);
  }
  return text;
}

/**
 * The fields of `interface Name` (or `Namespace.Name`, declared inside `export declare namespace Namespace`),
 * read from a .d.ts as tsc writes it: four spaces deeper than the interface line, one field per line.
 */
export function fieldsOf(file: string, qualifiedName: string): FieldSet {
  const lines = declarationText(file).split('\n');
  const parts = qualifiedName.split('.');
  const name = parts[parts.length - 1]!;
  let from = 0;
  if (parts.length === 2) {
    from = lines.findIndex((line) => line.startsWith(`export declare namespace ${parts[0]} {`));
    if (from < 0) throw new Error(`no namespace ${parts[0]} in ${file}`);
  }
  const opener = parts.length === 2 ? `    interface ${name} {` : `export interface ${name} {`;
  const start = lines.findIndex((line, i) => i >= from && line.startsWith(opener));
  if (start < 0) throw new Error(`no interface ${qualifiedName} in ${file}`);
  const indent = opener.length - opener.trimStart().length;
  const fieldIndent = ' '.repeat(indent + 4);
  const close = `${' '.repeat(indent)}}`;
  const all = new Set<string>();
  const required = new Set<string>();
  for (let i = start + 1; i < lines.length && lines[i] !== close; i++) {
    const line = lines[i]!;
    if (!line.startsWith(fieldIndent) || line[fieldIndent.length] === ' ') continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)(\??):/.exec(line.slice(fieldIndent.length));
    if (match === null) continue;
    all.add(match[1]!);
    if (match[2] === '') required.add(match[1]!);
  }
  if (all.size === 0) throw new Error(`interface ${qualifiedName} in ${file} read as empty`);
  return { all, required };
}

/** Fields of `value` the type lacks, and required fields `value` lacks, as readable lines (empty = conforms). */
export function shapeProblems(value: Record<string, unknown>, fields: FieldSet, where: string, optional: readonly string[] = []): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(value)) if (!fields.all.has(key)) problems.push(`${where}: field ${key} is not in the SDK type`);
  for (const key of fields.required) {
    if (!(key in value) && !optional.includes(key)) problems.push(`${where}: required field ${key} is missing`);
  }
  return problems;
}
