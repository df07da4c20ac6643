#!/usr/bin/env node
// Regenerates fixtures/render/official/<dir>/<template>/<input>.<args>.txt (or .error.txt) with the reference
// renderer (../shared/tools/render_ref.py: Python jinja2 configured like transformers). One python3 process per
// template and argument form (--batch), so a full run takes seconds. Needs python3 + jinja2 and ../shared.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const shared = path.resolve(repo, '..', 'shared');
const renderRef = path.join(shared, 'tools', 'render_ref.py');
const officialDir = path.join(shared, 'templates', 'official');
const inputsDir = path.join(shared, 'templates', 'inputs');
const outDir = path.join(repo, 'fixtures', 'render', 'official');
const NOW = '2025-01-15T12:00:00';
const ARGS = ['keep', 'string', 'dict'];

const inputs = readdirSync(inputsDir).filter((f) => f.endsWith('.json')).sort();
// Input JSON goes to Python verbatim (one line each) so `1.0` and key order survive.
const batchFile = path.join(os.tmpdir(), `chatfmt-official-inputs-${process.pid}.jsonl`);
writeFileSync(batchFile, inputs.map((f) => readFileSync(path.join(inputsDir, f), 'utf8').replace(/\r?\n/g, ' ').trim()).join('\n') + '\n');

rmSync(outDir, { recursive: true, force: true });
let files = 0;
let errors = 0;
try {
  for (const dir of readdirSync(officialDir).sort()) {
    for (const file of readdirSync(path.join(officialDir, dir)).filter((f) => f.endsWith('.jinja')).sort()) {
      const stem = file.slice(0, -'.jinja'.length);
      const target = path.join(outDir, dir, stem);
      mkdirSync(target, { recursive: true });
      for (const args of ARGS) {
        const result = spawnSync(
          'python3',
          [renderRef, path.join(officialDir, dir, file), '--batch', batchFile, '--tokens', dir, '--args', args, '--now', NOW],
          { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
        );
        if (result.status !== 0) {
          console.error(`render_ref failed for ${dir}/${file} --args ${args}:\n${result.stderr}`);
          process.exit(1);
        }
        const lines = result.stdout.split('\n').filter((l) => l !== '');
        if (lines.length !== inputs.length) throw new Error(`expected ${inputs.length} results for ${file}, got ${lines.length}`);
        lines.forEach((line, i) => {
          const out = JSON.parse(line);
          const base = path.join(target, `${inputs[i].slice(0, -'.json'.length)}.${args}`);
          if (out.error !== undefined) {
            writeFileSync(`${base}.error.txt`, out.error + '\n');
            errors++;
          } else writeFileSync(`${base}.txt`, out.text);
          files++;
        });
      }
    }
  }
} finally {
  rmSync(batchFile, { force: true });
}
console.log(`goldens-official: ${files} goldens (${errors} jinja2 errors) in ${path.relative(repo, outDir)}`);
