// Timing whole processes for the start-up and CLI end-to-end sections: wall time around spawnSync, and the child's
// CPU time (user + system) from /usr/bin/time where it exists, which moves less than wall time on a busy machine.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { median } from './lib.mjs';

const timeTool = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Runs `command args` once: { wall, cpu } in ms (cpu undefined without /usr/bin/time), stdout. Throws on failure. */
export function timeProcess(command, args, { input } = {}) {
  const argv = timeTool ? ['-f', '\nCHATFMT-BENCH-CPU %U %S', command, ...args] : args;
  const start = performance.now();
  const result = spawnSync(timeTool ?? command, argv, { encoding: 'utf8', input, maxBuffer: 1 << 30, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  const wall = performance.now() - start;
  const marker = result.stderr.lastIndexOf('\nCHATFMT-BENCH-CPU ');
  const stderr = marker >= 0 ? result.stderr.slice(0, marker) : result.stderr;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${stderr.trim().split('\n').pop()}`);
  let cpu;
  if (marker >= 0) {
    const [user, system] = result.stderr.slice(marker).trim().split(' ').slice(1).map(Number);
    cpu = (user + system) * 1000;
  }
  return { wall, cpu, stdout: result.stdout };
}

/**
 * Times several commands `runs` times each, interleaved (A B C A B C …) so that a change in the machine's load falls
 * on all of them alike. Returns, per command, the median and minimum wall ms and the median CPU ms.
 */
export function timeInterleaved(commands, runs) {
  const samples = commands.map(() => ({ wall: [], cpu: [] }));
  for (let i = 0; i < runs; i++) {
    commands.forEach(({ command, args, input }, k) => {
      const { wall, cpu } = timeProcess(command, args, { input });
      samples[k].wall.push(wall);
      if (cpu !== undefined) samples[k].cpu.push(cpu);
    });
  }
  return samples.map(({ wall, cpu }) => ({ wall: median(wall), min: Math.min(...wall), cpu: cpu.length ? median(cpu) : undefined }));
}

/** The machine's load average, said beside every timed table: these figures mean little on a busy machine. */
export const loadAverage = () => loadavg().map((value) => value.toFixed(1)).join(', ');
