import { Readable } from 'node:stream';
import type { IO } from './io.js';

// Apart from io.ts, which every run loads: node:stream is a dozen built-in modules a one-row render never needs.

/** An in-memory IO for tests: collects output, feeds the given stdin. */
export function memoryIO(stdinText = '', cwd = process.cwd()): IO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdin: Readable.from([Buffer.from(stdinText, 'utf8')]),
    stdout: { write: (chunk: string) => { out += chunk; return true; } },
    stderr: { write: (chunk: string) => { err += chunk; return true; } },
    stdoutIsTTY: false,
    stderrIsTTY: false,
    cwd,
    env: {},
    out: () => out,
    err: () => err,
  };
}
