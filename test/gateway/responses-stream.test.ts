// OpenAI Responses stream writer and aggregate: event order and sequence numbers, field sets against openai's
// responses.d.ts, the SDK's ResponseStream assembling our events against our non-streaming body, recorded streams.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import { openaiChatProtocol, openaiResponsesProtocol } from '../../src/gateway/index.js';
import type { Frame, GatewayErrorCode, GatewayEvent } from '../../src/gateway/index.js';
import { hasShared } from '../helpers/shared.js';
import { eventSequenceArbitrary, everyCallEnded, failedMidCall, meta, scenarios } from './event-scripts.js';
import { fieldsOf, shapeProblems } from './sdk-types.js';
import { recordedEvents } from './wire-fixtures.js';

type Json = Record<string, unknown>;
const TYPES = 'openai/resources/responses/responses.d.ts';

const EVENT_TYPES: Record<string, string> = {
  'response.created': 'ResponseCreatedEvent', 'response.in_progress': 'ResponseInProgressEvent',
  'response.completed': 'ResponseCompletedEvent', 'response.incomplete': 'ResponseIncompleteEvent', 'response.failed': 'ResponseFailedEvent',
  'response.output_item.added': 'ResponseOutputItemAddedEvent', 'response.output_item.done': 'ResponseOutputItemDoneEvent',
  'response.content_part.added': 'ResponseContentPartAddedEvent', 'response.content_part.done': 'ResponseContentPartDoneEvent',
  'response.output_text.delta': 'ResponseTextDeltaEvent', 'response.output_text.done': 'ResponseTextDoneEvent',
  'response.function_call_arguments.delta': 'ResponseFunctionCallArgumentsDeltaEvent',
  'response.function_call_arguments.done': 'ResponseFunctionCallArgumentsDoneEvent',
  'response.reasoning_text.delta': 'ResponseReasoningTextDeltaEvent', 'response.reasoning_text.done': 'ResponseReasoningTextDoneEvent',
  error: 'ResponseErrorEvent',
};
const ITEM_TYPES: Record<string, string> = { message: 'ResponseOutputMessage', reasoning: 'ResponseReasoningItem', function_call: 'ResponseFunctionToolCall' };
/**
 * `output_text` is computed by the SDK from the output (it is never on the wire); `access_programs` is in no
 * recorded response. Both are required by the type and absent from ours.
 */
const NOT_ON_THE_WIRE = ['output_text', 'access_programs'];

function written(events: readonly GatewayEvent[]): Frame[] {
  const write = openaiResponsesProtocol.createWriter(meta);
  return events.flatMap((event) => write(event));
}

function payloads(frames: Frame[]): Json[] {
  return frames.map((frame) => JSON.parse(frame.data) as Json);
}

function itemProblems(item: Json, where: string): string[] {
  const problems = shapeProblems(item, fieldsOf(TYPES, ITEM_TYPES[String(item.type)] ?? 'missing'), `${where} ${String(item.type)}`);
  for (const part of (item.content as Json[] | undefined) ?? []) {
    const name = part.type === 'output_text' ? 'ResponseOutputText' : 'ResponseReasoningItem.Content';
    problems.push(...shapeProblems(part, fieldsOf(TYPES, name), `${where} part ${String(part.type)}`));
  }
  return problems;
}

function responseProblems(response: Json, where: string): string[] {
  const problems = shapeProblems(response, fieldsOf(TYPES, 'Response'), where, NOT_ON_THE_WIRE);
  if (response.usage !== undefined) problems.push(...shapeProblems(response.usage as Json, fieldsOf(TYPES, 'ResponseUsage'), `${where}.usage`));
  if (response.error !== null) problems.push(...shapeProblems(response.error as Json, fieldsOf(TYPES, 'ResponseError'), `${where}.error`));
  for (const item of response.output as Json[]) problems.push(...itemProblems(item, `${where}.output`));
  return problems;
}

function eventProblems(event: Json): string[] {
  const type = String(event.type);
  const name = EVENT_TYPES[type];
  if (name === undefined) return [`unknown event type ${type}`];
  const problems = shapeProblems(event, fieldsOf(TYPES, name), type);
  if (event.response !== undefined) problems.push(...responseProblems(event.response as Json, `${type}.response`));
  if (event.item !== undefined) problems.push(...itemProblems(event.item as Json, type));
  if (event.part !== undefined) {
    const part = event.part as Json;
    const partName = part.type === 'output_text' ? 'ResponseOutputText' : `${name}.ReasoningText`;
    problems.push(...shapeProblems(part, fieldsOf(TYPES, partName), `${type}.part`));
  }
  return problems;
}

