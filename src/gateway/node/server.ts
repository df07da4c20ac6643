// The gateway as a Node request handler (node:http, no framework: the gateway needs raw streaming writes, 'drain'
// and 'close' events, and nothing a router would add). Routes POST /v1/chat/completions (and the other protocols
// registered in protocols/index.ts), POST /v1/messages/count_tokens, GET /v1/models and GET /health.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { backendProtocols, countTokens, guessBackendKind, openCompletion, type BackendKind, type BackendProtocol, type BackendTarget } from '../backends/index.js';
import { openaiChatUpstream } from '../backends/openai-chat-upstream.js';
import { runRepairSession, type RepairDeps } from '../core/repair-session.js';
import { backendModel, preparePrompt, runSession, type GatewayModel, type SessionDeps } from '../core/session.js';
import type { GatewayError, GatewayEvent, GatewayRequest, Protocol, ResponseMeta } from '../core/types.js';
import { anthropicMessagesProtocol, COUNT_TOKENS_PATH, protocolForPath, protocolRoutes } from '../protocols/index.js';
import { GatewayFailure } from '../core/failure.js';
import { MAX_BODY_DEPTH } from '../protocols/request-fields.js';
import { nestingDepth } from '../../readers/limits.js';
import { encodeSse } from '../wire/sse.js';
import { warmUpModel } from '../core/warm-up.js';
import { answerClientError, type InFlight } from './client-errors.js';
import { BodyTimeoutError, BodyTooLargeError, isLoopback, readBody, sendJson, warmUpHttp, write } from './http.js';

export interface GatewayOptions {
  model: GatewayModel;
  backend: {
    url: string;
    /** Guessed from the URL when omitted (`guessBackendKind`). */
    kind?: BackendKind;
    /** Sent to the backend as a Bearer token. Read it from the environment (CHATFMT_BACKEND_KEY), never argv. */
    apiKey?: string;
  };
  /** Clients must send it as `Authorization: Bearer` or `x-api-key`. Required to listen beyond loopback. */
  apiKey?: string;
  /** Repair mode: the backend is an OpenAI-compatible chat endpoint; `lenient` also recovers bare JSON calls. */
  repair?: false | 'strict' | 'lenient';
  reasoningField?: ResponseMeta['reasoningField'];
  /** Default 4 MiB. */
  maxBodyBytes?: number;
  /** Requests in flight at once; more get 429. Default 64. */
  maxConcurrency?: number;
  /** Longest wait for the backend's headers or its next chunk, in ms. Default 120 s. */
  timeoutMs?: number;
  /** Longest wait for a request's whole body once its headers arrived, in ms (408 past it). Default 30 s. */
  bodyTimeoutMs?: number;
  /** One structured entry per request (the CLI writes them to stderr as JSON lines). */
  log?: (entry: AccessLogEntry) => void;
  fetch?: typeof fetch;
}

export interface AccessLogEntry {
  time: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  protocol?: Protocol['name'];
  stream?: boolean;
  promptTokens?: number;
  completionTokens?: number;
  calls?: number;
  finish?: string;
  diagnostics?: string[];
  error?: GatewayError['code'];
  /** The client went away before the answer ended. */
  aborted?: boolean;
}

export interface Gateway {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Listens on `host` (default 127.0.0.1); refuses a non-loopback host without `apiKey`. */
  listen(port?: number, host?: string): Promise<{ server: Server; url: string; close(): Promise<void> }>;
  /** Requests being served now. */
  readonly active: number;
  /**
   * The server's 'clientError' listener (`listen` attaches it): a request that is not valid HTTP gets a one-line
   * error its client reads, in the route's protocol when the route is known, instead of Node's bare 400.
   */
  clientError(error: Error, socket: Socket): void;
  /**
   * Runs once what a first request would pay for (the template's first render and the parser's first parse, the
   * protocols' writers, Node's HTTP client) against stand-ins, so the first client waits no longer than later ones.
   * The backend is not contacted. `chatfmt serve` calls it before it says it is listening.
   */
  warmUp(): Promise<void>;
}

const DEFAULTS = { maxBodyBytes: 4 * 1024 * 1024, maxConcurrency: 64, timeoutMs: 120_000, bodyTimeoutMs: 30_000 };

