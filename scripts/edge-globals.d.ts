// Web platform APIs the AI SDK provider and the gateway core it shares use (fetch, Web streams, abort signals,
// timers, TextDecoder, URL), declared as narrowly as they are used. Every browser, Worker, edge runtime and Node >= 20
// has them; tsconfig.core.json checks src/ai-sdk with these and core-globals.d.ts only, so Node APIs still fail there.
interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
declare var AbortSignal: { prototype: AbortSignal; timeout(ms: number): AbortSignal };
interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare var AbortController: { prototype: AbortController; new (): AbortController };

interface ReadableStreamReadResult<T> {
  done: boolean;
  value: T;
}
interface ReadableStreamDefaultReader<R> {
  read(): Promise<ReadableStreamReadResult<R>>;
  releaseLock(): void;
  cancel(reason?: unknown): Promise<void>;
}
interface ReadableStreamDefaultController<R> {
  enqueue(chunk: R): void;
  close(): void;
  error(reason?: unknown): void;
}
interface UnderlyingSource<R> {
  start?(controller: ReadableStreamDefaultController<R>): void | Promise<void>;
  pull?(controller: ReadableStreamDefaultController<R>): void | Promise<void>;
  cancel?(reason?: unknown): void | Promise<void>;
}
interface ReadableStream<R = unknown> {
  getReader(): ReadableStreamDefaultReader<R>;
  pipeThrough<T>(transform: { writable: WritableStream<R>; readable: ReadableStream<T> }): ReadableStream<T>;
}
declare var ReadableStream: { prototype: ReadableStream; new <R = unknown>(source?: UnderlyingSource<R>): ReadableStream<R> };
interface WritableStream<W = unknown> {
  getWriter(): { write(chunk: W): Promise<void>; close(): Promise<void> };
}
interface TransformStreamDefaultController<O> {
  enqueue(chunk: O): void;
  error(reason?: unknown): void;
}
interface Transformer<I, O> {
  transform?(chunk: I, controller: TransformStreamDefaultController<O>): void | Promise<void>;
  flush?(controller: TransformStreamDefaultController<O>): void | Promise<void>;
}
interface TransformStream<I = unknown, O = unknown> {
  readonly readable: ReadableStream<O>;
  readonly writable: WritableStream<I>;
}
declare var TransformStream: { prototype: TransformStream; new <I = unknown, O = unknown>(transformer?: Transformer<I, O>): TransformStream<I, O> };

interface TextDecoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}
declare var TextDecoder: { prototype: TextDecoder; new (label?: string, options?: { fatal?: boolean }): TextDecoder };

interface URL {
  readonly pathname: string;
  readonly port: string;
}
declare var URL: { prototype: URL; new (url: string, base?: string): URL };

interface Response {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
}
interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}
declare function fetch(input: string, init?: RequestInit): Promise<Response>;

declare function setTimeout(handler: () => void, ms?: number): unknown;
declare function clearTimeout(id: unknown): void;
