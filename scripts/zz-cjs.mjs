import { build } from 'esbuild';
import { nodeBundleOptions } from './bundle-options.mjs';
await build({ ...nodeBundleOptions, splitting: false, format: 'cjs', entryPoints: { chatfmt: 'src/cli/process.ts' }, outdir: '/work/wt-start/dist/cjs-try', outExtension: { '.js': '.cjs' },
  external: ['ajv', 'ajv/*', 're2js', '@huggingface/tokenizers'], define: { 'import.meta.url': 'chatfmtModuleUrl' },
  banner: { js: '"use strict"; const chatfmtModuleUrl = require("node:url").pathToFileURL(__filename).href;' } });
