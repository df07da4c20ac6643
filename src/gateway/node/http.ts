// node:http plumbing: bounded body reads, writes that wait for 'drain', and the loopback test for --host.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';

export class BodyTooLargeError extends Error {}
export class BodyTimeoutError extends Error {}

/**
 * The request body, refused past `limit` bytes (by Content-Length when given, else while reading) and past
 * `timeoutMs` from the first read. A request holds a --max-concurrency slot from its headers on, so without the
 * deadline 64 clients sending their bodies a byte a minute (or announcing more than they send) would turn every
 * other client away with 429 until Node's own 300 s request timeout.
 */
export async function readBody(req: IncomingMessage, limit: number, timeoutMs = Infinity): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(`the request body is ${declared} bytes; the limit is ${limit}`);
  const parts: Buffer[] = [];
  let size = 0;
  const chunks = (req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    if (Number.isFinite(timeoutMs)) timer = setTimeout(() => reject(new BodyTimeoutError(`the request body did not arrive within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([chunks.next(), expired]);
      if (next.done) break;
      size += next.value.length;
      if (size > limit) throw new BodyTooLargeError(`the request body is over the limit of ${limit} bytes`);
      parts.push(next.value);
    }
  } finally {
    clearTimeout(timer);
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

/**
 * One POST through `fetch` to a throwaway server on a loopback port: Node loads its HTTP client (undici, ~25 ms of
 * module loading on the first call) and the server side of node:http compiles, before any client is waiting.
 * The backend is not contacted; failures are ignored.
 */
export async function warmUpHttp(fetchImpl: typeof fetch): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => sendJson(res, 200, {}));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const response = await fetchImpl(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await response.text();
  } catch {
    // An optimisation only.
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
