// GatewayEvent sequences as a session emits them, for the protocol writer tests: each scenario a front-end must
// write, built from a few lines of what the model said.
import fc from 'fast-check';
import type { FinishReason, GatewayEvent, ResponseMeta } from '../../src/gateway/index.js';

export const meta: ResponseMeta = { model: 'local-model', includeUsage: true, reasoningField: 'reasoning_content' };

type Piece =
  | { text: string[] }
  | { reasoning: string[] }
  | { call: string; args: string[]; callId?: string }
  | { diagnostic: string };

/** The session's event order for pieces said in sequence: start, each block start/deltas/end, then finish. */
export function script(pieces: Piece[], reason: FinishReason = 'stop', usage = { promptTokens: 11, completionTokens: 7 }): GatewayEvent[] {
  const events: GatewayEvent[] = [{ type: 'start', responseId: 'abc123', model: meta.model, created: 1_764_000_000 }];
  let calls = 0;
  pieces.forEach((piece, n) => {
    const id = `b${n}`;
    if ('text' in piece || 'reasoning' in piece) {
      const kind = 'text' in piece ? 'text' : 'reasoning';
      events.push({ type: `${kind}-start`, id } as GatewayEvent);
      for (const delta of 'text' in piece ? piece.text : piece.reasoning) events.push({ type: `${kind}-delta`, id, delta } as GatewayEvent);
      events.push({ type: `${kind}-end`, id } as GatewayEvent);
    } else if ('call' in piece) {
      const index = calls++;
      const callId = piece.callId ?? `call_${index}`;
      events.push({ type: 'tool-call-start', id, index, callId, name: piece.call });
      for (const delta of piece.args) events.push({ type: 'tool-call-delta', id, index, delta });
      events.push({ type: 'tool-call-end', id, index, callId, name: piece.call, arguments: piece.args.join('') });
    } else {
      events.push({ type: 'diagnostic', diagnostic: { code: 'PARSE_BAD_ARGS_JSON', severity: 'warning', message: piece.diagnostic } });
    }
  });
  events.push({ type: 'finish', reason, usage });
  return events;
}

export const scenarios: Record<string, GatewayEvent[]> = {
  'plain answer': script([{ text: ['Hel', 'lo ', 'wörld 🌍'] }]),
  'one call': script([{ call: 'get_weather', args: ['{"city"', ': "Paris"}'] }], 'tool-calls'),
  'parallel calls': script([
    { text: ['Checking both.'] },
    { call: 'get_weather', args: ['{"city": "Paris"}'] },
    { call: 'get_weather', args: ['{"city": ', '"Rome"}'] },
  ], 'tool-calls'),
  'reasoning then call': script([
    { reasoning: ['The user wants ', 'the weather.'] },
    { call: 'get_weather', args: ['{"city": "Oslo"}'] },
  ], 'tool-calls'),
  'call without arguments': script([{ call: 'list_issues', args: [] }], 'tool-calls'),
  'malformed call kept as text': script([{ diagnostic: 'arguments are not JSON' }, { text: ['<tool_call>{"name": "x", ', 'oops</tool_call>'] }]),
  'max tokens': script([{ text: ['Once upon'] }], 'length'),
};

/** A failure in the middle of a call: the session closes the open call, then reports the error. */
export function failedMidCall(): GatewayEvent[] {
  return [
    { type: 'start', responseId: 'abc123', model: meta.model, created: 1_764_000_000 },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Let me check.' },
    { type: 'text-end', id: 't' },
    { type: 'error', error: { code: 'UPSTREAM_PROTOCOL', message: 'the backend closed the connection mid-stream' } },
  ];
}

const textArbitrary = fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 });
const pieceArbitrary: fc.Arbitrary<Piece> = fc.oneof(
  textArbitrary.map((text) => ({ text })),
  textArbitrary.map((reasoning) => ({ reasoning })),
  fc.record({ call: fc.constantFrom('get_weather', 'lookup'), city: fc.string({ maxLength: 8 }), cut: fc.nat(12) })
    .map(({ call, city, cut }) => {
      const args = JSON.stringify({ city });
      return { call, args: [args.slice(0, cut), args.slice(cut)].filter((part) => part !== '') };
    }),
  fc.string({ minLength: 1, maxLength: 10 }).map((diagnostic) => ({ diagnostic })),
);

/**
 * Any session-shaped event sequence: blocks in any order and number, any finish reason, and sometimes cut short
 * (events dropped before the finish), which leaves blocks open for the writer to close.
 */
export const eventSequenceArbitrary: fc.Arbitrary<GatewayEvent[]> = fc
  .record({
    pieces: fc.array(pieceArbitrary, { maxLength: 5 }),
    reason: fc.constantFrom<FinishReason>('stop', 'length', 'tool-calls'),
    cutAt: fc.option(fc.nat(30), { nil: undefined }),
  })
  .map(({ pieces, reason, cutAt }) => {
    const events = script(pieces, reason);
    const finish = events.pop()!;
    return [...(cutAt === undefined ? events : events.slice(0, Math.max(1, Math.min(cutAt, events.length)))), finish];
  });

/**
 * Whether every call started in the sequence also ended. A call left open is outside the session's contract; the
 * writers close it, but a client reads its partial arguments with its own partial-JSON reader, so only sequences whose
 * calls ended can be compared with what an SDK assembles.
 */
export function everyCallEnded(events: readonly GatewayEvent[]): boolean {
  const started = events.filter((event) => event.type === 'tool-call-start').length;
  return started === events.filter((event) => event.type === 'tool-call-end').length;
}
