// chatfmt's own differential probes: extra-probes.jsonl holds templates with the output (or exception and message)
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

/** Same exception class, another message, each with its reason. */
const MESSAGE_DIFFERS: Record<string, string> = {
  '{% call range(2) %}y{% endcall %}': "Python names jinja2's own function, safe_range(); chatfmt names the template's range()",
  "{% call 'abc'.upper() %}y{% endcall %}": "each Python builtin words a refused caller= its own way; chatfmt says it one way",
  '{% call joiner() %}y{% endcall %}': "Python names the class's __init__, Joiner.__init__(); chatfmt names joiner()",
  '{% call dict(a=1) %}y{% endcall %}':
    "jinja2 builds the dict with a 'caller' key, then fails joining the output at an index that depends on its code " +
    'generation; chatfmt refuses the keyword',
  '{% call namespace() %}y{% endcall %}': 'as dict(): jinja2 fails later, joining its output',
  '{{ dict(a=1, **{"a": 2}) }}': "Python names jinja2's SandboxedEnvironment.call(), through which every call goes",
  ...Object.fromEntries(
    ['{{ x|tojson(1, 2, 3, 4, 5) }}', '{{ x|tojson(nope=1) }}', '{{ strftime_now() }}', "{{ strftime_now('%Y', 1) }}",
      '{{ raise_exception() }}', "{{ raise_exception('a', 'b') }}"].map((name) => [name,
      'the recording environment defines tojson, strftime_now and raise_exception inside a function, so Python ' +
      'names them environment.<locals>.…; chatfmt names them plainly, with transformers\' parameters']),
  ),
};

describe('extra jinja2 probes (test/jinja/extra-probes.jsonl)', () => {
  defineProbeTests(loadProbes(fileURLToPath(new URL('./extra-probes.jsonl', import.meta.url))), SKIP, MESSAGE_DIFFERS);
});
