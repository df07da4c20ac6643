import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface BundleReport {
  outdir: string;
  sizes: Record<string, { bytes: number; gzip: number }>;
  inputs: string[];
}

/** Runs `npm run build:browser`'s script into `outdir`; its exit status, report and stderr. */
export function buildCore(outdir: string, extra: string[] = []): { status: number | null; report?: BundleReport; stderr: string } {
  const result = spawnSync(process.execPath, [root + 'scripts/build-browser.mjs', '--outdir', outdir, '--json', ...extra], { encoding: 'utf8' });
  const report = result.status === 0 ? (JSON.parse(result.stdout) as BundleReport) : undefined;
  return { status: result.status, stderr: result.stderr, ...(report ? { report } : {}) };
}

/** The conformance runner as conformance.js (ESM) and conformance.iife.js (globalThis.conformance). */
export async function buildConformance(outdir: string): Promise<void> {
  const common = { absWorkingDir: root, entryPoints: ['test/browser/conformance.ts'], bundle: true, platform: 'browser', target: 'es2022', logLevel: 'error' } satisfies BuildOptions;
  await build({ ...common, format: 'esm', outfile: `${outdir}/conformance.js` });
  await build({ ...common, format: 'iife', globalName: 'conformance', outfile: `${outdir}/conformance.iife.js` });
}
