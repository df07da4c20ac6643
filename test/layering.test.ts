import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { layerOf, layerViolations } from './helpers/layers.js';
import { tempDir } from './helpers/tmp.js';

const tree = tempDir();

const src = fileURLToPath(new URL('../src', import.meta.url));

describe('the import layers of src/', () => {
  it('every import runs downward, and every module has a layer', () => {
    expect(layerViolations(src)).toEqual([]);
  });

  it('places the modules the issue was about below their users', () => {
    expect(layerOf('readers/jsonl.ts')).toBeLessThan(layerOf('convert/import-dataset.ts')!);
    expect(layerOf('convert/import-dataset.ts')).toBeLessThan(layerOf('validate/row.ts')!);
    expect(layerOf('response-template/executor.ts')).toBeLessThan(layerOf('parse/response.ts')!);
    expect(layerOf('parse/response.ts')).toBeLessThan(layerOf('export/response-template.ts')!);
    expect(layerOf('parse/grammars/qwen3-coder.ts')).toBeLessThan(layerOf('registry/families.ts')!);
    expect(layerOf('registry/families.ts')).toBeLessThan(layerOf('parse/stream.ts')!);
  });

  it('reports an upward import, a multi-line re-export, a dynamic import and an unclaimed module', () => {
    tree.write('src/util/guards.ts', 'export const x = 1;\n');
    tree.write('src/families/info.ts', "import { x } from '../util/guards.js';\nimport type { Y } from '../cli/main.js';\n");
    tree.write('src/jinja/index.ts', "export {\n  a,\n  b,\n} from '../render/index.js';\nconst later = () => import('../parse/stream.js');\n");
    tree.write('src/render/index.ts', "import '../somewhere/new.js';\n");
    const found = layerViolations(tree.path + '/src').map(({ from, to }) => `${from} -> ${to}`);
    expect(found.sort()).toEqual(
      ['families/info.ts -> cli/main.ts', 'jinja/index.ts -> parse/stream.ts', 'jinja/index.ts -> render/index.ts', 'render/index.ts -> somewhere/new.ts'].sort(),
    );
  });
});
