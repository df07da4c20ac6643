// Anthropic Messages stream writer and aggregate: the event-order contract, field sets against @anthropic-ai/sdk's
// declarations, the SDK's own accumulation of our frames against our non-streaming body, and the recorded streams.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import { anthropicMessagesProtocol } from '../../src/gateway/index.js';
import type { Frame, GatewayErrorCode, GatewayEvent } from '../../src/gateway/index.js';
import { hasShared } from '../helpers/shared.js';
import { eventSequenceArbitrary, everyCallEnded, failedMidCall, meta, scenarios, script } from './event-scripts.js';
import { fieldsOf, shapeProblems } from './sdk-types.js';
import { readCapture, recordedEvents } from './wire-fixtures.js';

type Json = Record<string, unknown>;
const TYPES = '@anthropic-ai/sdk/resources/messages/messages.d.ts';

function written(events: readonly GatewayEvent[]): Frame[] {
  const write = anthropicMessagesProtocol.createWriter(meta);
  return events.flatMap((event) => write(event));
}

function payloads(frames: Frame[]): Json[] {
  return frames.map((frame) => JSON.parse(frame.data) as Json);
}

/** What the SDK assembles from our stream, read the way its SSE layer reads it (pings skipped unread). */
async function sdkMessage(frames: Frame[]): Promise<unknown> {
  const lines = frames.filter((frame) => frame.event !== 'ping').map((frame) => `${frame.data}\n`).join('');
  const body = new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode(lines)); controller.close(); } });
  // parsed_output is the SDK's own addition (structured-output parsing), never on the wire
  const { parsed_output: _sdkOnly, ...message } = await MessageStream.fromReadableStream(body).finalMessage();
  return message;
}

const BLOCK_TYPES: Record<string, string> = { text: 'TextBlock', thinking: 'ThinkingBlock', tool_use: 'ToolUseBlock' };
const DELTA_TYPES: Record<string, string> = { text_delta: 'TextDelta', thinking_delta: 'ThinkingDelta', input_json_delta: 'InputJSONDelta' };
const EVENT_TYPES: Record<string, string> = {
  message_start: 'RawMessageStartEvent', content_block_start: 'RawContentBlockStartEvent', content_block_delta: 'RawContentBlockDeltaEvent',
  content_block_stop: 'RawContentBlockStopEvent', message_delta: 'RawMessageDeltaEvent', message_stop: 'RawMessageStopEvent',
};

/** Every object in one stream event checked against the SDK interface it claims to be. */
function eventProblems(event: Json): string[] {
  const type = String(event.type);
  const name = EVENT_TYPES[type];
  if (name === undefined) return [`unknown event type ${type}`];
  const problems = shapeProblems(event, fieldsOf(TYPES, name), type);
  if (type === 'message_start') problems.push(...messageProblems(event.message as Json));
  if (type === 'content_block_start') problems.push(...blockProblems(event.content_block as Json));
  if (type === 'content_block_delta') {
    const delta = event.delta as Json;
    problems.push(...shapeProblems(delta, fieldsOf(TYPES, DELTA_TYPES[String(delta.type)] ?? 'missing'), String(delta.type)));
  }
  if (type === 'message_delta') {
    problems.push(...shapeProblems(event.delta as Json, fieldsOf(TYPES, 'RawMessageDeltaEvent.Delta'), 'message_delta.delta'));
    problems.push(...shapeProblems(event.usage as Json, fieldsOf(TYPES, 'MessageDeltaUsage'), 'message_delta.usage'));
  }
  return problems;
}

function blockProblems(block: Json): string[] {
  return shapeProblems(block, fieldsOf(TYPES, BLOCK_TYPES[String(block.type)] ?? 'missing'), String(block.type));
}

function messageProblems(message: Json): string[] {
  return [
    ...shapeProblems(message, fieldsOf(TYPES, 'Message'), 'Message'),
    ...shapeProblems(message.usage as Json, fieldsOf(TYPES, 'Usage'), 'Message.usage'),
    ...(message.content as Json[]).flatMap(blockProblems),
  ];
}

/** The events two streams can be compared on: pings, signatures and empty text left out (Anthropic sends an empty
 * thinking delta at times; we send no empty text). */
function comparable(events: Json[]): Json[] {
  return events.filter((event) => {
    const delta = event.delta as Json | undefined;
    return event.type !== 'ping' && delta?.type !== 'signature_delta' && delta?.text !== '' && delta?.thinking !== '';
  });
}

