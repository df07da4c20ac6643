import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDir } from '../helpers/shared.js';

/** ../shared/response-templates: transformers' templates, vectors and casting units (suites skip without it). */
export const rtDir = join(sharedDir, 'response-templates');
export const hasResponseTemplates = existsSync(join(rtDir, 'vectors.jsonl'));

export interface Vector {
  id: string;
  template: string;
  input: string;
  prefix: string | null;
  tools?: unknown[];
  expected: Record<string, unknown> | null;
  expected_error?: { type: string; match: string | string[] | null; raised_by: 'load' | 'feed' | 'finalize' };
  streaming?: { chunks: string[]; events?: unknown[][] };
}

function jsonl<T>(file: string): T[] {
  if (!hasResponseTemplates) return [];
  return readFileSync(join(rtDir, file), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T);
}

export const vectors = (): Vector[] => jsonl<Vector>('vectors.jsonl');
export const coerceUnits = (): Array<Record<string, unknown> & { id: string; kind: string }> => jsonl('coerce.jsonl');

export function templateNames(): string[] {
  if (!hasResponseTemplates) return [];
  return readdirSync(join(rtDir, 'templates')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
}

export function loadTemplate(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(rtDir, 'templates', `${name}.json`), 'utf8')) as Record<string, unknown>;
}

/** Feeds code point by code point (chunks must not split surrogate pairs, as with real token streams). */
export function codePointChunks(text: string): string[] {
  return Array.from(text);
}
