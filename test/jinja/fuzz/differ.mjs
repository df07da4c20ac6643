// Renders jinja2-recorded probes (record-probes.py output) with chatfmt's built engine and prints each case whose
// output or error differs, one per distinct shape (the template after its first literal), with a count. Exit 1 when
// any differ. Usage: see generate.py. Needs `npm run build` first (it reads dist/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const engine = fileURLToPath(new URL('../../../dist/jinja/index.js', import.meta.url));
const { compileTemplate, parsePythonJson } = await import(engine);
const NOW = new Date('2025-01-15T12:00:00Z');

const file = process.argv[2];
if (!file) {
  console.error('usage: node test/jinja/fuzz/differ.mjs RECORDED.jsonl');
  process.exit(2);
}

/** jinja2's SyntaxErrors end with a line of its generated Python module, which says nothing about the template. */
const comparable = (error) => error.replace(/ \(<template>, line \d+\)$/, '');

let total = 0;
let differing = 0;
const shapes = new Map();
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (line.trim() === '') continue;
  // Python's JSON reading: 1.0 stays a float, as record-probes.py wrote it.
  const probe = parsePythonJson(line);
  total++;
  let got;
  try {
    got = { text: compileTemplate(probe.template, { name: 'probe' }).render(probe.context ?? {}, { now: NOW }).text };
  } catch (error) {
    got = { error: `${error.pythonType}: ${error.pythonMessage ?? error.message}` };
  }
  const same = probe.expected !== undefined ? got.text === probe.expected : got.error === comparable(probe.error);
  if (same) continue;
  differing++;
  const shape = probe.template.length > 2000 ? `${probe.template.slice(0, 80)}…` : probe.template.replace(/^\{\{ \(.*?\)/, '');
  const seen = shapes.get(shape);
  if (seen) seen.count++;
  else shapes.set(shape, { count: 1, probe, got });
}

for (const { count, probe, got } of shapes.values()) {
  console.log(`${count}× ${probe.template}`);
  if (probe.context && Object.keys(probe.context).length > 0) console.log(`   context ${JSON.stringify(probe.context)}`);
  console.log(`   jinja2  ${JSON.stringify(probe.expected ?? probe.error)}`);
  console.log(`   chatfmt ${JSON.stringify(got.text ?? got.error)}`);
}
console.log(`${differing} of ${total} differ`);
process.exitCode = differing > 0 ? 1 : 0;
