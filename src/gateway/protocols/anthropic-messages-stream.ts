// GatewayEvent -> Anthropic Messages stream frames, and the same state folded into the non-streaming Message.
// Field sets follow @anthropic-ai/sdk's Message / Raw*Event types: fields the types require are present (null when
// the gateway has nothing to say), fields they lack are never written.
import type { Diagnostic } from '../../types.js';
import type { FinishEvent, Frame, GatewayError, GatewayEvent, ResponseMeta, Usage } from '../core/types.js';
import { anthropicStreamError } from './anthropic-messages-errors.js';
import { BlockStreamWriter, foldEvents, type BlockOpening, type StartEvent } from './block-writer.js';

type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

type ContentBlock =
  | { type: 'text'; text: string; citations: null }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown; caller: { type: 'direct' } };

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  /** The client's stop sequence that ended the answer, when the backend said which it matched. */
  stop_sequence: string | null;
  stop_details: null;
  container: null;
  diagnostics: null;
  usage: ReturnType<typeof messageUsage>;
}

/** Anthropic names the unified finish reasons; a response that made calls always stops for `tool_use`. */
export function anthropicStopReason({ reason, stopSequence }: Pick<FinishEvent, 'reason' | 'stopSequence'>, sawToolUse: boolean): StopReason {
  if (reason === 'length') return 'max_tokens';
  if (sawToolUse || reason === 'tool-calls') return 'tool_use';
  return stopSequence !== undefined ? 'stop_sequence' : 'end_turn';
}

function messageUsage(usage: Usage | undefined) {
  return {
    input_tokens: usage?.promptTokens ?? 0,
    output_tokens: usage?.completionTokens ?? 0,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: null,
    speed: null,
  };
}

function deltaUsage(usage: Usage | undefined) {
  return {
    input_tokens: usage?.promptTokens ?? null,
    output_tokens: usage?.completionTokens ?? 0,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    output_tokens_details: null,
    server_tool_use: null,
  };
}

function frame(data: { type: string; [field: string]: unknown }): Frame {
  return { event: data.type, data: JSON.stringify(data) };
}

/**
 * A parser diagnostic rides on a `ping`: Anthropic clients must skip pings (the SDK drops them unread), so the
 * note is visible on the wire without adding a field or an event to anything a client parses.
 */
function diagnosticFrame(diagnostic: Diagnostic): Frame {
  return { event: 'ping', data: JSON.stringify({ type: 'ping', chatfmt_diagnostic: diagnostic }) };
}

interface OpenBlock {
  index: number;
  block: ContentBlock;
  /** The tool-use arguments written so far, to complete them at the end if the deltas fell short. */
  json: string;
}

/**
 * One response's state: block indexes in order of opening, the message as the client will have assembled it, and
 * whether the message has been started or finished (so a stray event after the end writes nothing).
 */
export class AnthropicWriter extends BlockStreamWriter {
  readonly message: AnthropicMessage;
  private readonly open = new Map<string, OpenBlock>();

  constructor(meta: ResponseMeta) {
    super();
    this.message = {
      id: '', type: 'message', role: 'assistant', model: meta.model, content: [], stop_reason: null,
      stop_sequence: null, stop_details: null, container: null, diagnostics: null, usage: messageUsage(undefined),
    };
  }

  protected begin(start: StartEvent | undefined): Frame[] {
    this.started = true;
    const responseId = start?.responseId;
    this.message.id = responseId === undefined ? 'msg_chatfmt' : responseId.startsWith('msg_') ? responseId : `msg_${responseId}`;
    return [frame({ type: 'message_start', message: { ...this.message, content: [], usage: { ...this.message.usage } } })];
  }

  protected openBlock(id: string, opening: BlockOpening): Frame[] {
    const index = this.message.content.length;
    const block: ContentBlock =
      opening.kind === 'text' ? { type: 'text', text: '', citations: null }
      : opening.kind === 'reasoning' ? { type: 'thinking', thinking: '', signature: '' }
      : { type: 'tool_use', id: opening.callId, name: opening.name, input: {}, caller: { type: 'direct' } };
    this.message.content.push(block);
    this.open.set(id, { index, block, json: '' });
    const frames = [frame({ type: 'content_block_start', index, content_block: { ...block } })];
    // Anthropic opens every tool input with an empty delta (the only one for a call without arguments).
    if (block.type === 'tool_use') frames.push(frame({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } }));
    return frames;
  }

  protected diagnostic(diagnostic: Diagnostic): Frame[] {
    return [diagnosticFrame(diagnostic)];
  }

  protected fail(error: GatewayError): Frame[] {
    this.ended = true;
    return anthropicStreamError(error);
  }

  protected delta(id: string, text: string): Frame[] {
    const open = this.open.get(id);
    if (open === undefined) return [];
    const { block, index } = open;
    let delta;
    if (block.type === 'text') {
      block.text += text;
      delta = { type: 'text_delta', text };
    } else if (block.type === 'thinking') {
      block.thinking += text;
      delta = { type: 'thinking_delta', thinking: text };
    } else {
      open.json += text;
      delta = { type: 'input_json_delta', partial_json: text };
    }
    return [frame({ type: 'content_block_delta', index, delta })];
  }

  protected closeBlock(id: string, finalArguments?: string): Frame[] {
    const open = this.open.get(id);
    if (open === undefined) return [];
    const frames: Frame[] = [];
    if (open.block.type === 'tool_use') {
      const json = finalArguments ?? open.json;
      const rest = json.startsWith(open.json) ? json.slice(open.json.length) : '';
      if (rest !== '') frames.push(...this.delta(id, rest));
      open.block.input = parseInput(json);
    }
    this.open.delete(id);
    frames.push(frame({ type: 'content_block_stop', index: open.index }));
    return frames;
  }

  protected finish(event: FinishEvent): Frame[] {
    const { usage } = event;
    // Blocks the session left open are closed first: every content_block_start gets its stop.
    const frames = [...this.open.keys()].flatMap((id) => this.closeBlock(id));
    this.ended = true;
    const sawToolUse = this.message.content.some((block) => block.type === 'tool_use');
    this.message.stop_reason = anthropicStopReason(event, sawToolUse);
    this.message.stop_sequence = this.message.stop_reason === 'stop_sequence' ? event.stopSequence ?? null : null;
    this.message.usage = messageUsage(usage);
    frames.push(frame({
      type: 'message_delta',
      delta: { stop_reason: this.message.stop_reason, stop_sequence: this.message.stop_sequence, stop_details: null, container: null },
      usage: deltaUsage(usage),
    }));
    frames.push(frame({ type: 'message_stop' }));
    return frames;
  }
}

/** The input object a client gets for a call: `""` (a call without arguments) reads as `{}`, as Anthropic's SDK does. */
function parseInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return {}; // the session sends only calls its parser confirmed; this guards the writer, not the model
  }
}

export function aggregateAnthropic(events: readonly GatewayEvent[], meta: ResponseMeta): AnthropicMessage {
  return foldEvents(new AnthropicWriter(meta), events, (writer) => writer.message);
}
