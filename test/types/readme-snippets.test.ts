import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { strictDiagnostics } from '../helpers/typecheck.js';

// Issue 10 item 14: the README's `formatCompletion(parse(...))` did not type-check under --strict. Every ```ts block of
// the README is compiled here, against the sources, with the free names its prose assumes declared.
const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);

function snippetModule(): string {
  const imports = new Set<string>();
  const coreImports = new Set<string>();
  const bodies = blocks.map((block, i) => {
    const lines = block.split('\n');
    for (const line of lines) {
      const names = /^import \{([^}]*)\} from 'chatfmt(\/core)?';$/.exec(line.trim());
      if (names) for (const name of names[1]!.split(',')) (names[2] ? coreImports : imports).add(name.trim());
    }
    const body = lines.filter((line) => !line.trim().startsWith('import ')).join('\n');
    return `async function snippet${i}(): Promise<void> {\n${body}\n}\nvoid snippet${i};`;
  });
  return [
    // A name some snippet takes from the core is checked against the core's export (the same function in Node).
    `import { ${[...imports].filter((name) => !coreImports.has(name)).concat('type Message', 'type Tool').join(', ')} } from 'chatfmt';`,
    ...(coreImports.size > 0 ? [`import { ${[...coreImports].join(', ')} } from 'chatfmt/core';`] : []),
    'declare const messages: Message[];',
    'declare const tools: Tool[];',
    'declare const text: string;',
    'declare const tokens: AsyncIterable<string>;',
    'declare function send(delta: unknown): void;',
    ...bodies,
  ].join('\n');
}

describe('README TypeScript snippets', () => {
  const snippetDir = tempDir('chatfmt-readme-');
  it('has snippets to check', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it('type-check under strict against the sources', () => {
    const dir = snippetDir.path;
    const file = join(dir, 'snippets.ts');
    writeFileSync(file, snippetModule());
    const problems = strictDiagnostics([file], { chatfmt: [join(root, 'src', 'index.ts')], 'chatfmt/core': [join(root, 'src', 'core.ts')] });
    expect(problems).toEqual([]);
  }, 60_000);
});
