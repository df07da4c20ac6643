// A client that sends its request body slowly, or less of it than it announced, holds a --max-concurrency slot from
// its headers on. The body deadline frees the slot with a 408 in the caller's protocol and closes the connection, so
// slow clients cannot turn everyone else away. Over loopback with raw sockets (a client that stalls mid-body).
import { connect, type Socket } from 'node:net';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createGateway, loadGatewayModel } from '../../src/gateway/index.js';
import { pieces, startReplayBackend } from './helpers/replay-backend.js';

/** Sends the head and the first part of a body that announces more; resolves with all the gateway sent back once it closed. */
function stall(port: number, path: string): { socket: Socket; reply: Promise<string> } {
  const socket = connect(port, '127.0.0.1', () => {
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model": "m", "messa`);
  });
  const reply = new Promise<string>((resolve, reject) => {
    let text = '';
    socket.on('data', (data: Buffer) => { text += data.toString('utf8'); });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
  return { socket, reply };
}

describe('the request-body deadline', () => {
  it('a stalled body is a 408 in each protocol\'s error shape, the connection is closed and the slot freed', async () => {
    const backend = await startReplayBackend();
    const gateway = createGateway({ model: loadGatewayModel({ family: 'qwen3' }).model, backend: { url: backend.url, kind: 'llama.cpp' }, maxConcurrency: 1, bodyTimeoutMs: 300 });
    const listening = await gateway.listen(0);
    const port = Number(new URL(listening.url).port);
    try {
      const chat = stall(port, '/v1/chat/completions');
      // While it stalls, it holds the one slot: a second client is turned away.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const openai = new OpenAI({ baseURL: `${listening.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const busy = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
      expect((busy as InstanceType<typeof OpenAI.APIError>).status).toBe(429);

      const chatReply = await chat.reply;
      expect(chatReply).toMatch(/^HTTP\/1\.1 408 /);
      expect(chatReply.toLowerCase()).toContain('connection: close');
      const chatBody = JSON.parse(chatReply.slice(chatReply.indexOf('\r\n\r\n') + 4)) as { error: { type: string; code: string; message: string } };
      expect(chatBody.error).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
      expect(chatBody.error.message).toMatch(/did not arrive within 0\.3 s \(--body-timeout\)/);

      const anthropicReply = await stall(port, '/v1/messages').reply;
      expect(anthropicReply).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(anthropicReply.slice(anthropicReply.indexOf('\r\n\r\n') + 4))).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });

      // The slot is free again: the next client is served.
      expect(gateway.active).toBe(0);
      backend.script({ pieces: pieces('Served.') });
      const answer = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.choices[0]!.message.content).toBe('Served.');
      expect(backend.received).toHaveLength(1);
    } finally {
      await listening.close();
      await backend.close();
    }
  });
});
