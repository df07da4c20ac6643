// One request, start to finish: render the conversation with the model's own template, call the backend, parse the
// text with the family's streaming parser and turn it into GatewayEvents. Pure: no process, console or Node modules.
import type { FamilyId } from '../../families/info.js';
import { ChatfmtError } from '../../errors.js';
import { promptTail } from '../../parse/assistant-headers.js';
import { parserFamily, type ParserFamily } from '../../registry/index.js';
import { createStreamParser } from '../../parse/stream.js';
import { renderConversation } from '../../render/render.js';
import type { LoadedTemplate, RenderWarning } from '../../render/types.js';
import type { Conversation } from '../../types.js';
import type { BackendChunk, CompletionInput } from '../backends/types.js';
import { BlockWriter } from './blocks.js';
import { fail, GatewayFailure } from './failure.js';
import { randomToken } from '../../parse/ids.js';
import { callPrefill } from './prefill.js';
import { finishEvent } from './finish.js';
import type { GatewayError, GatewayEvent, GatewayRequest, Usage } from './types.js';

/** The model the gateway serves: how to render for it and how to read what it writes. */
export interface GatewayModel {
  template: LoadedTemplate;
  /** A family id, or a parser derived from the template (`parserForTemplate`). */
  parser: string | ParserFamily;
  /** The family, when known: its assistant header finds the parser's prefix, its call opener pre-fills forced calls. */
  familyId?: FamilyId;
  /** The parser's starting state when no family header can be found in the prompt. */
  defaultPrefix?: string;
  stopStrings: readonly string[];
  /** Listed by GET /v1/models; sent to the backend when the client names no model. */
  name: string;
  /** Always sent to the backend, whatever the client asked for (`--model-name`). */
  backendModel?: string;
}

export interface SessionDeps {
  model: GatewayModel;
  /** Starts the backend completion; resolves once it answered (see backends/index.ts `openCompletion`). */
  complete(input: CompletionInput, signal: AbortSignal): Promise<AsyncIterable<BackendChunk>>;
  /** Seconds since the epoch, for `created`. */
  now?: () => number;
}

/** What the backend is asked to continue, and how the parser starts. */
export interface PreparedPrompt {
  /** The rendered prompt (`chatfmt render -g`), followed by `prefill`. */
  prompt: string;
  rendered: string;
  /** The forced call's opener ('' unless tool_choice is `required` or named); parsed as the model's output. */
  prefill: string;
  parserPrefix: string | undefined;
  warnings: RenderWarning[];
}

/** Renders the request exactly as `chatfmt render -g --args auto` renders the same messages and tools. */
export function preparePrompt(request: GatewayRequest, model: GatewayModel): PreparedPrompt {
  const toolsShown = request.toolChoice === 'none' ? [] : request.tools;
  const renderTools = toolsShown.length > 0 || (request.toolsSent === true && request.toolChoice !== 'none');
  const conversation: Conversation = { messages: request.messages, ...(renderTools ? { tools: toolsShown } : {}) };
  let rendered: string;
  let warnings: RenderWarning[];
  try {
    const result = renderConversation(model.template, conversation, {
      addGenerationPrompt: !request.continueFinalMessage,
      continueFinalMessage: request.continueFinalMessage,
      variables: request.templateVariables,
      args: 'auto',
    });
    rendered = result.text;
    warnings = result.warnings;
  } catch (error) {
    if (error instanceof ChatfmtError) throw fail(error.code === 'INPUT_INVALID' ? 'INVALID_REQUEST' : 'TEMPLATE_REJECTED', `the chat template rejected the conversation: ${error.message}`);
    throw error;
  }
  const parserPrefix = model.familyId ? promptTail(rendered, model.familyId) : model.defaultPrefix;
  let prefill = '';
  const choice = request.toolChoice;
  if ((choice === 'required' || typeof choice === 'object') && request.tools.length > 0) {
    if (!model.familyId) throw fail('INVALID_REQUEST', 'tool_choice "required" or a named tool needs a known family (--family): the call opener of this template is not known', { param: 'tool_choice' });
    const reasoningClose = inReasoning(model, parserPrefix) ? reasoningCloser(model) : undefined;
    prefill = callPrefill(model.familyId, choice === 'required' ? 'required' : { name: choice.name }, request.messages, reasoningClose);
  }
  return { prompt: rendered + prefill, rendered, prefill, parserPrefix, warnings };
}

