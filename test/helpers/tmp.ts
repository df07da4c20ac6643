import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

// Folders not removed yet. afterAll registered inside a running test never runs, so the exit hook removes what is left.
const pending = new Set<string>();
process.once('exit', () => {
  for (const path of pending) rmSync(path, { recursive: true, force: true });
});

/** A temp folder for the current test file, removed after it; `write` creates parents as needed. */
export function tempDir(prefix = 'chatfmt-test-'): { path: string; write(relative: string, text: string): string } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  pending.add(path);
  afterAll(() => {
    rmSync(path, { recursive: true, force: true });
    pending.delete(path);
  });
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
