// Parser deltas → GatewayEvents. Owns block ids and the start/delta/end order, and holds each tool call until the
// parser closes it (`tool_call_ends`): a call the parser withdraws never reaches the client as a call; its raw text
// comes from the parser as content instead. A held call is released as start, one arguments delta, end.
import type { DeltaSink } from '../../parse/sink.js';
import type { Delta, Diagnostic } from '../../types.js';
import type { GatewayEvent } from './types.js';
import { clipForMessage } from '../../util/utf16.js';
import { duplicateCallId } from '../../parse/ids.js';

/** How much of a dropped call's arguments its diagnostic quotes. */
const QUOTED_ARGS = 2000;

/** Call indexes of one source stay below this. */
const SOURCE_STRIDE = 1 << 24;

interface HeldCall {
  callId: string;
  name: string;
  args: string[];
}

export class BlockWriter {
  private open: { kind: 'text' | 'reasoning'; id: string } | undefined;
  private readonly held = new Map<number, HeldCall>();
  private blockCount = 0;
  /** Calls released to the client: the protocol-visible index. */
  callCount = 0;
  /** Call ids given out in this answer: one per call, whichever source (parser, chat server) named it. */
  private readonly callIds = new Set<string>();
  readonly diagnostics: Diagnostic[] = [];

  /** `idPrefix` keeps block ids unique beyond one response (a client may keep ids from many). */
  constructor(private readonly idPrefix: string) {}

  /**
   * Events for one parser delta. `source` tells apart call indexes of several parsers writing into one answer (repair
   * mode re-parses content and reasoning apart, and has the server's native calls too).
   */
  write(delta: Delta, out: GatewayEvent[], source = 0): void {
    if (delta.reasoning_content) this.text('reasoning', delta.reasoning_content, out);
    if (delta.content) this.text('text', delta.content, out);
    const key = (index: number) => source * SOURCE_STRIDE + index;
    for (const part of delta.tool_calls ?? []) this.hold(key(part.index), part.function?.arguments, part.id, part.function?.name);
    for (const index of delta.withdrawn_tool_calls ?? []) this.held.delete(key(index));
    for (const index of delta.tool_call_ends ?? []) this.release(key(index), out);
    for (const diagnostic of delta.diagnostics ?? []) this.diagnostic(diagnostic, out);
  }

  /**
   * The same, for a parser's sink delivery (`pushTo`): streamed text becomes its events with no delta in between, and
   * argument fragments join their held call.
   */
  sinkInto(out: GatewayEvent[], source = 0): DeltaSink {
    return {
      content: (text) => this.text('text', text, out),
      reasoning: (text) => this.text('reasoning', text, out),
      arguments: (index, text) => this.hold(source * SOURCE_STRIDE + index, text),
      delta: (delta) => this.write(delta, out, source),
    };
  }

  /**
   * A call's part: the first makes it held, argument text joins it. The id and name are taken from whichever part
   * has them first: a chat server (--repair) may send the id alone before the name.
   */
  private hold(key: number, args: string | undefined, callId?: string, name?: string): void {
    let call = this.held.get(key);
    if (!call) this.held.set(key, (call = { callId: callId ?? '', name: name ?? '', args: [] }));
    else {
      if (call.callId === '' && callId) call.callId = callId;
      if (call.name === '' && name) call.name = name;
    }
    if (args) call.args.push(args);
  }

  diagnostic(diagnostic: Diagnostic, out: GatewayEvent[]): void {
    this.diagnostics.push(diagnostic);
    out.push({ type: 'diagnostic', diagnostic });
  }

  /** Before `finish` or `error`: calls still held were neither closed nor withdrawn; finish confirms them. */
  flush(out: GatewayEvent[]): void {
    for (const index of [...this.held.keys()].sort((a, b) => a - b)) this.release(index, out);
    this.close(out);
  }

  /** Ends the open text or reasoning block. */
  close(out: GatewayEvent[]): void {
    if (!this.open) return;
    out.push({ type: this.open.kind === 'text' ? 'text-end' : 'reasoning-end', id: this.open.id });
    this.open = undefined;
  }

  private text(kind: 'text' | 'reasoning', delta: string, out: GatewayEvent[]): void {
    if (this.open?.kind !== kind) {
      this.close(out);
      const id = this.nextId(kind === 'text' ? 'txt' : 'rsn');
      this.open = { kind, id };
      out.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id });
    }
    const id = this.open.id;
    out.push(kind === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta });
  }

  private release(key: number, out: GatewayEvent[]): void {
    const call = this.held.get(key);
    if (!call) return;
    this.held.delete(key);
    // Only a chat server's own call can lack a name (the parser never makes one): no client can run it.
    if (call.name === '') return this.dropNameless(call, out);
    this.close(out);
    const id = this.nextId('call');
    const index = this.callCount++;
    const args = call.args.join('');
    const callId = this.uniqueCallId(call.callId, id, out);
    out.push({ type: 'tool-call-start', id, index, callId, name: call.name });
    if (args !== '') out.push({ type: 'tool-call-delta', id, index, delta: args });
    out.push({ type: 'tool-call-end', id, index, callId, name: call.name, arguments: args });
  }

  /**
   * The call's id, or the block's own where it has none or an earlier call of this answer has it: in repair mode a
   * chat server's native call and a call re-parsed from its text can carry the same model-written id (Kimi-K2), and a
   * client pairs each result with one call by id (the openai client refuses a Responses stream that repeats one).
   */
  private uniqueCallId(wanted: string, blockId: string, out: GatewayEvent[]): string {
    const id = wanted !== '' && !this.callIds.has(wanted) ? wanted : blockId;
    if (wanted !== '' && id !== wanted) {
      this.diagnostic(duplicateCallId(wanted, id), out);
    }
    this.callIds.add(id);
    return id;
  }

  private dropNameless(call: HeldCall, out: GatewayEvent[]): void {
    const args = call.args.join('');
    const shown = clipForMessage(args, QUOTED_ARGS, JSON.stringify);
    const id = call.callId === '' ? '' : ` ${JSON.stringify(call.callId)}`;
    this.diagnostic({ code: 'PARSE_BAD_HEADER', severity: 'warning', message: `the backend sent a tool call${id} with no name, dropped; its arguments: ${shown}` }, out);
  }

  private nextId(kind: string): string {
    return `${kind}_${this.idPrefix}_${this.blockCount++}`;
  }
}
