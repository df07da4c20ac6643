#!/usr/bin/env node
import { run } from '../dist/cli/main.js';
import { processIO } from '../dist/cli/io.js';

// A reader that stops early (`chatfmt ... | head`) closes the pipe: that ends the run quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
process.exitCode = await run(process.argv.slice(2), processIO());
