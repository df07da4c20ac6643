#!/usr/bin/env node
import { run } from '../dist/cli/main.js';
import { processIO } from '../dist/cli/io.js';

process.exitCode = await run(process.argv.slice(2), processIO());
