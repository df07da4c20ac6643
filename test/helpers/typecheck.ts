import { join } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './shared.js';

/**
 * Type-checks files under --strict the way a user's project would see chatfmt: `paths` maps the package's import
 * names to the sources. Returns every diagnostic as one string (empty: the files compile).
 */
export function strictDiagnostics(files: string[], paths: Record<string, string[]>): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ['node'],
    typeRoots: [join(repoRoot, 'node_modules', '@types')],
    skipLibCheck: true,
    baseUrl: repoRoot,
    paths,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
