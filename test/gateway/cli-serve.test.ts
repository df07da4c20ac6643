// `chatfmt serve` through run(argv, io): it listens, guesses and prints the backend kind, forwards the backend key
// from the environment, logs one JSON line per request, and stops on SIGTERM.
import { afterAll, describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { pieces, startReplayBackend } from './helpers/replay-backend.js';

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('gave up waiting');
}

describe('chatfmt serve', async () => {
  const backend = await startReplayBackend();
  afterAll(() => backend.close());

  it('serves until SIGTERM; the kind guess, the listening URL and access-log lines go to stderr', async () => {
    const io = memoryIO();
    io.env = { CHATFMT_BACKEND_KEY: 'from-env' };
    const before = backend.received.length;
    const exit = run(['serve', '--backend', `${backend.url}/v1`, '--family', 'qwen3', '--port', '0'], io);
    const url = await until(() => /on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.err())?.[1]);
    expect(io.err()).toContain('guessed "openai" from the URL');
    backend.script({ pieces: pieces('<think>\nx\n</think>\n\nServed.') });
    const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'q', messages: [{ role: 'user', content: 'hi' }] }) });
    const body = (await response.json()) as { choices: Array<{ message: { content: string; reasoning_content: string } }> };
    expect(body.choices[0]!.message).toMatchObject({ content: 'Served.', reasoning_content: 'x' });
    expect(backend.received.at(-1)!.path).toBe('/v1/completions');
    expect(backend.received.at(-1)!.headers.authorization).toBe('Bearer from-env');
    const logLine = await until(() => io.err().split('\n').find((line) => line.startsWith('{')));
    expect(JSON.parse(logLine)).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status: 200, protocol: 'openai-chat', finish: 'stop' });
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    // The warm-up before the listening line neither reached the backend nor the access log.
    expect(backend.received.length).toBe(before + 1);
    expect(io.err().split('\n').filter((line) => line.startsWith('{'))).toHaveLength(1);
  });

  it('--reasoning-field both writes reasoning under both names', async () => {
    const io = memoryIO();
    const exit = run(['serve', '--backend', backend.url, '--backend-kind', 'ollama', '--family', 'qwen3', '--port', '0', '--reasoning-field', 'both', '--no-log'], io);
    const url = await until(() => /on (http:\/\/127\.0\.0\.1:\d+)/.exec(io.err())?.[1]);
    expect(io.err()).not.toContain('guessed');
    backend.script({ pieces: pieces('<think>\nwhy\n</think>\n\nBecause.') });
    const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'q', messages: [{ role: 'user', content: 'hi' }] }) });
    const body = (await response.json()) as { choices: Array<{ message: Record<string, unknown> }> };
    expect(body.choices[0]!.message).toMatchObject({ content: 'Because.', reasoning_content: 'why', reasoning: 'why' });
    expect(backend.received.at(-1)!.body).toMatchObject({ raw: true, stream: true });
    process.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(io.err().split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
  });

  it('refuses a public address without a key, in one line', async () => {
    const io = memoryIO();
    expect(await run(['serve', '--backend', backend.url, '--family', 'qwen3', '--host', '0.0.0.0', '--port', '0'], io)).toBe(2);
    expect(io.err()).toMatch(/chatfmt: refusing to listen on 0\.0\.0\.0 without an API key[^\n]*\n$/);
  });

  it('--help teaches the backend kinds with the examples', async () => {
    const io = memoryIO();
    expect(await run(['serve', '--help'], io)).toBe(0);
    for (const text of ['--backend-kind llama.cpp --family qwen3', '--backend-kind ollama --family gpt-oss', 'CHATFMT_BACKEND_KEY', '/api/generate']) expect(io.out()).toContain(text);
  });
});
