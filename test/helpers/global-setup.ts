import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasShared, sharedDir } from './shared.js';

/** Says once, before any test runs, which suites will skip and why, so a green run without them is not mistaken for full coverage. */
export default function setup(): () => void {
  announceSkippedSuites();
  // Every `chatfmt` process a test starts keeps its code cache (bin/code-cache.js) here, not in the user's ~/.cache.
  const cacheHome = mkdtempSync(join(tmpdir(), 'chatfmt-test-cache-'));
  process.env.XDG_CACHE_HOME = cacheHome;
  return () => rmSync(cacheHome, { recursive: true, force: true });
}

function announceSkippedSuites(): void {
  if (!hasShared) {
    process.stdout.write(
      `chatfmt tests: ${sharedDir} not found, so the conformance suites against the official templates, the jinja2 probes, ` +
        'the peer vectors and the response-template vectors are skipped (CI runs them with ../shared beside the checkout).\n',
    );
  }
  if (!existsSync('/usr/bin/chromium')) {
    process.stdout.write('chatfmt tests: /usr/bin/chromium not found, so the headless Chromium suite (test/browser/chromium.test.ts) is skipped (apt-get install chromium).\n');
  }
}
