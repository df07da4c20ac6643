// GatewayEvent -> OpenAI Responses stream events (each with its sequence_number), and the Response object the
// stream ends with, which is also the non-streaming body. Field sets follow openai's responses.d.ts types.
//
// Reasoning goes out in LM Studio's form (a reasoning item whose `content` holds `reasoning_text` parts, streamed as
// `response.reasoning_text.delta`), not OpenAI's `summary_text`: a local model's reasoning is the model's own words,
// verbatim, and a summary it is not. Codex shows `reasoning_text` deltas as raw reasoning, and the openai types
// carry the part as `ResponseReasoningItem.content`.
//
// Parser diagnostics go out in the final response's `metadata` (`chatfmt_diagnostics`: the codes, comma-separated),
// the one place in the Response type a server may put free text: no event or field the SDK types lack.
import type { FinishEvent, Frame, GatewayError, GatewayEvent, ResponseMeta, Usage } from '../core/types.js';
import type { Diagnostic } from '../../types.js';
import { BlockStreamWriter, foldEvents, type BlockOpening, type StartEvent } from './block-writer.js';
import { failedResponseCode, responsesErrorEvent } from './openai-responses-errors.js';

type Status = 'in_progress' | 'completed' | 'incomplete';

type OutputText = { type: 'output_text'; text: string; annotations: never[]; logprobs: never[] };
type ReasoningText = { type: 'reasoning_text'; text: string };

type OutputItem =
  | { id: string; type: 'message'; status: Status; role: 'assistant'; content: OutputText[] }
  | { id: string; type: 'reasoning'; status: Status; summary: never[]; content: ReasoningText[] }
  | { id: string; type: 'function_call'; status: Status; call_id: string; name: string; arguments: string };

export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' } | null;
  /** The request's, when it gave them (as are tools, tool_choice and the sampling settings). */
  instructions: unknown;
  metadata: Record<string, string>;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  temperature: number | null;
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  max_output_tokens?: number;
  reasoning?: unknown;
  text?: unknown;
  truncation?: unknown;
  user?: string;
  usage?: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  };
}

/** OpenAI's limit on a metadata value. */
const METADATA_VALUE_LIMIT = 512;

interface OpenItem {
  outputIndex: number;
  item: OutputItem;
}

