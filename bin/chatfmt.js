#!/usr/bin/env node
import { main } from '../dist/cli/process.js';

await main(process.argv.slice(2));