/** What the openai SDK assembles from our events, without what it computes itself (`output_text`, `parsed…`). */
async function sdkResponse(frames: Frame[]): Promise<Json> {
  const lines = frames.map((frame) => `${frame.data}\n`).join('');
  const body = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(lines)); c.close(); } });
  const final = await ResponseStream.fromReadableStream(body).finalResponse();
  return JSON.parse(JSON.stringify(final, (key, value: unknown) => (['output_text', 'output_parsed', 'parsed', 'parsed_arguments'].includes(key) ? undefined : value))) as Json;
}

/**
 * Sequence numbers 0, 1, 2…; created and in_progress first, one terminal event last; items one at a time with
 * output_index 0, 1, 2…, each item's events between its added and its done.
 */
function orderProblems(data: Json[]): string[] {
  const problems: string[] = [];
  data.forEach((event, i) => {
    if (event.sequence_number !== i) problems.push(`event ${i} numbered ${String(event.sequence_number)}`);
  });
  const types = data.map((event) => String(event.type));
  if (types[0] !== 'response.created' || types[1] !== 'response.in_progress') problems.push(`opens with ${types.slice(0, 2).join(' ')}`);
  if (!['response.completed', 'response.incomplete', 'response.failed'].includes(types.at(-1)!)) problems.push(`ends with ${types.at(-1)}`);
  let open: number | undefined;
  let next = 0;
  for (const event of data.slice(2, -1)) {
    if (event.type === 'response.output_item.added') {
      if (open !== undefined) problems.push(`item ${String(event.output_index)} added inside item ${open}`);
      if (event.output_index !== next++) problems.push(`output_index ${String(event.output_index)}, expected ${next - 1}`);
      open = event.output_index as number;
    } else if (event.output_index !== open) problems.push(`${String(event.type)} for item ${String(event.output_index)} while ${String(open)} is open`);
    else if (event.type === 'response.output_item.done') open = undefined;
  }
  if (open !== undefined) problems.push(`item ${open} never done`);
  return problems;
}