function usageOf(usage: Usage | undefined): ResponsesResponse['usage'] {
  const input = usage?.promptTokens ?? 0;
  const output = usage?.completionTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

export class ResponsesWriter extends BlockStreamWriter {
  readonly response: ResponsesResponse;
  private readonly open = new Map<string, OpenItem>();
  private readonly diagnostics: string[] = [];
  private sequence = 0;

  constructor(meta: ResponseMeta) {
    super();
    this.response = {
      id: 'resp_chatfmt', object: 'response', created_at: 0, status: 'in_progress', error: null,
      incomplete_details: null, instructions: null, metadata: {}, model: meta.model, output: [],
      parallel_tool_calls: true, temperature: null, tool_choice: 'auto', tools: [], top_p: null,
      ...(meta.echo as Partial<ResponsesResponse> | undefined),
    };
  }

  protected begin(start: StartEvent | undefined): Frame[] {
    if (start !== undefined) {
      this.response.id = start.responseId.startsWith('resp_') ? start.responseId : `resp_${start.responseId}`;
      this.response.created_at = start.created;
    }
    this.started = true;
    return [
      this.emit('response.created', { response: this.snapshot() }),
      this.emit('response.in_progress', { response: this.snapshot() }),
    ];
  }

  protected openBlock(blockId: string, opening: BlockOpening): Frame[] {
    const outputIndex = this.response.output.length;
    const suffix = `${this.response.id.replace(/^resp_/, '')}_${outputIndex}`;
    const item: OutputItem =
      opening.kind === 'text' ? { id: `msg_${suffix}`, type: 'message', status: 'in_progress', role: 'assistant', content: [] }
      : opening.kind === 'reasoning' ? { id: `rs_${suffix}`, type: 'reasoning', status: 'in_progress', summary: [], content: [] }
      : { id: `fc_${suffix}`, type: 'function_call', status: 'in_progress', call_id: opening.callId, name: opening.name, arguments: '' };
    this.response.output.push(item);
    this.open.set(blockId, { outputIndex, item });
    const frames = [this.emit('response.output_item.added', { output_index: outputIndex, item: structuredClone(item) })];
    if (item.type === 'message') item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
    else if (item.type === 'reasoning') item.content.push({ type: 'reasoning_text', text: '' });
    else return frames;
    const part = item.content[0];
    frames.push(this.emit('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { ...part } }));
    return frames;
  }

  protected diagnostic(diagnostic: Diagnostic): Frame[] {
    this.diagnostics.push(diagnostic.code);
    return [];
  }

  private emit(type: string, fields: Record<string, unknown>): Frame {
    return { event: type, data: JSON.stringify({ type, ...fields, sequence_number: this.sequence++ }) };
  }

  private snapshot(): ResponsesResponse {
    return JSON.parse(JSON.stringify(this.response)) as ResponsesResponse;
  }

  protected delta(blockId: string, delta: string): Frame[] {
    const open = this.open.get(blockId);
    if (open === undefined) return [];
    const { item, outputIndex } = open;
    const at = { item_id: item.id, output_index: outputIndex };
    if (item.type === 'function_call') {
      item.arguments += delta;
      return [this.emit('response.function_call_arguments.delta', { ...at, delta })];
    }
    const part = item.content[0]!;
    part.text += delta;
    if (item.type === 'message') return [this.emit('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] })];
    return [this.emit('response.reasoning_text.delta', { ...at, content_index: 0, delta })];
  }

  protected closeBlock(blockId: string, finalArguments?: string, status: Status = 'completed'): Frame[] {
    const open = this.open.get(blockId);
    if (open === undefined) return [];
    this.open.delete(blockId);
    const { item, outputIndex } = open;
    const at = { item_id: item.id, output_index: outputIndex };
    const frames: Frame[] = [];
    if (item.type === 'function_call') {
      if (finalArguments !== undefined && finalArguments.startsWith(item.arguments)) {
        const rest = finalArguments.slice(item.arguments.length);
        if (rest !== '') {
          item.arguments += rest;
          frames.push(this.emit('response.function_call_arguments.delta', { ...at, delta: rest }));
        }
      }
      frames.push(this.emit('response.function_call_arguments.done', { ...at, arguments: item.arguments }));
    } else {
      const part = item.content[0]!;
      if (item.type === 'message') frames.push(this.emit('response.output_text.done', { ...at, content_index: 0, text: part.text, logprobs: [] }));
      else frames.push(this.emit('response.reasoning_text.done', { ...at, content_index: 0, text: part.text }));
      frames.push(this.emit('response.content_part.done', { ...at, content_index: 0, part: { ...part } }));
    }
    item.status = status;
    frames.push(this.emit('response.output_item.done', { output_index: outputIndex, item: structuredClone(item) }));
    return frames;
  }

  /** Ends the response: diagnostics into metadata, and no event after this one. */
  private end(): void {
    this.ended = true;
    if (this.diagnostics.length > 0) this.response.metadata = { ...this.response.metadata, chatfmt_diagnostics: this.diagnostics.join(', ').slice(0, METADATA_VALUE_LIMIT) };
  }

  private closeAll(status: Status): Frame[] {
    return [...this.open.keys()].flatMap((id) => this.closeBlock(id, undefined, status));
  }

  protected finish({ reason, usage }: FinishEvent): Frame[] {
    const truncated = reason === 'length';
    const frames = this.closeAll(truncated ? 'incomplete' : 'completed');
    this.end();
    this.response.usage = usageOf(usage);
    if (truncated) {
      this.response.status = 'incomplete';
      this.response.incomplete_details = { reason: 'max_output_tokens' };
      frames.push(this.emit('response.incomplete', { response: this.snapshot() }));
    } else {
      this.response.status = 'completed';
      frames.push(this.emit('response.completed', { response: this.snapshot() }));
    }
    return frames;
  }

  protected fail(error: GatewayError): Frame[] {
    // A failure before anything was written still opens the response, so that response.failed has one to end.
    const frames = this.started ? [] : this.begin(undefined);
    frames.push(...this.closeAll('incomplete'));
    this.end();
    this.response.status = 'failed';
    this.response.error = { code: failedResponseCode(error), message: error.message };
    frames.push(responsesErrorEvent(error, this.sequence++));
    frames.push(this.emit('response.failed', { response: this.snapshot() }));
    return frames;
  }
}

export function aggregateResponses(events: readonly GatewayEvent[], meta: ResponseMeta): ResponsesResponse {
  return foldEvents(new ResponsesWriter(meta), events, (writer) => writer.response);
}
