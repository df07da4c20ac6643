import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { ChatfmtError } from '../errors.js';
import type { TokenizerCalls, TokenizerRequest } from './tokenizer-offsets.js';

/**
 * A tokenizer.json carries regexes (pre-tokenizer `Split`, normalizer and decoder `Replace`) that run on row text with
 * JavaScript's backtracking engine, and a synchronous regex cannot be interrupted on its own thread. Checking the
 * patterns for catastrophic shapes at load is a heuristic, and no linear engine runs the lookahead that GPT-2-style
 * patterns need; so the regex work runs on a worker thread that the caller waits for, with a deadline, and a worker
 * past its deadline is terminated (which does stop a running regex) and replaced on the next call.
 */

/** Time one tokenizer call may take: a base, plus a little per character so long legitimate rows fit. */
export const TOKENIZE_BASE_BUDGET_MS = 5_000;
export const TOKENIZE_BUDGET_MS_PER_KCHAR = 1;

/** Starting the worker (building the tokenizer from its JSON) is not row work: a generous, separate limit. */
const STARTUP_BUDGET_MS = 120_000;


// Plain JS, run with `eval`: the worker needs no build step and loads the same tokenizers package as the caller.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { Tokenizer } = require(workerData.modulePath);
const { port, flag, json, config } = workerData;
const signal = new Int32Array(flag);
const answer = (message) => {
  port.postMessage(message);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
};
let tokenizer;
try {
  tokenizer = new Tokenizer(json, config);
  answer({ ready: true });
} catch (error) {
  answer({ error: String((error && error.message) || error) });
}
port.on('message', (request) => {
  try {
    if (request.op === 'encode') answer({ ids: tokenizer.encode(request.text, { add_special_tokens: false }).ids });
    else if (request.op === 'normalize') answer({ texts: request.texts.map((text) => (tokenizer.normalizer ? tokenizer.normalizer.normalize(text) : text)) });
    else answer({ text: tokenizer.decode(request.ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false }) });
  } catch (error) {
    answer({ error: String((error && error.message) || error) });
  }
});
`;

export interface SandboxOptions {
  /** Overrides the per-call budget (ms); tests use a small one. */
  budgetMs?: number;
}

export class TokenizerSandbox implements TokenizerCalls {
  private worker: Worker | undefined;
  private port: MessagePort | undefined;
  private signal: Int32Array | undefined;

  constructor(
    private readonly json: object,
    private readonly config: object,
    private readonly name: string,
    private readonly options: SandboxOptions = {},
  ) {}

  call<T>(request: TokenizerRequest, size: number): T {
    if (!this.worker) this.start();
    const budget = this.options.budgetMs ?? TOKENIZE_BASE_BUDGET_MS + Math.ceil(size / 1000) * TOKENIZE_BUDGET_MS_PER_KCHAR;
    this.port!.postMessage(request);
    const reply = this.await(budget);
    if (reply === undefined) {
      this.stop();
      throw new ChatfmtError('TOKENIZER_TIMEOUT', `${this.name}: tokenizing took longer than its ${budget} ms budget (a tokenizer regex that backtracks on this text?); stopped`);
    }
    if ('error' in reply) throw new ChatfmtError('INPUT_INVALID', `${this.name}: ${String(reply.error)}`);
    return reply as T;
  }

  private start(): void {
    const modulePath = createRequire(import.meta.url).resolve('@huggingface/tokenizers');
    const { port1, port2 } = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    this.signal = new Int32Array(flag);
    this.port = port1;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath, port: port2, flag, json: this.json, config: this.config }, transferList: [port2] });
    // Neither keeps a finished CLI run alive.
    this.worker.unref();
    port1.unref();
    const ready = this.await(STARTUP_BUDGET_MS);
    if (ready === undefined || 'error' in ready) {
      this.stop();
      throw new ChatfmtError('INPUT_INVALID', `${this.name}: cannot build tokenizer${ready ? `: ${String(ready.error)}` : ' (timed out)'}`);
    }
  }

  /** Blocks until the worker answers or the budget runs out (undefined). */
  private await(budgetMs: number): Record<string, unknown> | undefined {
    const signal = this.signal!;
    if (Atomics.wait(signal, 0, 0, budgetMs) === 'timed-out') return undefined;
    Atomics.store(signal, 0, 0);
    return receiveMessageOnPort(this.port!)?.message as Record<string, unknown> | undefined;
  }

  private stop(): void {
    void this.worker?.terminate();
    this.port?.close();
    this.worker = undefined;
    this.port = undefined;
  }
}