/** The stream's skeleton: event types with block index, block type and delta type. */
function skeleton(events: Json[]): string[] {
  return comparable(events).map((event) => {
    const block = event.content_block as Json | undefined;
    const delta = event.type === 'content_block_delta' ? (event.delta as Json).type : undefined;
    return [event.type, event.index, block?.type, delta].filter((x) => x !== undefined).join(' ');
  });
}

/**
 * The order contract (llama.cpp's tests, Anthropic's docs): each frame's event name is its type; message_start first;
 * blocks one at a time, indexes 0, 1, 2…, each start closed by its stop; message_delta then message_stop last.
 */
function orderProblems(frames: Frame[]): string[] {
  const problems: string[] = [];
  for (const frame of frames) if (frame.event !== (JSON.parse(frame.data) as Json).type) problems.push(`event ${frame.event} carries another type`);
  const data = payloads(frames).filter((event) => event.type !== 'ping');
  const types = data.map((event) => event.type);
  if (types[0] !== 'message_start' || types.at(-2) !== 'message_delta' || types.at(-1) !== 'message_stop') problems.push(`frame types ${types.join(' ')}`);
  let open: number | undefined;
  let next = 0;
  for (const event of data.slice(1, -2)) {
    if (event.type === 'content_block_start') {
      if (open !== undefined) problems.push(`block ${String(event.index)} opened inside block ${open}`);
      if (event.index !== next++) problems.push(`block index ${String(event.index)}, expected ${next - 1}`);
      open = event.index as number;
    } else if (event.index !== open) problems.push(`${String(event.type)} for block ${String(event.index)} while ${String(open)} is open`);
    else if (event.type === 'content_block_stop') open = undefined;
  }
  if (open !== undefined) problems.push(`block ${open} never stopped`);
  return problems;
}

describe('Anthropic stream writer', () => {
  it('keeps the order contract and the SDK assembles our aggregate, for any sequence of blocks, even one cut short', async () => {
    await fc.assert(fc.asyncProperty(eventSequenceArbitrary, async (events) => {
      const frames = written(events);
      expect(orderProblems(frames)).toEqual([]);
      if (everyCallEnded(events)) expect(JSON.parse(JSON.stringify(anthropicMessagesProtocol.aggregate(events, meta)))).toEqual(await sdkMessage(frames));
    }), { numRuns: 60 });
  });

  for (const [name, events] of Object.entries(scenarios)) {
    it(`keeps the event-order contract: ${name}`, () => {
      expect(orderProblems(written(events))).toEqual([]);
    });

    it(`writes only fields the SDK types declare, and every required one: ${name}`, () => {
      const problems = payloads(written(events)).filter((event) => event.type !== 'ping').flatMap(eventProblems);
      problems.push(...messageProblems(anthropicMessagesProtocol.aggregate(events, meta) as Json));
      expect(problems).toEqual([]);
    });

    it(`aggregates what the SDK assembles from the stream: ${name}`, async () => {
      const fromStream = await sdkMessage(written(events));
      expect(JSON.parse(JSON.stringify(anthropicMessagesProtocol.aggregate(events, meta)))).toEqual(fromStream);
    });
  }

  it('maps finish reasons: tool_use whenever a call was made, max_tokens on length', () => {
    const stopOf = (events: GatewayEvent[]) => (anthropicMessagesProtocol.aggregate(events, meta) as Json).stop_reason;
    expect(stopOf(scenarios['plain answer']!)).toBe('end_turn');
    expect(stopOf(scenarios['parallel calls']!)).toBe('tool_use');
    expect(stopOf(script([{ call: 'f', args: ['{}'] }], 'stop'))).toBe('tool_use');
    expect(stopOf(scenarios['max tokens']!)).toBe('max_tokens');
  });

  it('builds the message: text, thinking, tool inputs as objects, usage from the backend counts', () => {
    const message = anthropicMessagesProtocol.aggregate(scenarios['reasoning then call']!, meta) as Json;
    expect(message).toMatchObject({
      id: 'msg_abc123', type: 'message', role: 'assistant', model: 'local-model',
      content: [
        { type: 'thinking', thinking: 'The user wants the weather.', signature: '' },
        { type: 'tool_use', id: 'call_0', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      usage: { input_tokens: 11, output_tokens: 7 },
    });
    expect((anthropicMessagesProtocol.aggregate(scenarios['call without arguments']!, meta) as Json).content).toEqual([
      { type: 'tool_use', id: 'call_0', name: 'list_issues', input: {}, caller: { type: 'direct' } },
    ]);
  });

  it('gives every tool_use start its stop, completing arguments the deltas did not carry', () => {
    const events: GatewayEvent[] = [
      { type: 'start', responseId: 'r', model: 'm', created: 0 },
      { type: 'tool-call-start', id: 'a', index: 0, callId: 'call_a', name: 'f' },
      { type: 'tool-call-end', id: 'a', index: 0, callId: 'call_a', name: 'f', arguments: '{"x": 1}' },
      { type: 'tool-call-start', id: 'b', index: 1, callId: 'call_b', name: 'g' },
      { type: 'tool-call-delta', id: 'b', index: 1, delta: '{"y"' },
      { type: 'finish', reason: 'length' },
    ];
    const data = payloads(written(events));
    expect(skeleton(data)).toEqual([
      'message_start', 'content_block_start 0 tool_use', 'content_block_delta 0 input_json_delta', 'content_block_delta 0 input_json_delta',
      'content_block_stop 0', 'content_block_start 1 tool_use', 'content_block_delta 1 input_json_delta', 'content_block_delta 1 input_json_delta',
      'content_block_stop 1', 'message_delta', 'message_stop',
    ]);
    expect((data[3]!.delta as Json).partial_json).toBe('{"x": 1}');
  });

  it('carries diagnostics on a ping, which clients skip unread', () => {
    const frames = written(scenarios['malformed call kept as text']!);
    const pings = frames.filter((frame) => frame.event === 'ping').map((frame) => JSON.parse(frame.data) as Json);
    expect(pings).toEqual([{ type: 'ping', chatfmt_diagnostic: { code: 'PARSE_BAD_ARGS_JSON', severity: 'warning', message: 'arguments are not JSON' } }]);
  });

  it('ends a failed stream with one error event and nothing after it', () => {
    const frames = written([...failedMidCall(), { type: 'finish', reason: 'stop' }]);
    expect(frames.at(-1)).toEqual({ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'the backend closed the connection mid-stream' } }) });
    expect(frames.filter((frame) => frame.event === 'message_stop')).toEqual([]);
  });
});

