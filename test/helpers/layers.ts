import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * The layers of src/, lowest first: a module may import from its own layer or one below it, never above. A path
 * ending in `/` is a folder, anything else one file; the longest matching path decides, so a few files of parse/
 * (the engine and grammars the registry is built on) sit lower than the parse API. README's Layout follows this.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['util/', 'errors.ts', 'types.ts'],
  ['jinja/'],
  ['families/', 'readers/'],
  ['parse/engine/', 'parse/args/', 'parse/grammars/', 'parse/harmony/', 'parse/core.ts', 'parse/ids.ts', 'parse/assistant-headers.ts'],
  ['response-template/'],
  ['registry/'],
  ['render/'],
  ['parse/'],
  ['format/', 'export/'],
  ['detect/'],
  ['node/'],
  ['convert/'],
  ['validate/'],
  ['gateway/'],
  ['gateway/node/', 'gateway/index.ts', 'ai-sdk/', 'playground/'],
  ['cli/'],
  ['core.ts', 'index.ts', 'render-entry.ts', 'parse-entry.ts'],
];

/** The layer index of a module path relative to src/ (posix separators); undefined when no layer claims it. */
export function layerOf(modulePath: string): number | undefined {
  let best: { layer: number; length: number } | undefined;
  LAYERS.forEach((paths, layer) => {
    for (const path of paths) {
      const matches = path.endsWith('/') ? modulePath.startsWith(path) : modulePath === path;
      if (matches && (best === undefined || path.length > best.length)) best = { layer, length: path.length };
    }
  });
  return best?.layer;
}

// Static imports and re-exports (one or many lines), side-effect imports and dynamic import() of a literal.
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

export interface LayerViolation {
  from: string;
  to: string;
  problem: string;
}

/** Every import in the .ts files under srcDir that runs upward, or touches a module no layer claims. */
export function layerViolations(srcDir: string): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const file of tsFiles(srcDir)) {
    const from = relative(srcDir, file).split('\\').join('/');
    const fromLayer = layerOf(from);
    if (fromLayer === undefined) violations.push({ from, to: from, problem: 'no layer claims this module' });
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (!specifier.startsWith('.')) continue;
      const to = normalize(join(dirname(from), specifier)).split('\\').join('/').replace(/\.js$/, '.ts');
      const toLayer = layerOf(to);
      if (toLayer === undefined) violations.push({ from, to, problem: 'imports a module no layer claims' });
      else if (fromLayer !== undefined && toLayer > fromLayer) violations.push({ from, to, problem: `layer ${fromLayer} imports layer ${toLayer}` });
    }
  }
  return violations;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
