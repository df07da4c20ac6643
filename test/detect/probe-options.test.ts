import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

// Issue 16 §4: --var and --now on parse and detect, so a bare template that needs a variable can be probed.
const template = (name: string) => new URL(`./templates/${name}`, import.meta.url).pathname;
const completion = '<function=get_weather>{"city": "Paris"}</function><|eom_id|>';

describe('parse --template --var', () => {
  it('probes a bare template that needs bos_token once it is given, and derives its calls', async () => {
    const without = memoryIO(completion);
    expect(await run(['parse', '--template', template('needs-bos.jinja'), '-'], without)).toBe(0);
    expect(JSON.parse(without.out()).diagnostics[0].code).toBe('PARSE_FAMILY_UNVERIFIED');

    const io = memoryIO(completion);
    expect(await run(['parse', '--template', template('needs-bos.jinja'), '--var', 'bos_token=<|begin_of_text|>', '-'], io)).toBe(0);
    const message = JSON.parse(io.out()) as { tool_calls: Array<{ function: { name: string; arguments: string } }>; diagnostics: Array<{ code: string }> };
    expect(message.diagnostics.map((d) => d.code)).toEqual(['PARSE_GRAMMAR_DERIVED']);
    expect(message.tool_calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([['get_weather', { city: 'Paris' }]]);
  });

  it('refuses --var and --now without --template, and a bad --now on one line', async () => {
    const io = memoryIO('Hi');
    expect(await run(['parse', '--family', 'qwen3', '--var', 'x=1', '-'], io)).toBe(2);
    expect(io.err()).toMatch(/^chatfmt: --var and --now [^\n]*--template\n$/);
    const bad = memoryIO('Hi');
    expect(await run(['parse', '--template', template('needs-bos.jinja'), '--now', 'soon', '-'], bad)).toBe(2);
    expect(bad.err()).toMatch(/^chatfmt: --now: "soon" is not an ISO date-time[^\n]*\n$/);
  });
});

describe('detect --var', () => {
  it('renders the probes with the variable, so the template can be compared with the families', async () => {
    const status = async (extra: string[]) => {
      const io = memoryIO();
      await run(['detect', '--json', ...extra, template('chatml-tie-needs-var.jinja')], io);
      return JSON.parse(io.out()).verdict.status as string;
    };
    // Without the variable every probe raises: only markers are left.
    expect(await status([])).toBe('unknown');
    expect(await status(['--var', 'house_rules=true', '--now', '2025-06-01T00:00:00'])).toBe('ambiguous');
  });
});