describe('Anthropic errors', () => {
  it('uses Anthropic status table and envelope', () => {
    const table: Array<[GatewayErrorCode, number, string]> = [
      ['INVALID_REQUEST', 400, 'invalid_request_error'], ['CONTEXT_OVERFLOW', 400, 'invalid_request_error'],
      ['UNAUTHORIZED', 401, 'authentication_error'], ['NOT_FOUND', 404, 'not_found_error'],
      ['BODY_TOO_LARGE', 413, 'request_too_large'], ['TOO_MANY_REQUESTS', 429, 'rate_limit_error'],
      ['INTERNAL', 500, 'api_error'], ['UPSTREAM_TIMEOUT', 504, 'timeout_error'], ['UPSTREAM_UNREACHABLE', 529, 'overloaded_error'],
    ];
    for (const [code, status, type] of table) {
      expect(anthropicMessagesProtocol.toHttpError({ code, message: 'm' }), code).toEqual({ status, body: { type: 'error', error: { type, message: 'm' } } });
    }
    expect(anthropicMessagesProtocol.toHttpError({ code: 'UPSTREAM_ERROR', message: 'busy', upstreamStatus: 503 }).status).toBe(529);
    expect(anthropicMessagesProtocol.toHttpError({ code: 'UPSTREAM_ERROR', message: 'slow down', upstreamStatus: 429 }).status).toBe(429);
    expect(anthropicMessagesProtocol.toHttpError({ code: 'UPSTREAM_ERROR', message: 'boom', upstreamStatus: 500 }).status).toBe(500);
  });
});

