// Repair mode: in front of a chat endpoint that renders and parses itself, but not always right. Its native calls
// pass through; its `content` and reasoning are re-parsed with the family's parser, so a call it left in the text
// (or reasoning it left in the content) reaches the client as what it is. Same events as runSession.
import type { ParserFamily } from '../../registry/index.js';
import { createStreamParser } from '../../parse/stream.js';
import type { Delta } from '../../types.js';
import type { ChatUpstreamChunk } from '../backends/openai-chat-upstream.js';
import type { BackendStop } from '../backends/types.js';
import { BlockWriter } from './blocks.js';
import { GatewayFailure } from './failure.js';
import { randomToken } from '../../parse/ids.js';
import { mayBeBareCall, recoverCalls } from './lenient.js';
import { finishEvent } from './finish.js';
import type { GatewayError, GatewayEvent, GatewayRequest, Usage } from './types.js';

export interface RepairDeps {
  /** The family the served model writes (its parser re-reads the text). */
  parser: string | ParserFamily;
  /** The model name when the client sends none. */
  modelName: string;
  /** Sent upstream whatever the client asked for (`--model-name`). */
  backendModel?: string;
  complete(request: GatewayRequest, signal: AbortSignal): Promise<AsyncIterable<ChatUpstreamChunk>>;
  /** Also take a whole answer that is a bare or fenced JSON call to a declared tool as that call. */
  lenient?: boolean;
  now?: () => number;
}

const enum Source {
  Content = 0,
  Reasoning = 1,
  Native = 2,
  Recovered = 3,
}

export async function* runRepairSession(request: GatewayRequest, deps: RepairDeps, signal: AbortSignal): AsyncGenerator<GatewayEvent> {
  let chunks: AsyncIterable<ChatUpstreamChunk>;
  const upstreamRequest = { ...request, model: deps.backendModel ?? (request.model || deps.modelName) };
  try {
    chunks = await deps.complete(upstreamRequest, signal);
  } catch (error) {
    if (signal.aborted) return;
    yield { type: 'error', error: asError(error) };
    return;
  }
  const responseId = randomToken();
  yield { type: 'start', responseId, model: upstreamRequest.model, created: Math.floor((deps.now?.() ?? Date.now() / 1000)) };

  // Both parsers start in content: the server already took the generation prompt's reasoning opener apart.
  const options = { family: deps.parser, tools: request.tools, prefix: '', reportCallEnds: true };
  const contentParser = createStreamParser(options);
  const reasoningParser = createStreamParser(options);
  const blocks = new BlockWriter(responseId.slice(0, 8));
  const pending: GatewayEvent[] = [];
  // Lenient: content is held while the answer could still be a bare JSON call.
  let held: string[] | undefined = deps.lenient && request.tools.length > 0 ? [] : undefined;
  const writeContent = (deltas: Delta[]) => {
    for (const delta of deltas) {
      if (held && delta.content) {
        held.push(delta.content);
        const { content: _, ...rest } = delta;
        blocks.write(rest, pending, Source.Content);
        if (!mayBeBareCall(held.join(''))) releaseHeld();
        continue;
      }
      blocks.write(delta, pending, Source.Content);
    }
  };
  const releaseHeld = () => {
    const text = held?.join('') ?? '';
    held = undefined;
    if (text) blocks.write({ content: text }, pending, Source.Content);
  };
  // The reasoning's own text stays reasoning; only calls in it change kind.
  const writeReasoning = (deltas: Delta[]) => {
    for (const { content, reasoning_content, ...rest } of deltas) {
      const text = (reasoning_content ?? '') + (content ?? '');
      blocks.write(text ? { ...rest, reasoning_content: text } : rest, pending, Source.Reasoning);
    }
  };
  const native = new Set<number>();
  let lastNative: number | undefined;
  let stop: BackendStop | undefined;
  let usage: Usage | undefined;
  let failure: GatewayError | undefined;
  try {
    for await (const chunk of chunks) {
      if (chunk.reasoning) writeReasoning(reasoningParser.push(chunk.reasoning));
      if (chunk.content) writeContent(contentParser.push(chunk.content));
      for (const part of chunk.calls ?? []) {
        // A server streams calls one after another: a new index closes the one before.
        if (lastNative !== undefined && part.index !== lastNative) blocks.write({ tool_call_ends: [lastNative] }, pending, Source.Native);
        lastNative = part.index;
        native.add(part.index);
        blocks.write({ tool_calls: [{ index: part.index, ...(part.id ? { id: part.id } : {}), function: { ...(part.name ? { name: part.name } : {}), arguments: part.arguments ?? '' } }] }, pending, Source.Native);
      }
      if (chunk.stop) stop = chunk.stop;
      if (chunk.usage) usage = chunk.usage;
      if (pending.length > 0) yield* pending.splice(0, pending.length);
    }
  } catch (error) {
    if (signal.aborted) return;
    failure = asError(error);
  }
  if (signal.aborted) return;
  writeReasoning(reasoningParser.finish());
  writeContent(contentParser.finish());
  if (native.size > 0) blocks.write({ tool_call_ends: [...native] }, pending, Source.Native);
  if (held && !failure) recover(held.join(''), request, blocks, pending);
  releaseHeld();
  blocks.flush(pending);
  yield* pending.splice(0, pending.length);
  if (failure) {
    yield { type: 'error', error: failure };
    return;
  }
  yield finishEvent(blocks.callCount, stop, usage, request.sampling.stop);

  function recover(text: string, req: GatewayRequest, writer: BlockWriter, out: GatewayEvent[]): void {
    const calls = recoverCalls(text, req.tools);
    if (!calls) return;
    held = undefined;
    calls.forEach((call, index) => {
      writer.write({ tool_calls: [{ index, id: `call_${randomToken()}`, function: { name: call.name, arguments: call.arguments } }], tool_call_ends: [index] }, out, Source.Recovered);
    });
    const names = calls.map((call) => call.name).join(', ');
    writer.diagnostic({ code: 'PARSE_CALL_RECOVERED', severity: 'warning', message: `the answer was a bare JSON call (${names}), taken as ${calls.length === 1 ? 'a call' : 'calls'} (--repair lenient)` }, out);
  }
}

function asError(error: unknown): GatewayError {
  if (error instanceof GatewayFailure) return error.error;
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
