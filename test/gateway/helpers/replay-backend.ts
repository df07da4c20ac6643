// A loopback backend of our own: speaks llama.cpp's /completion (SSE), OpenAI-style /v1/completions (SSE) and
// Ollama's /api/generate (NDJSON), and replays a scripted completion piece by piece, with optional delays and faults.
// It records every request it received and whether the gateway hung up before the replay ended.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  /** HTTP 500 with an error body, before any output. */
  | { kind: 'http-error'; status: number; body: unknown }
  /** The connection is destroyed after `after` pieces (a /tokenize answer: after its first bytes). */
  | { kind: 'reset'; after: number }
  /** A line that is not JSON after `after` pieces. */
  | { kind: 'malformed'; after: number }
  /** Nothing more after `after` pieces; the connection stays open. */
  | { kind: 'stall'; after: number }
  /** After `after` pieces, one event (SSE) or line (NDJSON) holding `error`, as servers report a failure mid-stream; then the end. */
  | { kind: 'error-event'; after: number; error: unknown }
  /** After `after` pieces, only keep-alives (an SSE comment, an NDJSON blank line) every `everyMs`, until the client gives up. */
  | { kind: 'keep-alive'; after: number; everyMs: number }
  /** HTTP 200 with this body and content type in place of the stream (a proxy's HTML page, a JSON answer). */
  | { kind: 'raw-200'; contentType: string; body: string }
  /** After `after` pieces the body ends cleanly, without the end event (a server stopped mid-answer). */
  | { kind: 'cut'; after: number }
  /** The whole replay, then these pieces after the end event (OpenAI-style: after the finish, with no `[DONE]`). */
  | { kind: 'after-end'; pieces: string[] };

export interface Replay {
  /** The completion, already cut into the pieces the backend sends one per event. */
  pieces: string[];
  /** For /v1/chat/completions (repair mode): the deltas to send, in place of `pieces` as content. */
  deltas?: Array<Record<string, unknown>>;
  stopType?: 'eos' | 'limit' | 'word';
  /** The stop string matched (with stopType 'word'): llama.cpp's `stopping_word`, vLLM's `stop_reason`; Ollama says nothing. */
  stoppingWord?: string;
  promptTokens?: number;
  completionTokens?: number;
  fault?: Fault;
  /** Wait this long before each piece (ms). */
  delayMs?: number;
}

export interface ReceivedRequest {
  path: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** Set when the replay ended: `true` if the gateway closed the connection first. */
  hungUp?: boolean;
  finished: Promise<void>;
}

