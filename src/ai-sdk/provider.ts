// `createChatfmt`: an AI SDK provider whose language models render the prompt with the model's own chat template and
// stream from a raw completion endpoint (llama.cpp /completion, OpenAI-style /v1/completions, Ollama /api/generate).
// Everything between the AI SDK and the backend is the gateway's core: preparePrompt, runSession, openCompletion.
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  ProviderV4,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { ChatfmtError } from '../errors.js';
import { backendProtocols, guessBackendKind, openCompletion, type BackendKind, type BackendTarget } from '../gateway/backends/index.js';
import { GatewayFailure } from '../gateway/core/failure.js';
import { runSession, type GatewayModel } from '../gateway/core/session.js';
import type { GatewayEvent } from '../gateway/core/types.js';
import { resolveModel, type ModelSource } from './model.js';
import { foldParts, PartMapper } from './parts.js';
import { toGatewayRequest } from './prompt.js';

export type ChatfmtProviderSettings = ModelSource & {
  /** The backend's base URL: `http://127.0.0.1:8080` (llama.cpp), `http://127.0.0.1:8000/v1` (OpenAI-style), `http://127.0.0.1:11434` (Ollama). */
  baseURL: string;
  /** Which raw completion API `baseURL` speaks; guessed from the URL when left out (a `/v1` path, port 11434, else llama.cpp). */
  backendKind?: BackendKind;
  /** Sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Sent with every backend request (a call's own `headers` are added to them). */
  headers?: Record<string, string>;
  /** Longest wait for the response headers or the next chunk (default 120 s). */
  idleTimeoutMs?: number;
  /** For tests and runtimes that need their own (default: the global fetch). */
  fetch?: typeof fetch;
  /** The provider name the AI SDK reports (default `chatfmt`). */
  name?: string;
};

export interface ChatfmtProvider extends ProviderV4 {
  /** The model the backend serves; its name is sent to backends that need one (OpenAI-style, Ollama). */
  (modelId?: string): LanguageModelV4;
  languageModel(modelId?: string): LanguageModelV4;
}

const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export function createChatfmt(settings: ChatfmtProviderSettings): ChatfmtProvider {
  const { model, note } = resolveModel(settings);
  const modelWarnings: SharedV4Warning[] = note ? [{ type: 'other', message: note.message }] : [];
  const kind = settings.backendKind ?? guessBackendKind(settings.baseURL);
  if (!backendProtocols[kind]) throw new ChatfmtError('INPUT_INVALID', `unknown backendKind "${String(kind)}" (known: ${Object.keys(backendProtocols).join(', ')})`);
  const target: BackendTarget = {
    protocol: backendProtocols[kind],
    base: settings.baseURL.replace(/\/+$/, ''),
    idleTimeoutMs: settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    // Bound late, so a fetch replaced after the provider was made (tests, polyfills) is the one used.
    fetch: settings.fetch ?? ((input, init) => fetch(input, init)),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.headers ? { headers: { ...settings.headers } } : {}),
  };
  const providerName = settings.name ?? 'chatfmt';
  const languageModel = (modelId?: string) => new ChatfmtLanguageModel(modelId ?? model.name, model, target, providerName, modelWarnings);
  const unsupported = (what: string) => (): never => {
    throw new ChatfmtError('INPUT_INVALID', `chatfmt serves language models only, not ${what} models`);
  };
  return Object.assign(languageModel, {
    specificationVersion: 'v4' as const,
    languageModel,
    embeddingModel: unsupported('embedding'),
    imageModel: unsupported('image'),
  });
}

export class ChatfmtLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4' as const;
  readonly supportedUrls: Record<string, RegExp[]> = {};

  constructor(
    readonly modelId: string,
    private readonly model: GatewayModel,
    private readonly target: BackendTarget,
    readonly provider: string,
    /** Said on every call: how the parser was found, when a template's family was detected rather than named. */
    private readonly modelWarnings: readonly SharedV4Warning[] = [],
  ) {}

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { parts, request, warnings } = await this.start(options);
    const collected: LanguageModelV4StreamPart[] = [];
    for await (const part of parts) collected.push(part);
    const folded = foldParts(collected);
    const metadata = collected.find((part) => part.type === 'response-metadata');
    const response = metadata?.type === 'response-metadata' ? { response: { id: metadata.id, modelId: metadata.modelId, timestamp: metadata.timestamp } } : {};
    return { ...folded, warnings, request, ...response };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { parts, request, warnings, abort } = await this.start(options);
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings });
      },
      async pull(controller) {
        try {
          const next = await parts.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel(reason) {
        abort(reason);
        await parts.return(undefined);
      },
    });
    return { stream, request };
  }

  /**
   * Renders, calls the backend and waits for its answer, so that a failure before any output (the template rejected
   * the prompt, the backend is down or answered an HTTP error) rejects the call itself with a GatewayFailure.
   */
  private async start(options: LanguageModelV4CallOptions) {
    const { request, warnings } = toGatewayRequest(options, this.modelId);
    const local = new AbortController();
    const outer = options.abortSignal;
    const abort = (reason?: unknown) => local.abort(reason);
    const onOuterAbort = () => abort(outer?.reason);
    if (outer?.aborted) abort(outer.reason);
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const release = () => outer?.removeEventListener('abort', onOuterAbort);
    let sent: { url: string; body: unknown } | undefined;
    const target = { ...this.target, headers: { ...this.target.headers, ...definedHeaders(options.headers) } };
    // With includeRawChunks, each backend chunk is also handed out as a `raw` part, before the parts it led to.
    const raw: unknown[] | undefined = options.includeRawChunks ? [] : undefined;
    const events = runSession(
      request,
      {
        model: this.model,
        complete: async (input, signal) => {
          sent = target.protocol.buildRequest(target.base, input);
          const chunks = await openCompletion(target, input, signal);
          return raw ? recorded(chunks, raw) : chunks;
        },
      },
      local.signal,
    );
    let first: IteratorResult<GatewayEvent>;
    try {
      first = await events.next();
      if (!first.done && first.value.type === 'error') throw new GatewayFailure(first.value.error);
      local.signal.throwIfAborted();
    } catch (error) {
      release();
      throw error;
    }
    return { parts: toParts(first, events, local.signal, release, raw), request: { ...(sent ?? {}) }, warnings: [...this.modelWarnings, ...warnings], abort };
  }
}

/** The AI SDK's call headers, without the ones it left undefined. */
function definedHeaders(headers: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name] = value;
  return out;
}

async function* recorded<T>(chunks: AsyncIterable<T>, into: unknown[]): AsyncGenerator<T> {
  for await (const chunk of chunks) {
    into.push(chunk);
    yield chunk;
  }
}

/** The session's events as stream parts. The session ends quietly on abort; the stream ends with the abort reason. */
async function* toParts(
  first: IteratorResult<GatewayEvent>, rest: AsyncGenerator<GatewayEvent>, signal: AbortSignal, release: () => void, raw?: unknown[],
): AsyncGenerator<LanguageModelV4StreamPart> {
  const mapper = new PartMapper();
  const parts = (event: GatewayEvent): LanguageModelV4StreamPart[] => {
    if (raw === undefined || raw.length === 0) return mapper.map(event);
    const rawParts = raw.splice(0).map((rawValue): LanguageModelV4StreamPart => ({ type: 'raw', rawValue }));
    return [...rawParts, ...mapper.map(event)];
  };
  try {
    if (!first.done) {
      yield* parts(first.value);
      for await (const event of rest) yield* parts(event);
    }
    signal.throwIfAborted();
  } finally {
    release();
    await rest.return(undefined);
  }
}
