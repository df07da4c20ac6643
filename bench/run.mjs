#!/usr/bin/env node
// `npm run bench`: every benchmark section, written to bench/RESULTS.md. Figures are ratios against
// anchors measured in the same run (jinja2, @huggingface/jinja, JSON.parse, batch parse, 1 worker),
// because these machines are noisy. `--quick` runs a short version.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasShared, machine, root } from './lib.mjs';

const quick = process.argv.includes('--quick');
if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('bench: dist/ is missing; run `npm run build` first');
  process.exit(2);
}
const sections = [`# chatfmt benchmarks\n\nRun: ${new Date().toISOString()}${quick ? ' (quick)' : ''}\n\n${machine()}`];
const started = Date.now();

async function section(name, load) {
  process.stderr.write(`bench: ${name}...\n`);
  try {
    sections.push(await load());
  } catch (error) {
    sections.push(`## ${name}\n\nfailed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

if (hasShared) await section('render', async () => (await import('./render.mjs')).renderSection({ quick }));
else sections.push('## Render\n\nskipped: ../shared (official templates, render_ref.py) not found');
await section('start-up', async () => (await import('./startup.mjs')).startupSection({ quick }));
await section('CLI render end to end', async () => (await import('./cli-render.mjs')).cliRenderSection({ quick }));
await section('parse', async () => (await import('./parse.mjs')).parseSection({ quick }));
await section('response templates', async () => (await import('./response-template.mjs')).responseTemplateSection({ quick }));
await section('adversarial', async () => (await import('./adversarial.mjs')).adversarialSection({ quick }));
await section('gateway', async () => (await import('./gateway.mjs')).gatewaySection({ quick }));
await section('render memory', async () => (await import('./render-memory.mjs')).renderMemorySection({ quick }));
await section('validate', async () => {
  const result = spawnSync(process.execPath, [join(root, 'bench', 'validate.mjs'), ...(quick ? ['--quick'] : [])], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(result.stderr.trim().split('\n').pop() ?? 'failed');
  return result.stdout.trim();
});
sections.push(`_Total bench time: ${((Date.now() - started) / 1000).toFixed(0)} s._`);
writeFileSync(join(root, 'bench', 'RESULTS.md'), `${sections.join('\n\n')}\n`);
process.stderr.write('bench: wrote bench/RESULTS.md\n');
