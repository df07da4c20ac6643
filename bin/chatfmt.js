#!/usr/bin/env node
// The CLI as bundled chunks (dist/bin/, scripts/bundle-cli.mjs) starts several times faster than the same code as
// separate modules (dist/cli/); a dist/ built without the bundle step still runs, from dist/cli/.
let cli;
try {
  cli = await import('../dist/bin/chatfmt.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/bin/chatfmt.js')) throw error;
  cli = await import('../dist/cli/process.js');
}
await cli.main(process.argv.slice(2));
