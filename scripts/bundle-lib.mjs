#!/usr/bin/env node
// Bundles the library's entry points (`chatfmt`, `chatfmt/core`, `chatfmt/render`, `chatfmt/parse`,
// `chatfmt/gateway`, `chatfmt/ai-sdk`) into dist/lib/, chunks shared between them, then points each entry file tsc
// wrote at its bundle.
// Importing `chatfmt` as ~190 separate modules cost three times what the same code costs as a few chunks: Node
// resolves, stats, reads and compiles each module on its own. One build for all entries keeps one copy of every
// module, so a ChatfmtError from `chatfmt/gateway` is the ChatfmtError of `chatfmt`. Dependencies stay in node_modules.
// The entry files keep their names (package.json exports and the .d.ts beside them do not change); when this step
// has not run (no esbuild), they are the modules tsc wrote and work as they are, only slower to import.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { nodeBundleOptions, root } from './bundle-options.mjs';

const outdir = `${root}dist/lib`;
// Bundle name → the entry file under dist/ that re-exports it.
const entries = {
  index: { source: 'src/index.ts', file: 'index.js' },
  core: { source: 'src/core.ts', file: 'core.js' },
  'render-entry': { source: 'src/render-entry.ts', file: 'render-entry.js' },
  'parse-entry': { source: 'src/parse-entry.ts', file: 'parse-entry.js' },
  gateway: { source: 'src/gateway/index.ts', file: 'gateway/index.js' },
  'ai-sdk': { source: 'src/ai-sdk/index.ts', file: 'ai-sdk/index.js' },
};

rmSync(outdir, { recursive: true, force: true });
try {
  await build({
    ...nodeBundleOptions,
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, { source }]) => [name, source])),
    outdir,
    packages: 'external',
  });
} catch {
  // esbuild has printed the errors.
  process.exit(1);
}
for (const [name, { file }] of Object.entries(entries)) {
  const up = '../'.repeat(file.split('/').length - 1) || './';
  writeFileSync(`${root}dist/${file}`, `// The bundled library (scripts/bundle-lib.mjs); tsc's modules for this entry are beside it in dist/.\nexport * from '${up}lib/${name}.js';\n`);
}
