// The README's AI SDK examples (the ```typescript blocks of its "AI SDK" section) type-check under strict against the
// sources and the installed `ai`, with the one free name their prose assumes (`chatModel`) declared.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';
import { strictDiagnostics } from '../helpers/typecheck.js';

function sectionBlocks(): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## AI SDK\n');
  const end = readme.indexOf('\n## ', start + 1);
  return [...readme.slice(start, end).matchAll(/```typescript\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('README AI SDK examples', () => {
  const dir = tempDir('chatfmt-readme-ai-sdk-');

  it('type-check under strict', () => {
    const blocks = sectionBlocks();
    expect(blocks.length).toBe(2);
    const files = blocks.map((block, i) => {
      const file = join(dir.path, `example${i}.ts`);
      writeFileSync(file, `import type { LanguageModelV4 } from '@ai-sdk/provider';\ndeclare const chatModel: LanguageModelV4;\n${block}\nexport {};\n`);
      return file;
    });
    const problems = strictDiagnostics(files, {
      'chatfmt/ai-sdk': [join(repoRoot, 'src', 'ai-sdk', 'index.ts')],
      '*': [join(repoRoot, 'node_modules', '*')],
    });
    expect(problems).toEqual([]);
  }, 180_000);
});
