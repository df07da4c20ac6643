// Locates the read-only ground truth in ../shared (next to the repository); tests skip when it is absent.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sharedDir = path.resolve(repoRoot, '..', 'shared');
export const hasShared = existsSync(path.join(sharedDir, 'templates', 'probes.jsonl'));