export interface ReplayBackend {
  url: string;
  received: ReceivedRequest[];
  /** The replay for the next request(s): a fixed one, or one chosen per request. */
  script(replay: Replay | ((request: ReceivedRequest) => Replay)): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startReplayBackend(): Promise<ReplayBackend> {
  let chooser: (request: ReceivedRequest) => Replay = () => ({ pieces: ['Hello.'] });
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void serve(req, res);
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    let finish!: () => void;
    const request: ReceivedRequest = {
      path: new URL(req.url ?? '/', 'http://replay').pathname,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
      headers: req.headers,
      finished: new Promise<void>((resolve) => (finish = resolve)),
    };
    received.push(request);
    let closedEarly = false;
    res.on('close', () => {
      if (!res.writableFinished) closedEarly = true;
    });
    const replay = chooser(request);
    const dialect = DIALECTS[request.path];
    try {
      const tokenizing = request.path === '/tokenize';
      if (!dialect && !tokenizing) {
        res.writeHead(404).end();
        return;
      }
      if (replay.fault?.kind === 'http-error') {
        res.writeHead(replay.fault.status, { 'content-type': 'application/json' }).end(JSON.stringify(replay.fault.body));
        return;
      }
      if (!dialect) {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (replay.fault?.kind === 'reset') {
          // The answer starts, then the connection drops before its end.
          await new Promise((resolve) => res.write('{"tokens": [1, 2', resolve));
          res.socket?.destroy();
          return;
        }
        res.end(JSON.stringify(tokenizeAnswer(request.body)));
        return;
      }
      if (replay.fault?.kind === 'raw-200') {
        res.writeHead(200, { 'content-type': replay.fault.contentType }).end(replay.fault.body);
        return;
      }
      res.writeHead(200, { 'content-type': dialect.contentType });
      const fault = replay.fault;
      const sent: unknown[] = request.path === '/v1/chat/completions' ? (replay.deltas ?? replay.pieces.map((content) => ({ content }))) : replay.pieces;
      for (let i = 0; i < sent.length; i++) {
        if (fault && 'after' in fault && fault.after === i) {
          if (fault.kind === 'reset') {
            // What was sent reaches the gateway first; then the connection drops without an end.
            await new Promise((resolve) => res.write('', resolve));
            res.socket?.destroy();
            return;
          }
          if (fault.kind === 'keep-alive') {
            while (!closedEarly) {
              res.write(dialect.kind === 'ndjson' ? '\n' : ': keep-alive\n\n');
              await sleep(fault.everyMs);
            }
            return;
          }
                    if (fault.kind === 'error-event') {
            res.end(dialect.kind === 'ndjson' ? `${JSON.stringify({ error: fault.error })}\n` : sse({ error: fault.error }));
            return;
          }
          if (fault.kind === 'cut') {
            res.end();
            return;
          }
          if (fault.kind === 'malformed') {
            res.write(dialect.kind === 'ndjson' ? '{"response": "oops\n' : 'data: {"content": oops\n\n');
            res.end();
            return;
          }
          // stall: wait until the client gives up.
          await new Promise((resolve) => res.on('close', resolve));
          return;
        }
        if (replay.delayMs) await sleep(replay.delayMs);
        if (closedEarly) return;
        if (!res.write(dialect.piece(sent[i] as never))) await new Promise((resolve) => res.once('drain', resolve));
      }
      if (fault?.kind === 'after-end') {
        // The end event without `[DONE]`, then the extra pieces: what a server that omits `[DONE]` would send more.
        res.end(dialect.end(replay).replace('data: [DONE]\n\n', '') + fault.pieces.map((piece) => dialect.piece(piece as never)).join(''));
        return;
      }
      res.end(dialect.end(replay));
    } finally {
      request.hungUp = closedEarly;
      finish();
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script(replay) {
      chooser = typeof replay === 'function' ? replay : () => replay;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Dialect {
  kind: 'sse' | 'ndjson';
  contentType: string;
  piece(text: never): string;
  end(replay: Replay): string;
}

const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const usageOf = (replay: Replay) => ({ prompt: replay.promptTokens ?? 7, completion: replay.completionTokens ?? replay.pieces.length });

const chatChunk = (choices: unknown[], extra: Record<string, unknown> = {}) => sse({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra });

const DIALECTS: Record<string, Dialect> = {
  // An OpenAI-compatible chat server, for repair mode.
  '/v1/chat/completions': {
    kind: 'sse',
    contentType: 'text/event-stream',
    piece: (delta: Record<string, unknown>) => chatChunk([{ index: 0, delta, logprobs: null, finish_reason: null }]),
    end: (replay) => {
      const usage = usageOf(replay);
      const calls = (replay.deltas ?? []).some((delta) => delta.tool_calls);
      return (
        chatChunk([{ index: 0, delta: {}, logprobs: null, finish_reason: calls ? 'tool_calls' : replay.stopType === 'limit' ? 'length' : 'stop', stop_reason: replay.stoppingWord ?? null }]) +
        chatChunk([], { usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion } }) +
        'data: [DONE]\n\n'
      );
    },
  },
  '/completion': {
    kind: 'sse',
    contentType: 'text/event-stream',
    piece: (content: string) => sse({ index: 0, content, tokens: [1], stop: false, id_slot: -1, tokens_predicted: 1, tokens_evaluated: 1 }),
    end: (replay) =>
      sse({
        index: 0, content: '', tokens: [], stop: true, stop_type: replay.stopType ?? 'eos', stopping_word: replay.stoppingWord ?? '',
        tokens_evaluated: usageOf(replay).prompt, tokens_predicted: usageOf(replay).completion,
      }),
  },
  '/v1/completions': {
    kind: 'sse',
    contentType: 'text/event-stream',
    piece: (text: string) => sse({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ text, index: 0, logprobs: null, finish_reason: null }], usage: null }),
    end: (replay) => {
      const usage = usageOf(replay);
      const finish = replay.stopType === 'limit' ? 'length' : 'stop';
      return (
        sse({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ text: '', index: 0, logprobs: null, finish_reason: finish, stop_reason: replay.stoppingWord ?? null }], usage: null }) +
        sse({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [], usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion } }) +
        'data: [DONE]\n\n'
      );
    },
  },
  '/api/generate': {
    kind: 'ndjson',
    contentType: 'application/x-ndjson',
    piece: (response: string) => `${JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', response, done: false })}\n`,
    end: (replay) => {
      const usage = usageOf(replay);
      const done_reason = replay.stopType === 'limit' ? 'length' : 'stop';
      return `${JSON.stringify({ model: 'm', created_at: '2026-01-01T00:00:00Z', response: '', done: true, done_reason, prompt_eval_count: usage.prompt, eval_count: usage.completion })}\n`;
    },
  },
};

/**
 * `POST /tokenize` as llama.cpp (`{content}` → `{tokens}`) and vLLM (`{model, prompt}` → `{count, tokens}`) answer it,
 * with one token per code point: a count the tests can predict from the prompt.
 */
function tokenizeAnswer(body: Record<string, unknown>): Record<string, unknown> {
  const text = typeof body.content === 'string' ? body.content : String(body.prompt ?? '');
  const tokens = Array.from(text, (_, i) => i);
  return typeof body.content === 'string' ? { tokens } : { count: tokens.length, max_model_len: 32768, tokens };
}

/** Cuts text into pieces of `size` code points (a token-like replay); never splits a surrogate pair. */
export function pieces(text: string, size = 3): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let at = 0; at < points.length; at += size) out.push(points.slice(at, at + size).join(''));
  return out;
}

/** The base URL each backend kind is configured with for this replay server. */
export function backendUrl(base: string, kind: 'llama.cpp' | 'openai' | 'ollama'): string {
  return kind === 'openai' ? `${base}/v1` : base;
}
