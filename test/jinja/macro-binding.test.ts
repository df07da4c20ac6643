import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../src/index.js';
import { loadProbes } from './probe-runner.js';

// Macro calls bind their arguments as jinja2's Macro.__call__ does, and fail with its words: a keyword naming a
// parameter a positional argument already filled is an unexpected keyword (or goes to `kwargs`), `caller=` given to a
// macro that cannot take it says so, and unexpected keywords are reported before extra positional arguments. The
// probes (interpreter-probes.jsonl, recorded from jinja2) check the outputs and error classes; this checks the messages.
const probes = loadProbes(join(__dirname, 'interpreter-probes.jsonl')).filter((probe) => probe.name.startsWith('macro binding as jinja2 binds') && probe.error?.startsWith('TypeError'));

describe("macro binding errors in jinja2's words", () => {
  it('has the recorded cases', () => expect(probes.length).toBeGreaterThanOrEqual(5));

  it.each(probes.map((probe) => [probe.template, probe.error!.slice('TypeError: '.length)]))('%s', (template, message) => {
    expect(() => compileTemplate(template, { name: 'probe' }).render({})).toThrow(message);
  });
});