/**
 * The whole exchange as events: `start`, blocks, then exactly one `finish` or `error`. When the request fails before
 * the backend answered (template rejected, backend unreachable, HTTP error), `error` is the only event, so the server
 * can still answer with an HTTP status. A client abort (`signal`) ends the events quietly and aborts the backend call.
 */
export async function* runSession(request: GatewayRequest, deps: SessionDeps, signal: AbortSignal): AsyncGenerator<GatewayEvent> {
  const { model } = deps;
  let prepared: PreparedPrompt;
  let chunks: AsyncIterable<BackendChunk>;
  try {
    prepared = preparePrompt(request, model);
    const stop = [...new Set([...model.stopStrings, ...(request.sampling.stop ?? [])])];
    chunks = await deps.complete({ prompt: prepared.prompt, stop, sampling: request.sampling, model: backendModel(request, model) }, signal);
  } catch (error) {
    if (signal.aborted) return;
    yield { type: 'error', error: asGatewayError(error) };
    return;
  }
  const responseId = randomToken();
  yield { type: 'start', responseId, model: request.model || model.name, created: (deps.now ?? nowSeconds)() };

  const parser = createStreamParser({
    family: model.parser,
    tools: request.tools,
    ...(prepared.parserPrefix !== undefined ? { prefix: prepared.parserPrefix } : {}),
    reportCallEnds: true,
  });
  const blocks = new BlockWriter(responseId.slice(0, 8));
  const pending: GatewayEvent[] = [];
  // The parser's output goes straight into block events: no OpenAI delta per streamed token.
  const sink = blocks.sinkInto(pending);
  let stop: BackendChunk['stop'];
  let usage: Usage | undefined;
  let failure: GatewayError | undefined;
  try {
    if (prepared.prefill) parser.pushTo(prepared.prefill, sink);
    for await (const chunk of chunks) {
      if (chunk.text) parser.pushTo(chunk.text, sink);
      if (chunk.stop) stop = chunk.stop;
      if (chunk.usage) usage = chunk.usage;
      if (pending.length > 0) yield* drain(pending);
      // One call was asked for: the first closed call ends the answer (the backend request is aborted).
      if (!request.parallelToolCalls && blocks.callCount > 0) break;
    }
  } catch (error) {
    if (signal.aborted) return;
    failure = asGatewayError(error);
  }
  if (signal.aborted) return;
  try {
    // Releases held text: after a failure too, so the text the model wrote before it is not lost.
    parser.finishTo(sink);
  } catch (error) {
    failure ??= asGatewayError(error);
  }
  blocks.flush(pending);
  yield* drain(pending);
  if (failure) {
    yield { type: 'error', error: failure };
    return;
  }
  yield finishEvent(blocks.callCount, stop, usage, request.sampling.stop);
}

/** The model name a backend is sent: `--model-name` when set, else the client's, else the gateway's own name. */
export function backendModel(request: GatewayRequest, model: GatewayModel): string {
  return model.backendModel ?? (request.model || model.name);
}

function* drain(pending: GatewayEvent[]): Generator<GatewayEvent> {
  const events = pending.splice(0, pending.length);
  yield* events;
}

/** Does the parser, started at this prefix, read the model's first words as reasoning? Probed, not guessed. */
function inReasoning(model: GatewayModel, prefix: string | undefined): boolean {
  const probe = createStreamParser({ family: model.parser, ...(prefix !== undefined ? { prefix } : {}) });
  const deltas = [...probe.push('probe'), ...probe.finish()];
  return deltas.some((delta) => delta.reasoning_content);
}

function reasoningCloser(model: GatewayModel): string | undefined {
  const family = typeof model.parser === 'string' ? parserFamily(model.parser) : model.parser;
  return family.markers.reasoningClose?.[0];
}

function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayFailure) return error.error;
  // Rendering errors were mapped in preparePrompt: a ChatfmtError here is the parser refusing the backend's output.
  if (error instanceof ChatfmtError && error.code === 'INPUT_TOO_LARGE') return { code: 'UPSTREAM_PROTOCOL', message: `the backend's completion is too long to parse: ${error.message}` };
  if (error instanceof ChatfmtError) return { code: 'INTERNAL', message: error.message };
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
