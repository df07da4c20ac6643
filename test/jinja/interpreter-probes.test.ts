// Probes of the interpreter's fast paths against jinja2 (interpreter-probes.jsonl, recorded with record-probes.py):
// iteration scopes reused between iterations, names read straight from the root scope, `is defined` without an
// Undefined, `+` chains in one closure, direct list indexing, printed literals joined with the text around them, and
// the root scope kept in compile-time slots (variables over globals, top-level sets, names hidden by inner scopes),
// if conditions tested inline (short-circuits, undefined operands) and `{{ a + b }}` printed by one closure.
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import { defineProbeTests, loadProbes } from './probe-runner.js';

describe('interpreter fast-path probes (test/jinja/interpreter-probes.jsonl)', () => {
  defineProbeTests(loadProbes(fileURLToPath(new URL('./interpreter-probes.jsonl', import.meta.url))), {});
});
