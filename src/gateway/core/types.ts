// The gateway's one internal language. Every client protocol (OpenAI Chat, Anthropic Messages, OpenAI Responses)
// is translated into a GatewayRequest on the way in, and every protocol's output is written from the same
// GatewayEvent sequence on the way out, so the three front-ends cannot disagree about what the model said.
// Pure types: no process, console or file system (this core also serves the AI SDK provider in browsers).
import type { Diagnostic, Message, Tool } from '../../types.js';

/** `none` renders no tools; `required` and a named tool pre-fill the generation with the family's call opener. */
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

/** Sampling settings a front-end understood; each backend sends the ones it can. */
export interface SamplingOptions {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  /** Client stop strings, added to the family's own. */
  stop?: string[];
  /** `{type: 'json_object'}` or `{type: 'json_schema', schema}`: passed to backends that constrain output. */
  responseFormat?: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; schema: Record<string, unknown>; name?: string };
}

/** A client request in protocol-neutral form: OpenAI chat messages, as chatfmt's renderer takes them. */
export interface GatewayRequest {
  /** The model name the client asked for (echoed back; the gateway serves one model). */
  model: string;
  /**
   * The conversation in chatfmt's message model: assistant reasoning in `reasoning_content`, calls in `tool_calls`
   * (arguments as JSON text), results as `role: 'tool'` with `tool_call_id`. Front-ends map their own shapes here.
   */
  messages: Message[];
  /** OpenAI function tools (`{type:'function', function:{name, description, parameters}}`). */
  tools: Tool[];
  /** The client sent a tools list, possibly empty: it is rendered even when empty (a template may tell [] from none). */
  toolsSent?: boolean;
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  stream: boolean;
  sampling: SamplingOptions;
  /** Extra template variables the client asked for (`chat_template_kwargs`, reasoning effort, enable_thinking). */
  templateVariables: Record<string, unknown>;
  /** Anthropic prefill / OpenAI `continue_final_message`: the last assistant message is continued, not closed. */
  continueFinalMessage: boolean;
  /** OpenAI `stream_options.include_usage`: the stream ends with a usage chunk. */
  includeUsage?: boolean;
  /** Request fields the protocol repeats in its response object as the client sent them (Responses echoes its settings). */
  echo?: Record<string, unknown>;
}

/** Why generation ended, in one vocabulary; each protocol maps it (`stop` → `end_turn`, `tool-calls` → `tool_use`). */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'error';

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * What the model said, in order. A session emits `start` first, then blocks, then exactly one `finish` or `error`,
 * and nothing after it. A request that fails before the backend answered yields `error` alone (no `start`): the
 * server answers it with `toHttpError`. Every `*-start` has its `*-end` before `finish` (a failure closes open blocks before `error`).
 * Block ids are unique within a response. A tool call is emitted only once the parser has confirmed it, or its
 * arguments are streamed as they come but a call withdrawn by the parser never reaches the client as a call:
 * its text arrives as text instead (no text is ever lost).
 */
export type GatewayEvent =
  | { type: 'start'; responseId: string; model: string; created: number }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  /** `index` counts calls in this response from 0; `callId` is the id the client will send back with the result. */
  | { type: 'tool-call-start'; id: string; index: number; callId: string; name: string }
  | { type: 'tool-call-delta'; id: string; index: number; delta: string }
  /** `arguments` is the whole JSON text: the concatenation of the deltas. */
  | { type: 'tool-call-end'; id: string; index: number; callId: string; name: string; arguments: string }
  /** A parser diagnostic (malformed call, unknown tool, repair): surfaced to clients, never dropped. */
  | { type: 'diagnostic'; diagnostic: Diagnostic }
  /** `stopSequence`: the client's stop string that ended the answer, when the backend said which it matched. */
  | { type: 'finish'; reason: FinishReason; rawReason?: string; stopSequence?: string; usage?: Usage }
  | { type: 'error'; error: GatewayError };

export type FinishEvent = Extract<GatewayEvent, { type: 'finish' }>;

/** Closed set of failure kinds; each protocol maps them to its own status and envelope. */
export type GatewayErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'BODY_TOO_LARGE'
  /** The request body did not arrive in time (a client that sends its body slowly, or less than it announced). */
  | 'REQUEST_TIMEOUT'
  | 'TOO_MANY_REQUESTS'
  | 'CONTEXT_OVERFLOW'
  | 'TEMPLATE_REJECTED'
  | 'UPSTREAM_UNREACHABLE'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_PROTOCOL'
  | 'INTERNAL';

export interface GatewayError {
  code: GatewayErrorCode;
  message: string;
  /** The request field at fault, as a JSON path in the client's own request (`messages[2].content[0].type`). */
  param?: string;
  /** The upstream HTTP status, when the backend answered with an error. */
  upstreamStatus?: number;
}

export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** One thing to write on the client connection: an SSE frame (`event` optional) or a raw data line. */
export interface Frame {
  event?: string;
  data: string;
}

/** What is known about a response before any event: what a writer needs for ids and echoes. */
export interface ResponseMeta {
  model: string;
  /** Options the client set that change the output shape (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** Which field(s) reasoning goes out in, for the OpenAI protocols. */
  reasoningField: 'reasoning_content' | 'reasoning' | 'both';
  /** The request's `echo`: fields the response object repeats. */
  echo?: Record<string, unknown>;
}

/**
 * A client protocol. One file per protocol under src/gateway/protocols/, each a pure module: request
 * translation in, frames out, errors as the protocol's own envelope. `aggregate` builds the non-streaming
 * body from the same events the stream writer sees, so streamed and non-streamed answers cannot drift.
 */
export interface Protocol {
  readonly name: 'openai-chat' | 'anthropic-messages' | 'openai-responses';
  parseRequest(body: unknown): Result<GatewayRequest, GatewayError>;
  /**
   * A writer owns all of one response's protocol state (block indexes, sequence numbers). The server hands it every
   * event; for `error`, a writer that returns no frames leaves the report to `toStreamError`, and one that needs its
   * state to report it (Responses numbers its `error` event and ends with `response.failed`) writes it itself.
   */
  createWriter(meta: ResponseMeta): (event: GatewayEvent) => Frame[];
  /** The non-streaming response body. */
  aggregate(events: readonly GatewayEvent[], meta: ResponseMeta): unknown;
  /** An error before any byte was sent: HTTP status and the protocol's error body. */
  toHttpError(error: GatewayError): { status: number; body: unknown };
  /** An error after the stream began: the in-band frames that report it (then the stream ends). */
  toStreamError(error: GatewayError): Frame[];
}
