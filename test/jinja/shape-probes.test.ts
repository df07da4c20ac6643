// Probes for the specialised paths of issue 18's slowest templates (compile-shapes.ts, the string methods, filters
// and repr the slowest official templates lean on): each template's output or exception as jinja2 3.1.6 gave it
// under transformers' configuration, recorded with record-probes.py, edge cases included.
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import { defineProbeTests, loadProbes } from './probe-runner.js';

describe('jinja2 probes of the specialised paths (test/jinja/shape-probes.jsonl)', () => {
  defineProbeTests(loadProbes(fileURLToPath(new URL('./shape-probes.jsonl', import.meta.url))), {});
});
