// The playground's HTTP server: two static resources, the page and its script. The page works offline and talks to
// nothing (its Content-Security-Policy allows no connections), so the server has no API to protect.
import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import { playgroundHtml } from '../html.js';

export interface PlaygroundServer {
  url: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1' || /^::ffff:127\./i.test(bare);
  return false;
}

export async function startPlaygroundServer(script: string, port: number, host: string): Promise<PlaygroundServer> {
  const html = playgroundHtml('/playground.js');
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', ...SECURITY_HEADERS }).end();
      return;
    }
    const body = path === '/' || path === '/index.html' ? { type: 'text/html; charset=utf-8', text: html } : path === '/playground.js' ? { type: 'text/javascript; charset=utf-8', text: script } : undefined;
    if (!body) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('not found\n');
      return;
    }
    response.writeHead(200, { 'content-type': body.type, 'content-length': Buffer.byteLength(body.text), ...SECURITY_HEADERS });
    response.end(request.method === 'HEAD' ? undefined : body.text);
  });
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = isIP(host) === 6 ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${actualPort}/`,
    close: () => new Promise<void>((resolveClose) => {
      server.closeAllConnections();
      server.close(() => resolveClose());
    }),
  };
}
