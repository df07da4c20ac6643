import type { Message, ToolCall } from '../../types.js';
import { issue, type ConvertIssue } from '../issues.js';
import { isPlainObject } from '../../util/guards.js';
import { dumpJson } from '../../jinja/json.js';
import { PyFloat } from '../../jinja/index.js';
import { exactJson } from '../exact-json.js';
import { decodeJsonField } from '../loose-json.js';
import { append } from '../../util/append.js';

/**
 * Gives calls ids (`call_1`, `call_2`, … in row order: datasets without ids get stable ones) and pairs results with
 * the calls still waiting for one, first come first served, as templates and APIs expect.
 */
export class CallLedger {
  private next = 1;
  // A queue read from `head`: shift() moves every waiting call, so draining 300,000 parallel calls was quadratic (9 s).
  private pending: ToolCall[] = [];
  private head = 0;
  /** The ids this ledger made up: rewrites of them are not the user's business (minted-ids.ts). */
  readonly minted = new Set<string>();

  newId(): string {
    const id = `call_${this.next++}`;
    this.minted.add(id);
    return id;
  }

  opened(calls: ToolCall[]): void {
    append(this.pending, calls);
  }

  /** The call the next result answers, or undefined when none is waiting. */
  answer(): ToolCall | undefined {
    if (this.head >= this.pending.length) return undefined;
    const call = this.pending[this.head++];
    if (this.head === this.pending.length) {
      this.pending = [];
      this.head = 0;
    }
    return call;
  }

  get waiting(): number {
    return this.pending.length - this.head;
  }
}

/**
 * Reads one `{name, arguments}` call (arguments as an object or a JSON string; `parameters` accepted too) into an
 * OpenAI tool call. Arguments given as JSON text keep that text; an object (or Python-literal text) is written the
 * way transformers' `tojson` writes a dict (`{"a": 1}`), so the rendered training text is the one the source gives.
 */
export function readCall(value: unknown, id: string, line: number, path: string, issues: ConvertIssue[]): ToolCall | undefined {
  const call = isPlainObject(value) && isPlainObject(value.function) ? value.function : value;
  if (!isPlainObject(call) || typeof call.name !== 'string' || call.name === '') {
    issues.push(issue(line, 'IMPORT_BAD_CALL', path, 'a call needs a string "name"'));
    return undefined;
  }
  const raw = call.arguments !== undefined ? call.arguments : call.parameters;
  const args = raw === undefined || raw === null || raw === '' ? { ok: true as const, value: {}, python: false } : decodeJsonField(raw);
  if (!args.ok) {
    issues.push(issue(line, 'IMPORT_BAD_CALL', `${path}.arguments`, `arguments of ${call.name} are not JSON: ${args.error}`));
    return undefined;
  }
  if (!isJsonObject(args.value)) {
    issues.push(issue(line, 'IMPORT_BAD_CALL', `${path}.arguments`, `arguments of ${call.name} must be an object`));
    return undefined;
  }
  const text = typeof raw === 'string' && !args.python ? raw : dumpJson(args.value);
  return { id, type: 'function', function: { name: call.name, arguments: text } };
}

/** A tool message answering `call` (or unpaired when the ledger had none). */
export function toolMessage(content: string, call: ToolCall | undefined): Message {
  const message: Message = { role: 'tool', content };
  if (call?.id !== undefined) message.tool_call_id = call.id;
  if (call) message.name = call.function.name;
  return message;
}

/** Tool contents are strings in the OpenAI format; structured results are kept as their JSON text. */
export function resultText(value: unknown): string {
  return typeof value === 'string' ? value : exactJson(value);
}

/** A JSON object as the Python value model reads it: a plain object, or a Map when its keys look like integers. */
function isJsonObject(value: unknown): boolean {
  return value instanceof Map || (isPlainObject(value) && !(value instanceof PyFloat));
}