describe('Responses stream writer', () => {
  it('keeps the order and the SDK assembles our aggregate, for any sequence of items, even one cut short', async () => {
    await fc.assert(fc.asyncProperty(eventSequenceArbitrary, async (events) => {
      const frames = written(events);
      expect(orderProblems(payloads(frames))).toEqual([]);
      expect(payloads(frames).flatMap(eventProblems)).toEqual([]);
      if (everyCallEnded(events)) expect(JSON.parse(JSON.stringify(openaiResponsesProtocol.aggregate(events, meta)))).toEqual(await sdkResponse(frames));
    }), { numRuns: 60 });
  });

  for (const [name, events] of Object.entries(scenarios)) {
    it(`keeps the event order and numbers every event from 0: ${name}`, () => {
      const data = payloads(written(events));
      expect(orderProblems(data)).toEqual([]);
      expect(data.at(-1)!.type).toBe(name === 'max tokens' ? 'response.incomplete' : 'response.completed');
    });

    it(`writes only fields the openai types declare, and every required one: ${name}`, () => {
      const problems = payloads(written(events)).flatMap(eventProblems);
      problems.push(...responseProblems(openaiResponsesProtocol.aggregate(events, meta) as Json, 'aggregate'));
      expect(problems).toEqual([]);
    });

    it(`aggregates what the openai SDK assembles from the stream: ${name}`, async () => {
      expect(JSON.parse(JSON.stringify(openaiResponsesProtocol.aggregate(events, meta)))).toEqual(await sdkResponse(written(events)));
    });
  }

  it('writes reasoning as a reasoning item with reasoning_text content, then the call', () => {
    const response = openaiResponsesProtocol.aggregate(scenarios['reasoning then call']!, meta) as Json;
    expect(response).toMatchObject({
      id: 'resp_abc123', object: 'response', created_at: 1_764_000_000, status: 'completed', model: 'local-model',
      output: [
        { type: 'reasoning', status: 'completed', summary: [], content: [{ type: 'reasoning_text', text: 'The user wants the weather.' }] },
        { type: 'function_call', status: 'completed', call_id: 'call_0', name: 'get_weather', arguments: '{"city": "Oslo"}' },
      ],
      usage: { input_tokens: 11, output_tokens: 7, total_tokens: 18 },
    });
    const types = payloads(written(scenarios['reasoning then call']!)).map((event) => event.type);
    expect(types).toContain('response.reasoning_text.delta');
  });

  it('puts parser diagnostics in the final response metadata, streamed and not', () => {
    const events = scenarios['malformed call kept as text']!;
    expect((openaiResponsesProtocol.aggregate(events, meta) as Json).metadata).toEqual({ chatfmt_diagnostics: 'PARSE_BAD_ARGS_JSON' });
    const completed = payloads(written(events)).at(-1)!;
    expect(completed).toMatchObject({ type: 'response.completed', response: { metadata: { chatfmt_diagnostics: 'PARSE_BAD_ARGS_JSON' } } });
    expect((openaiResponsesProtocol.aggregate(scenarios['plain answer']!, meta) as Json).metadata).toEqual({});
  });

  it('marks a response cut by the token limit incomplete, with its reason', () => {
    expect(openaiResponsesProtocol.aggregate(scenarios['max tokens']!, meta)).toMatchObject({
      status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Once upon' }] }],
    });
  });

  it('completes a call whose arguments were not streamed, with one delta and the done event', () => {
    const data = payloads(written([
      { type: 'start', responseId: 'r', model: 'm', created: 0 },
      { type: 'tool-call-start', id: 'a', index: 0, callId: 'call_a', name: 'f' },
      { type: 'tool-call-end', id: 'a', index: 0, callId: 'call_a', name: 'f', arguments: '{"x":1}' },
      { type: 'finish', reason: 'tool-calls' },
    ]));
    expect(data.map((event) => [event.type, event.delta ?? event.arguments].filter(Boolean).join(' ')).slice(2)).toEqual([
      'response.output_item.added', 'response.function_call_arguments.delta {"x":1}', 'response.function_call_arguments.done {"x":1}',
      'response.output_item.done', 'response.completed',
    ]);
  });

  it('reports a failure as error, then response.failed, and nothing after', () => {
    const data = payloads(written([...failedMidCall(), { type: 'finish', reason: 'stop' }]));
    expect(data.slice(-2)).toMatchObject([
      { type: 'error', code: 'upstream_protocol_error', message: 'the backend closed the connection mid-stream', param: null },
      { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'the backend closed the connection mid-stream' } } },
    ]);
    expect(data.map((event) => event.sequence_number)).toEqual(data.map((_, i) => i));
    expect(data.flatMap(eventProblems)).toEqual([]);
  });
});

describe('Responses errors', () => {
  it("uses OpenAI's one error envelope and status table, the Chat front-end's", () => {
    const codes: GatewayErrorCode[] = [
      'INVALID_REQUEST', 'UNAUTHORIZED', 'NOT_FOUND', 'BODY_TOO_LARGE', 'TOO_MANY_REQUESTS', 'CONTEXT_OVERFLOW', 'TEMPLATE_REJECTED',
      'UPSTREAM_UNREACHABLE', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'UPSTREAM_PROTOCOL', 'INTERNAL',
    ];
    for (const code of codes) {
      const error = { code, message: 'm', param: 'input' };
      expect(openaiResponsesProtocol.toHttpError(error), code).toEqual(openaiChatProtocol.toHttpError(error));
    }
    expect(openaiResponsesProtocol.toHttpError({ code: 'CONTEXT_OVERFLOW', message: 'too long' })).toMatchObject({
      status: 400, body: { error: { type: 'invalid_request_error', code: 'context_length_exceeded' } },
    });
    const [frame] = openaiResponsesProtocol.toStreamError({ code: 'CONTEXT_OVERFLOW', message: 'too long' });
    expect(frame!.event).toBe('error');
    expect(eventProblems(JSON.parse(frame!.data) as Json)).toEqual([]);
  });
});

