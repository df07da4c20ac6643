import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '../../src/types.js';

export interface ExpectedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Checked when present (Kimi ids, or ids from the test's deterministic generator). */
  id?: string;
  /** The exact arguments string, when the family streams the model's own JSON text. */
  arguments_text?: string;
}

export interface ExpectedMessage {
  note?: string;
  content: string | null;
  reasoning_content: string | null;
  tool_calls: ExpectedCall[];
  /** When present, the diagnostic codes must match in order (and spans, where given). */
  diagnostics?: { code: string; span?: [number, number] }[];
}

export interface ParseFixture {
  family: string;
  name: string;
  completion: string;
  prefix?: string;
  tools?: Tool[];
  expected: ExpectedMessage;
}

export const parseFixtureRoot = new URL('../../fixtures/parse/', import.meta.url);

/** Every case under fixtures/parse/<family>/<case>/; adding a folder adds a test. */
export function loadParseFixtures(root: URL = parseFixtureRoot): ParseFixture[] {
  const fixtures: ParseFixture[] = [];
  const rootPath = root.pathname;
  for (const family of readdirSync(rootPath, { withFileTypes: true })) {
    if (!family.isDirectory()) continue;
    for (const entry of readdirSync(join(rootPath, family.name), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(rootPath, family.name, entry.name);
      const read = (file: string): string | undefined =>
        existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8') : undefined;
      const completion = read('completion.txt');
      const expected = read('expected.json');
      if (completion === undefined || expected === undefined) {
        throw new Error(`fixture ${family.name}/${entry.name} needs completion.txt and expected.json`);
      }
      const tools = read('tools.json');
      const prefix = read('prefix.txt');
      fixtures.push({
        family: family.name,
        name: entry.name,
        completion,
        expected: JSON.parse(expected) as ExpectedMessage,
        ...(tools !== undefined ? { tools: JSON.parse(tools) as Tool[] } : {}),
        ...(prefix !== undefined ? { prefix } : {}),
      });
    }
  }
  return fixtures.sort((a, b) => (a.family + '/' + a.name).localeCompare(b.family + '/' + b.name));
}
