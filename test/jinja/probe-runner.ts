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

/** Output must match exactly; for jinja2 errors we must throw a ChatfmtError with the same Python class. */
export function defineProbeTests(probes: Probe[], skip: Record<string, string>): void {
  for (const probe of probes) {
    const run = skip[probe.name] ? it.skip : it;
    run(probe.name, () => {
      const render = () => compileTemplate(probe.template, { name: 'probe' }).render(probe.context, { now: NOW }).text;
      if (probe.expected !== undefined) {
        expect(render()).toBe(probe.expected);
        return;
      }
      const expectedClass = probe.error!.slice(0, probe.error!.indexOf(':'));
      let thrown: unknown;
      try {
        render();
      } catch (error) {
        thrown = error;
      }
      expect(thrown, `expected ${probe.error}`).toBeDefined();
      expect(isChatfmtError(thrown)).toBe(true);
      expect((thrown as { pythonType?: string }).pythonType).toBe(expectedClass);
    });
  }
}
