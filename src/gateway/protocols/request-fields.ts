// Small readers shared by the front-ends' request translators. Each returns the value or throws a RequestFault that
// names the JSON path at fault; parseRequest catches it once and turns it into a GatewayError, so the translators
// read like the protocol's field list instead of a ladder of early returns.
import { isPlainObject } from '../../util/guards.js';
import type { GatewayError, Result } from '../core/types.js';

export class RequestFault extends Error {
  constructor(readonly param: string, message: string) {
    super(message);
  }
}

export function fault(param: string, message: string): never {
  throw new RequestFault(param, message);
}

/** Runs a translator; a RequestFault becomes an INVALID_REQUEST naming the field, anything else is a bug and rethrows. */
export function translate<T>(body: unknown, run: (body: Record<string, unknown>) => T): Result<T, GatewayError> {
  if (!isPlainObject(body)) return { ok: false, error: { code: 'INVALID_REQUEST', message: 'the request body must be a JSON object' } };
  try {
    return { ok: true, value: run(body) };
  } catch (error) {
    if (!(error instanceof RequestFault)) throw error;
    return { ok: false, error: { code: 'INVALID_REQUEST', message: `${error.param}: ${error.message}`, param: error.param } };
  }
}

export function objectAt(value: unknown, param: string): Record<string, unknown> {
  if (!isPlainObject(value)) fault(param, 'must be an object');
  return value;
}

export function arrayAt(value: unknown, param: string): unknown[] {
  if (!Array.isArray(value)) fault(param, 'must be an array');
  return value;
}

export function stringAt(value: unknown, param: string): string {
  if (typeof value !== 'string') fault(param, 'must be a string');
  return value;
}

/** Absent and null read as undefined: clients send `null` for "not set" as often as they leave a field out. */
export function optionalString(value: unknown, param: string): string | undefined {
  return value === undefined || value === null ? undefined : stringAt(value, param);
}

export function optionalNumber(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) fault(param, 'must be a number');
  return value;
}

export function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') fault(param, 'must be a boolean');
  return value;
}

export function optionalStrings(value: unknown, param: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return arrayAt(value, param).map((item, i) => stringAt(item, `${param}[${i}]`));
}

/** Tool-call arguments as JSON text: clients send a JSON string (the OpenAI wire form) or, against the spec, an object. */
export function argumentsText(value: unknown, param: string): string {
  if (typeof value === 'string') return value;
  if (isPlainObject(value)) return JSON.stringify(value);
  return fault(param, 'must be a JSON string or an object');
}
