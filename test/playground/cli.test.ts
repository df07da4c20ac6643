import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

async function cli(argv: string[]) {
  const io = memoryIO('');
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('chatfmt playground (CLI)', () => {
  it('--help teaches the page, the loopback rule and the exit codes', async () => {
    const { code, out } = await cli(['playground', '--help']);
    expect(code).toBe(0);
    for (const phrase of ['--port', '--host', '--allow-remote', 'loopback', 'tokenizer.json', 'chunk by chunk', 'Exit codes: 0 ']) expect(out).toContain(phrase);
  });

  it('is listed in the main help', async () => {
    expect((await cli(['--help'])).out).toMatch(/playground \[options\]\s+serve a local page/);
  });

  for (const host of ['0.0.0.0', '192.168.1.20', '::', 'example.com']) {
    it(`refuses --host ${host} without --allow-remote, in one line`, async () => {
      const { code, out, err } = await cli(['playground', '--host', host, '--port', '0']);
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toBe(`chatfmt: --host ${host} is not a loopback address: other machines could open the playground; add --allow-remote to mean it\n`);
    });
  }

  it('refuses a port that is not one', async () => {
    const { code, err } = await cli(['playground', '--port', '70000']);
    expect([code, err]).toEqual([2, 'chatfmt: --port 70000: expected a port number from 0 to 65535\n']);
  });
});
