import { parsePythonJson } from '../jinja/json.js';
import type { Tool } from '../types.js';
import { UserError, type IO } from './io.js';
import { readInputText } from './read-input.js';

/** `--var key=value` pairs: the value is read as JSON when it parses (keeping 1.0 a float), else as a string. */
export function parseVariables(pairs: string[]): Record<string, unknown> | undefined {
  if (pairs.length === 0) return undefined;
  const variables: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UserError(`--var "${pair}": expected key=value`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = parsePythonJson(raw);
    } catch {
      // Not JSON: the value is the string itself.
    }
    variables[pair.slice(0, eq)] = value;
  }
  return variables;
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--tools FILE`: an OpenAI tools array, or an object with a "tools" array. */
export async function readToolsFile(file: string, io: IO): Promise<Tool[]> {
  const text = await readInputText(file, io);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const tools = Array.isArray(value) ? value : (value as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) throw new UserError(`${file}: expected a tools array or {"tools": [...]}`);
  return tools as Tool[];
}

/** A flag that takes a positive whole number (`--workers`, `--max-row-bytes`). */
export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,9}$/.test(value)) throw new UserError(`${flag} must be a positive integer, got "${value}"`);
  return Number(value);
}
