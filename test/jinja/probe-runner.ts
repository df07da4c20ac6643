// Runs one-construct probes ({name, template, context, expected | error}) as vitest cases.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { compileTemplate, isChatfmtError, parsePythonJson } from '../../src/index.js';

export interface Probe {
  name: string;
  template: string;
  context: Record<string, unknown>;
  expected?: string;
  error?: string;
}

const NOW = new Date('2025-01-15T12:00:00Z');

export function loadProbes(file: string): Probe[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => parsePythonJson(line) as Probe);
}

/**
 * Python's SyntaxError for jinja2's generated module ends with that module's line, " (<template>, line 11)", which
 * says where in jinja2's Python code it stopped, not in the template: compared without it.
 */
function comparable(pythonError: string): string {
  return pythonError.replace(/ \(<template>, line \d+\)$/, '');
}

/**
 * Output must match exactly; for jinja2 errors we must throw a ChatfmtError with the same Python class and message,
 * except the probes in `messageDiffers` (the class must still match), each with its reason.
 */
export function defineProbeTests(probes: Probe[], skip: Record<string, string>, messageDiffers: Record<string, string> = {}): void {
  for (const probe of probes) {
    const run = skip[probe.name] ? it.skip : it;
    run(probe.name, () => {
      const render = () => compileTemplate(probe.template, { name: 'probe' }).render(probe.context, { now: NOW }).text;
      if (probe.expected !== undefined) {
        expect(render()).toBe(probe.expected);
        return;
      }
      let thrown: unknown;
      try {
        render();
      } catch (error) {
        thrown = error;
      }
      expect(thrown, `expected ${probe.error}`).toBeDefined();
      expect(isChatfmtError(thrown)).toBe(true);
      const { pythonType, pythonMessage } = thrown as { pythonType?: string; pythonMessage?: string };
      const expected = comparable(probe.error!);
      if (messageDiffers[probe.name] === undefined) expect(`${pythonType}: ${pythonMessage}`).toBe(expected);
      else expect(pythonType).toBe(expected.slice(0, expected.indexOf(':')));
    });
  }
}
