#!/usr/bin/env node
// Regenerates every committed golden from the reference renderer (Python jinja2 set up as
// transformers sets it up). Needs python3 with jinja2 and ../shared beside the project.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const shared = fileURLToPath(new URL('../../shared/tools/render_ref.py', import.meta.url));
if (!existsSync(shared)) {
  console.error('goldens: ../shared/tools/render_ref.py not found; the goldens are made from ../shared');
  process.exit(2);
}
const python = spawnSync('python3', ['-c', 'import jinja2'], { stdio: 'ignore' });
if (python.status !== 0) {
  console.error('goldens: python3 with jinja2 is required (pip install jinja2)');
  process.exit(2);
}
let failed = false;
for (const script of ['goldens-official.mjs', 'goldens-family.mjs']) {
  console.log(`== ${script}`);
  const result = spawnSync(process.execPath, [here + script, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