export function createGateway(options: GatewayOptions): Gateway {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.maxBodyBytes;
  const maxConcurrency = options.maxConcurrency ?? DEFAULTS.maxConcurrency;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULTS.bodyTimeoutMs;
  const reasoningField = options.reasoningField ?? 'reasoning_content';
  const base = options.backend.url.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? fetch;
  const idleTimeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const target: BackendTarget & { protocol: BackendProtocol } = {
    // Repair mode talks to a chat endpoint (below); the raw kind is unused there.
    protocol: backendProtocols[options.backend.kind ?? (options.repair ? 'openai' : guessBackendKind(base))],
    base,
    ...(options.backend.apiKey ? { apiKey: options.backend.apiKey } : {}),
    idleTimeoutMs,
    fetch: fetchImpl,
  };
  const deps: SessionDeps = { model: options.model, complete: (input, signal) => openCompletion(target, input, signal) };
  const repairTarget = { ...target, protocol: openaiChatUpstream };
  const repairDeps: RepairDeps = {
    parser: options.model.parser,
    modelName: options.model.name,
    ...(options.model.backendModel ? { backendModel: options.model.backendModel } : {}),
    complete: (request, signal) => openCompletion(repairTarget, request, signal),
    lenient: options.repair === 'lenient',
  };
  const session = (request: GatewayRequest, signal: AbortSignal) => (options.repair ? runRepairSession(request, repairDeps, signal) : runSession(request, deps, signal));
  let active = 0;
  const inFlight = new WeakMap<Socket, InFlight>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const path = requestPath(req.url ?? '/');
    const entry: AccessLogEntry = { time: new Date().toISOString(), method: req.method ?? '', path, status: 0, ms: 0 };
    res.on('close', () => {
      entry.status = res.statusCode;
      entry.ms = Math.round((performance.now() - started) * 1000) / 1000;
      if (!res.writableFinished) entry.aborted = true;
      options.log?.(entry);
    });
    const protocol = protocolRoutes.get(path);
    const fail = (error: GatewayError) => {
      entry.error = error.code;
      const { status, body } = (protocol ?? protocolForPath(path)).toHttpError(error);
      if (!res.headersSent) sendJson(res, status, body);
      else res.end();
    };
    const current: InFlight = { res, fail };
    inFlight.set(req.socket, current);
    res.on('close', () => {
      if (inFlight.get(req.socket) === current) inFlight.delete(req.socket);
    });
    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { status: 'ok' });
    if (options.apiKey !== undefined && !authorised(req, options.apiKey)) {
      return fail({ code: 'UNAUTHORIZED', message: 'missing or wrong API key: send it as "Authorization: Bearer <key>" or "x-api-key: <key>"' });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: options.model.name, object: 'model', created: 0, owned_by: 'chatfmt' }] });
    }
    const counting = req.method === 'POST' && path === COUNT_TOKENS_PATH;
    if (!counting && (!protocol || req.method !== 'POST')) return fail({ code: 'NOT_FOUND', message: `no route for ${req.method} ${path}` });
    entry.protocol = (protocol ?? anthropicMessagesProtocol).name;
    if (active >= maxConcurrency) {
      res.setHeader('retry-after', '1');
      return fail({ code: 'TOO_MANY_REQUESTS', message: `the gateway is serving ${active} requests, its limit (--max-concurrency)` });
    }
    active++;
    try {
      let body: unknown;
      try {
        body = JSON.parse((await readBody(req, maxBodyBytes, bodyTimeoutMs)).toString('utf8'));
      } catch (error) {
        if (error instanceof BodyTooLargeError) return fail({ code: 'BODY_TOO_LARGE', message: `${error.message} (--max-body-bytes)` });
        if (error instanceof BodyTimeoutError) {
          // The rest of the body may never come: answer, then close the connection instead of reading on.
          res.setHeader('connection', 'close');
          return fail({ code: 'REQUEST_TIMEOUT', message: `${error.message} (--body-timeout)` });
        }
        return fail({ code: 'INVALID_REQUEST', message: `the body is not JSON: ${error instanceof Error ? error.message : String(error)}` });
      }
      if (nestingDepth(body, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) return fail({ code: 'INVALID_REQUEST', message: `the body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels` });
      const controller = new AbortController();
      // The one abort path: the client's socket closing ends the session, which aborts the backend's fetch.
      res.on('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      // The routes above leave no protocol only for the token count.
      if (!protocol) return await countInputTokens(body, res, fail, controller.signal);
      const parsed = protocol.parseRequest(body);
      if (!parsed.ok) return fail(parsed.error);
      const request = parsed.value;
      entry.stream = request.stream;
      const meta: ResponseMeta = { model: request.model || options.model.name, includeUsage: request.includeUsage === true, reasoningField, echo: request.echo };
      const events = session(request, controller.signal);
      const reply: Reply = { protocol, meta, events, res, entry, fail };
      await (request.stream ? stream(reply) : whole(reply));
    } finally {
      active--;
    }
  }

  /**
   * Anthropic's `count_tokens`: the request rendered exactly as `/v1/messages` would render it, counted by the
   * backend's own tokenizer endpoint (Claude Code asks before it decides to compact a long conversation).
   */
  async function countInputTokens(body: unknown, res: ServerResponse, fail: (error: GatewayError) => void, signal: AbortSignal): Promise<void> {
    if (options.repair) return fail({ code: 'NOT_FOUND', message: 'count_tokens is not served with --repair: the chat backend renders the prompt, not the gateway' });
    const parsed = anthropicMessagesProtocol.parseRequest(body);
    if (!parsed.ok) return fail(parsed.error);
    try {
      const { prompt } = preparePrompt(parsed.value, options.model);
      const count = await countTokens(target, prompt, backendModel(parsed.value, options.model), signal);
      if (!res.destroyed) sendJson(res, 200, { input_tokens: count });
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof GatewayFailure) return fail(error.error);
      throw error;
    }
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendJson(res, 500, protocolForPath(req.url ?? '').toHttpError({ code: 'INTERNAL', message }).body);
      else res.destroy();
    });
  }) as Gateway;
  Object.defineProperty(handler, 'active', { get: () => active });
  handler.clientError = (error, socket) => answerClientError(error, socket, inFlight.get(socket));
  handler.listen = (port = 4000, host = '127.0.0.1') => listen(handler, options, port, host);
  handler.warmUp = async () => {
    await warmUpModel(options.model, protocolRoutes.values());
    // A caller's own fetch (a test double, a proxy agent) is not called with requests it did not ask for.
    if (!options.fetch) await warmUpHttp(fetch);
  };
  return handler;
}

