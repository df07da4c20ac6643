// node:http plumbing: bounded body reads, writes that wait for 'drain', and the loopback test for --host.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';

export class BodyTooLargeError extends Error {}

/** The request body, refused past `limit` bytes (by Content-Length when given, else while reading). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(`the request body is ${declared} bytes; the limit is ${limit}`);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) throw new BodyTooLargeError(`the request body is over the limit of ${limit} bytes`);
    parts.push(part);
  }
  return Buffer.concat(parts);
}

/** Writes and, when the socket's buffer is full, waits for it to drain (or for the client to go away). */
export function write(res: ServerResponse, text: string): Promise<void> | undefined {
  if (res.write(text)) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** 127.0.0.0/8, ::1 and `localhost`: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare.startsWith('::ffff:127.');
}
