// chatfmt's own differential probes: extra-probes.jsonl holds templates with the output (or exception class)
// jinja2 3.1.6 gave under transformers' configuration (recorded once with ../shared/tools/render_ref.py's
// environment; the test itself needs no Python).
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import { defineProbeTests, loadProbes } from './probe-runner.js';

/** Known differences, each with its reason. */
const SKIP: Record<string, string> = {
  '{{ range(10)[2:5] }}|{{ range(0) }}': 'range() returns a list, so it prints as a list rather than range(a, b)',
  "{{ range(3)|list|tojson }}|{{ range(1, 10, 3)|list }}|{{ range(-3) }}": 'range() returns a list (printing)',
  "{{ {'a': 1}.items() }}": 'dict.items() returns a list of tuples, printed without dict_items(...)',
  "{{ '\\N{BULLET}' }}|{{ '\\101' }}|{{ '\\q' }}": '\\N{name} escapes need the Unicode name database',
  "{{ 4 ** 0.5 }}|{{ (-8) ** (1/3) }}": 'no complex numbers',
  '{{ 1.5.real }}': 'no attributes on numbers',
  '{% for a, in [[1]] %}{{ a }}{% endfor %}': 'a trailing comma in a for target is accepted',
};

describe('extra jinja2 probes (test/jinja/extra-probes.jsonl)', () => {
  defineProbeTests(loadProbes(fileURLToPath(new URL('./extra-probes.jsonl', import.meta.url))), SKIP);
});
