import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

/** A temp folder for the current test file, removed after it; `write` creates parents as needed. */
export function tempDir(prefix = 'chatfmt-test-'): { path: string; write(relative: string, text: string): string } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(path, { recursive: true, force: true }));
  return {
    path,
    write(relative: string, text: string): string {
      const file = join(path, relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
  };
}