/** A recorded Responses stream read back into the events a session would have emitted for it. */
function gatewayEventsOf(recorded: Json[]): GatewayEvent[] {
  const events: GatewayEvent[] = [];
  let calls = 0;
  for (const event of recorded) {
    const item = event.item as Json | undefined;
    const id = `i${String(event.output_index)}`;
    switch (event.type) {
      case 'response.created':
        events.push({ type: 'start', responseId: String((event.response as Json).id), model: 'm', created: 0 });
        break;
      case 'response.output_item.added':
        if (item!.type === 'function_call') events.push({ type: 'tool-call-start', id, index: calls, callId: String(item!.call_id), name: String(item!.name) });
        else events.push({ type: item!.type === 'message' ? 'text-start' : 'reasoning-start', id });
        break;
      case 'response.output_text.delta':
        events.push({ type: 'text-delta', id, delta: String(event.delta) });
        break;
      case 'response.reasoning_text.delta':
        events.push({ type: 'reasoning-delta', id, delta: String(event.delta) });
        break;
      case 'response.function_call_arguments.delta':
        events.push({ type: 'tool-call-delta', id, index: calls, delta: String(event.delta) });
        break;
      case 'response.output_item.done':
        if (item!.type === 'function_call') {
          events.push({ type: 'tool-call-end', id, index: calls++, callId: String(item!.call_id), name: String(item!.name), arguments: String(item!.arguments) });
        } else events.push({ type: item!.type === 'message' ? 'text-end' : 'reasoning-end', id });
        break;
      case 'response.completed': {
        const usage = (event.response as Json).usage as Json;
        events.push({ type: 'finish', reason: 'stop', usage: { promptTokens: Number(usage.input_tokens), completionTokens: Number(usage.output_tokens) } });
        break;
      }
    }
  }
  return events;
}

/** Event types and output indexes, argument deltas left out (LM Studio sends none, OpenAI one per token). */
function skeleton(events: Json[]): string[] {
  return events.filter((event) => !String(event.type).endsWith('.delta'))
    .map((event) => [event.type, event.output_index, (event.item as Json | undefined)?.type, (event.part as Json | undefined)?.type].filter((x) => x !== undefined).join(' '));
}

describe.skipIf(!hasShared)('Responses writer against recorded streams', () => {
  const recordings = ['01-azure-openai-function-call.ndjson', '05-azure-openai-text.ndjson', '06-lmstudio-glm4.7-flash-tool-call.ndjson', '07-lmstudio-glm4.7-flash-basic-text.ndjson'];
  for (const file of recordings) {
    it(`writes the event sequence and output of ${file}`, async () => {
      const recorded = recordedEvents(`streams/openai-responses/${file}`);
      const ours = payloads(written(gatewayEventsOf(recorded)));
      expect(skeleton(ours)).toEqual(skeleton(recorded));
      const completed = recorded.at(-1)!.response as Json;
      const output = (response: Json) => (response.output as Json[]).map((item) => JSON.stringify([
        item.type, item.call_id, item.name, item.arguments, ((item.content as Json[] | undefined) ?? []).map((part) => part.text),
      ]));
      expect(output(openaiResponsesProtocol.aggregate(gatewayEventsOf(recorded), meta) as Json)).toEqual(output(completed));
      expect((openaiResponsesProtocol.aggregate(gatewayEventsOf(recorded), meta) as Json).usage).toMatchObject({
        input_tokens: (completed.usage as Json).input_tokens, output_tokens: (completed.usage as Json).output_tokens,
      });
    });
  }

  it('writes the error event the way api.openai.com does, then response.failed', () => {
    const recorded = recordedEvents('streams/openai-responses/03-openai-error-event.ndjson');
    const ours = payloads(written([{ type: 'start', responseId: 'r', model: 'm', created: 0 }, { type: 'error', error: { code: 'TOO_MANY_REQUESTS', message: 'quota' } }]));
    expect(ours.map((event) => event.type)).toEqual(recorded.map((event) => event.type));
    const keys = (event: Json) => Object.keys(event).sort();
    // OpenAI nests the error event's fields under `error` on the wire; the SDK types (and the SDK's reader) take them flat
    expect(keys(ours[2]!)).toEqual(['code', 'message', 'param', 'sequence_number', 'type']);
    expect(keys((ours[3]!.response as Json).error as Json)).toEqual(keys((recorded[3]!.response as Json).error as Json));
  });
});
