import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // The JSON report lets .ci/run print "N passed, N failed" for exactly the tests that ran.
    reporters: ['default', ['json', { outputFile: process.env.CHATFMT_TEST_REPORT ?? '.vitest-report.json' }]],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'threads',
  },
});
