// Every one-construct probe of ../shared/templates/probes.jsonl must render exactly as jinja2 did.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineProbeTests, loadProbes } from './probe-runner.js';
import { hasShared, sharedDir } from '../helpers/shared.js';

/** Probes we knowingly cannot match, with the reason. Empty: all 188 match. */
const SKIP: Record<string, string> = {};

describe.skipIf(!hasShared)('jinja2 probes (../shared/templates/probes.jsonl)', () => {
  const probes = hasShared ? loadProbes(path.join(sharedDir, 'templates', 'probes.jsonl')) : [];
  it('has the probe file', () => {
    expect(probes.length).toBeGreaterThan(100);
  });
  defineProbeTests(probes, SKIP);
});