/** A recorded Anthropic stream read back into the events a session would have emitted for it. */
function gatewayEventsOf(recorded: Json[]): GatewayEvent[] {
  const events: GatewayEvent[] = [];
  const kinds = new Map<number, { kind: string; callId: string; name: string; json: string }>();
  let calls = 0;
  for (const event of recorded) {
    const index = event.index as number;
    const id = `b${index}`;
    if (event.type === 'message_start') events.push({ type: 'start', responseId: String((event.message as Json).id), model: 'm', created: 0 });
    if (event.type === 'content_block_start') {
      const block = event.content_block as Json;
      const kind = block.type === 'tool_use' ? 'tool-call' : block.type === 'thinking' ? 'reasoning' : 'text';
      kinds.set(index, { kind, callId: String(block.id), name: String(block.name), json: '' });
      if (kind === 'tool-call') events.push({ type: 'tool-call-start', id, index: calls, callId: String(block.id), name: String(block.name) });
      else events.push({ type: `${kind}-start`, id } as GatewayEvent);
    }
    if (event.type === 'content_block_delta') {
      const delta = event.delta as Json;
      const block = kinds.get(index)!;
      if (delta.type === 'signature_delta') continue;
      const text = String(delta.text ?? delta.thinking ?? delta.partial_json);
      if (block.kind === 'tool-call') {
        block.json += text;
        events.push({ type: 'tool-call-delta', id, index: calls, delta: text });
      } else events.push({ type: `${block.kind}-delta`, id, delta: text } as GatewayEvent);
    }
    if (event.type === 'content_block_stop') {
      const block = kinds.get(index)!;
      if (block.kind === 'tool-call') events.push({ type: 'tool-call-end', id, index: calls++, callId: block.callId, name: block.name, arguments: block.json });
      else events.push({ type: `${block.kind}-end`, id } as GatewayEvent);
    }
    if (event.type === 'message_delta') {
      const stop = (event.delta as Json).stop_reason;
      events.push({ type: 'finish', reason: stop === 'tool_use' ? 'tool-calls' : stop === 'max_tokens' ? 'length' : 'stop' });
    }
  }
  return events;
}

describe.skipIf(!hasShared)('Anthropic writer against recorded api.anthropic.com streams', () => {
  const recordings = ['sdk-basic_response.sse', 'sdk-tool_use_response.sse', 'docs-tool-use.sse', 'docs-extended-thinking.sse', 'vercel-text.ndjson', 'vercel-tool-use-no-args.ndjson', 'vercel-sonnet45-thinking-signature.ndjson'];
  for (const file of recordings) {
    it(`writes the same event sequence and content as ${file}`, async () => {
      const recorded = recordedEvents(`streams/anthropic-messages/${file}`);
      const ours = payloads(written(gatewayEventsOf(recorded)));
      expect(skeleton(ours)).toEqual(skeleton(recorded));
      // the fields the real API sent that its SDK types require, we send too
      const real = comparable(recorded);
      for (const [i, event] of comparable(ours).entries()) {
        const required = fieldsOf(TYPES, EVENT_TYPES[String(real[i]!.type)]!).required;
        for (const key of Object.keys(real[i]!)) if (required.has(key)) expect(Object.keys(event), `${file} ${String(real[i]!.type)}`).toContain(key);
      }
      const start = recorded.find((event) => event.type === 'message_start')!;
      if ((start.message as Json).usage === undefined) return; // the docs' abridged example: the SDK needs usage to assemble it
      const text = (message: unknown) => ((message as Json).content as Json[]).map((block) => JSON.stringify([block.type, block.text ?? block.thinking ?? block.input]));
      const lines = recorded.map((event) => `${JSON.stringify(event)}\n`).join('');
      const body = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(lines)); c.close(); } });
      const assembled = await MessageStream.fromReadableStream(body).finalMessage();
      expect(text(anthropicMessagesProtocol.aggregate(gatewayEventsOf(recorded), meta))).toEqual(text(assembled));
    });
  }

  it('writes an upstream failure as the documented overloaded error event', () => {
    const [frame] = anthropicMessagesProtocol.toStreamError({ code: 'UPSTREAM_UNREACHABLE', message: 'Overloaded' });
    expect(frame).toEqual({ event: 'error', data: expect.any(String) });
    expect(JSON.parse(frame!.data)).toEqual(recordedEvents('streams/anthropic-messages/docs-error-overloaded.sse')[0]);
    const tooLong = readCapture('errors/anthropic-01-prompt-too-long.json');
    const ours = anthropicMessagesProtocol.toHttpError({ code: 'CONTEXT_OVERFLOW', message: 'prompt is too long: 200251 tokens > 200000 maximum' });
    expect(ours.status).toBe(tooLong.http_status);
    const { request_id: _id, ...body } = tooLong.body as Json;
    expect(ours.body).toEqual(body);
  });
});
