#!/usr/bin/env node
// A stand-in model server for the gateway benchmark and the README's commands: answers llama.cpp's /completion,
// OpenAI-style /v1/completions, Ollama's /api/generate and OpenAI /v1/chat/completions with a fixed reply, streamed
// a few characters per event. `--stamp N`: instead, N pieces each carrying its send time as `[ms]`, for latency.
// `POST /tokenize` answers as llama.cpp (`{content}`) or vLLM (`{prompt}`) would, counting a token per character.
//   node bench/gateway-replay.mjs --port 8080 --reply 'Hello!'
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

const now = () => performance.timeOrigin + performance.now();
const sse = (value) => `data: ${JSON.stringify(value)}\n\n`;

const dialects = {
  '/completion': {
    type: 'text/event-stream',
    piece: (content) => sse({ index: 0, content, stop: false }),
    end: (n) => sse({ index: 0, content: '', stop: true, stop_type: 'eos', tokens_evaluated: 16, tokens_predicted: n }),
  },
  '/v1/completions': {
    type: 'text/event-stream',
    piece: (text) => sse({ id: 'cmpl-r', object: 'text_completion', choices: [{ index: 0, text, finish_reason: null }] }),
    end: (n) => sse({ id: 'cmpl-r', object: 'text_completion', choices: [{ index: 0, text: '', finish_reason: 'stop' }] }) + sse({ id: 'cmpl-r', choices: [], usage: { prompt_tokens: 16, completion_tokens: n } }) + 'data: [DONE]\n\n',
  },
  '/api/generate': {
    type: 'application/x-ndjson',
    piece: (response) => `${JSON.stringify({ model: 'replay', response, done: false })}\n`,
    end: (n) => `${JSON.stringify({ model: 'replay', response: '', done: true, done_reason: 'stop', prompt_eval_count: 16, eval_count: n })}\n`,
  },
  '/v1/chat/completions': {
    type: 'text/event-stream',
    piece: (content) => sse({ id: 'chatcmpl-r', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] }),
    end: (n) => sse({ id: 'chatcmpl-r', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) + sse({ id: 'chatcmpl-r', choices: [], usage: { prompt_tokens: 16, completion_tokens: n } }) + 'data: [DONE]\n\n',
  },
};

function tokenized(bytes) {
  const request = JSON.parse(bytes.toString('utf8') || '{}');
  const tokens = Array.from(String(request.content ?? request.prompt ?? ''), (_, i) => i);
  return request.content !== undefined ? { tokens } : { count: tokens.length, tokens };
}

/** Starts the replay server; `reply` is the text, or `stamp` pieces of `[send time]` spaced `delayMs` apart. */
export function startReplay({ port = 0, host = '127.0.0.1', reply = 'Hello from the replay backend.', stamp = 0, delayMs = 0, pieceChars = 4 } = {}) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://replay').pathname;
    const body = [];
    req.on('data', (part) => body.push(part));
    req.on('end', async () => {
      if (path === '/tokenize') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokenized(Buffer.concat(body))));
      const dialect = dialects[path];
      if (!dialect) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': dialect.type });
      let n = 0;
      if (stamp > 0) {
        for (; n < stamp && !res.destroyed; n++) {
          if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
          if (!res.write(dialect.piece(`[${now().toFixed(3)}]`))) await new Promise((resolve) => res.once('drain', resolve));
        }
      } else {
        const points = Array.from(reply);
        for (let at = 0; at < points.length; at += pieceChars, n++) res.write(dialect.piece(points.slice(at, at + pieceChars).join('')));
      }
      res.end(dialect.end(n));
    });
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve({ server, url: `http://${host}:${server.address().port}` })));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`);
    return at > 0 ? process.argv[at + 1] : fallback;
  };
  const { url } = await startReplay({ port: Number(arg('port', 8080)), reply: arg('reply', undefined), stamp: Number(arg('stamp', 0)), delayMs: Number(arg('delay-ms', 0)) });
  process.stderr.write(`replay backend on ${url}\n`);
  if (process.send) process.send({ url });
}
