// Every one-construct probe of ../shared/templates/probes.jsonl must render exactly as jinja2 did.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileTemplate, isChatfmtError, parsePythonJson } from '../../src/index.js';
import { hasShared, sharedDir } from './shared.js';

interface Probe {
  name: string;
  template: string;
  context: Record<string, unknown>;
  expected?: string;
  error?: string;
}

/** Probes we knowingly cannot match, with the reason. Keep empty unless truly impossible. */
const SKIP: Record<string, string> = {};

const NOW = new Date('2025-01-15T12:00:00Z');

function loadProbes(): Probe[] {
  const text = readFileSync(path.join(sharedDir, 'templates', 'probes.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => parsePythonJson(line) as Probe);
}

describe.skipIf(!hasShared)('jinja2 probes (../shared/templates/probes.jsonl)', () => {
  const probes = hasShared ? loadProbes() : [];
  it('has the probe file', () => {
    expect(probes.length).toBeGreaterThan(100);
  });
  for (const probe of probes) {
    const run = SKIP[probe.name] ? it.skip : it;
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
});