/** One request's answer in the making: the session's events, where they go, and how a failure is reported. */
interface Reply {
  protocol: Protocol;
  meta: ResponseMeta;
  events: AsyncGenerator<GatewayEvent>;
  res: ServerResponse;
  entry: AccessLogEntry;
  /** Ends the request with the protocol's HTTP error, while no answer has been sent. */
  fail: (error: GatewayError) => void;
}

async function stream({ protocol, meta, events, res, entry, fail }: Reply): Promise<void> {
  const first = await events.next();
  if (first.done) return void res.end();
  // Nothing was produced yet: the failure can still be an HTTP status.
  if (first.value.type === 'error') return fail(first.value.error);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const writer = protocol.createWriter(meta);
  const record = summarise(entry);
  try {
    for (let next: IteratorResult<GatewayEvent> = first; !next.done; next = await events.next()) {
      if (res.destroyed) break;
      const event = next.value;
      record(event);
      // After the headers, a failure is the protocol's in-band error frames (the session closed its blocks first):
      // the writer's when it reports failures itself (Responses numbers its error event and ends the response with
      // response.failed, which needs the writer's state), toStreamError's otherwise.
      const written = writer(event);
      for (const frame of event.type === 'error' && written.length === 0 ? protocol.toStreamError(event.error) : written) {
        const waiting = write(res, encodeSse(frame));
        if (waiting) await waiting;
      }
    }
  } finally {
    // A client gone mid-stream leaves the session suspended: end it (its backend request is already aborted).
    await events.return(undefined);
  }
  if (!res.destroyed) res.end();
}

async function whole({ protocol, meta, events, res, entry, fail }: Reply): Promise<void> {
  const collected: GatewayEvent[] = [];
  const record = summarise(entry);
  for await (const event of events) {
    record(event);
    if (event.type === 'error') return fail(event.error);
    collected.push(event);
  }
  if (res.destroyed) return;
  const diagnostics = collected.flatMap((event) => (event.type === 'diagnostic' ? [event.diagnostic.code] : []));
  // Diagnostics are in the body's extension field; the header lets a client that reads only headers see them too.
  const headers: Record<string, string> = diagnostics.length > 0 ? { 'x-chatfmt-diagnostics': diagnostics.join(', ') } : {};
  sendJson(res, 200, protocol.aggregate(collected, meta), headers);
}

/** Tallies what the access log reports, event by event. */
function summarise(entry: AccessLogEntry): (event: GatewayEvent) => void {
  return (event) => {
    if (event.type === 'tool-call-end') entry.calls = (entry.calls ?? 0) + 1;
    else if (event.type === 'diagnostic') (entry.diagnostics ??= []).push(event.diagnostic.code);
    else if (event.type === 'error') entry.error = event.error.code;
    else if (event.type === 'finish') {
      entry.finish = event.reason;
      if (event.usage) [entry.promptTokens, entry.completionTokens] = [event.usage.promptTokens, event.usage.completionTokens];
    }
  };
}

/** A request target's path. Node passes on targets no URL parser takes (`//%%`): those are kept as sent, and match no route. */
function requestPath(target: string): string {
  try {
    return new URL(target, 'http://gateway').pathname;
  } catch {
    return target;
  }
}

function authorised(req: IncomingMessage, key: string): boolean {
  const bearer = req.headers.authorization;
  if (typeof bearer === 'string' && bearer.startsWith('Bearer ') && bearer.slice(7).trim() === key) return true;
  return req.headers['x-api-key'] === key;
}

async function listen(handler: Gateway, options: GatewayOptions, port: number, host: string) {
  if (!isLoopback(host) && !options.apiKey) {
    throw new Error(`refusing to listen on ${host} without an API key: anyone who can reach it could use the backend (set --api-key, or listen on 127.0.0.1)`);
  }
  const server = createServer(handler);
  server.on('clientError', handler.clientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type { GatewayRequest };
