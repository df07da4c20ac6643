#!/usr/bin/env node
// `npm run bench`: every benchmark section, written to bench/RESULTS.md. Figures are ratios against
// anchors measured in the same run (jinja2, @huggingface/jinja, JSON.parse, batch parse, 1 worker),
// because these machines are noisy. `--quick` runs a short version; `--only render,parse` runs just those
// sections and replaces them in the existing RESULTS.md, keeping the others as they were (each says when it ran).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasShared, machine, root } from './lib.mjs';

const quick = process.argv.includes('--quick');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt > 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',').filter(Boolean)) : null;
if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('bench: dist/ is missing; run `npm run build` first');
  process.exit(2);
}

const SECTIONS = {
  render: async () => (hasShared
    ? (await import('./render.mjs')).renderSection({ quick })
    : '## Render\n\nskipped: ../shared (official templates, render_ref.py) not found'),
  'start-up': async () => (await import('./startup.mjs')).startupSection({ quick }),
  'cli-render': async () => (await import('./cli-render.mjs')).cliRenderSection({ quick }),
  parse: async () => (await import('./parse.mjs')).parseSection({ quick }),
  'response-templates': async () => (await import('./response-template.mjs')).responseTemplateSection({ quick }),
  adversarial: async () => (await import('./adversarial.mjs')).adversarialSection({ quick }),
  gateway: async () => (await import('./gateway.mjs')).gatewaySection({ quick }),
  'render-memory': async () => (await import('./render-memory.mjs')).renderMemorySection({ quick }),
  validate: async () => {
    const result = spawnSync(process.execPath, [join(root, 'bench', 'validate.mjs'), ...(quick ? ['--quick'] : [])], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (result.status !== 0) throw new Error(result.stderr.trim().split('\n').pop() ?? 'failed');
    return result.stdout.trim();
  },
};
const unknown = only ? [...only].filter((name) => !(name in SECTIONS)) : [];
if (only && (only.size === 0 || unknown.length > 0)) {
  console.error(`bench: --only takes a comma-separated list of: ${Object.keys(SECTIONS).join(', ')}${unknown.length ? ` (not: ${unknown.join(', ')})` : ''}`);
  process.exit(2);
}

const started = Date.now();
const fresh = [];
for (const [name, load] of Object.entries(SECTIONS)) {
  if (only && !only.has(name)) continue;
  process.stderr.write(`bench: ${name}...\n`);
  let text;
  try {
    text = await load();
  } catch (error) {
    text = `## ${name}\n\nfailed: ${error instanceof Error ? error.message : String(error)}`;
  }
  fresh.push(only ? `${text}\n\n_Section from \`npm run bench -- --only ${name}${quick ? ' --quick' : ''}\`, ${new Date().toISOString()}._` : text);
}

const resultsPath = join(root, 'bench', 'RESULTS.md');
let output;
if (only && existsSync(resultsPath)) {
  // Replace each fresh section where its heading stands; one the file lacks goes at the end.
  const old = readFileSync(resultsPath, 'utf8').replace(/\n+$/, '');
  const parts = old.split(/\n(?=## )/);
  // A bench may print several sections (validate.mjs: validate, then convert); each replaces its own.
  for (const section of fresh.flatMap((text) => text.split(/\n(?=## )/))) {
    const heading = section.split('\n', 1)[0];
    const title = heading.replace(/ \(.*$/, '');
    const at = parts.findIndex((part) => part.split('\n', 1)[0].replace(/ \(.*$/, '') === title);
    if (at >= 0) parts[at] = `${section}\n`;
    else parts.push(`\n${section}`);
  }
  output = parts.join('\n');
} else {
  output = [`# chatfmt benchmarks\n\nRun: ${new Date().toISOString()}${quick ? ' (quick)' : ''}\n\n${machine()}`, ...fresh,
    `_Total bench time: ${((Date.now() - started) / 1000).toFixed(0)} s._`].join('\n\n');
}
writeFileSync(resultsPath, `${output.replace(/\s+$/, '')}\n`);
process.stderr.write('bench: wrote bench/RESULTS.md\n');
