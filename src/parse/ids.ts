import type { Diagnostic } from '../types.js';

export interface CallIdInfo {
  index: number;
  name: string;
}

/** Mints the OpenAI id of a call whose wire format carries none. */
export type IdGenerator = (info: CallIdInfo) => string;

/** A call that came with the id of an earlier call of the same answer, and the id it was given instead. */
export function duplicateCallId(written: string, given: string): Diagnostic {
  return {
    code: 'PARSE_DUPLICATE_CALL_ID',
    severity: 'warning',
    message: `a call repeated the id ${JSON.stringify(written)} of an earlier call; it is ${JSON.stringify(given)} here`,
  };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 24;

/** `call_` + 24 random letters and digits (the OpenAI shape). */
export const randomCallId: IdGenerator = randomIds('call_', ID_LENGTH);

/** 9 random letters and digits: the only ids Mistral's tokenizer and templates accept. */
export const randomNineCharId: IdGenerator = randomIds('', 9);

function randomIds(prefix: string, length: number): IdGenerator {
  return () => prefix + randomToken(length);
}

/** `length` random letters and digits (response ids, recovered call ids). */
export function randomToken(length = ID_LENGTH): string {
  let token = '';
  // Rejection sampling keeps the alphabet uniform (248 = 4 × 62).
  while (token.length < length) {
    const byte = randomByte();
    if (byte < 248) token += ALPHABET[byte % 62];
  }
  return token;
}

/**
 * Random bytes drawn from a pool: one crypto call per call id cost more than parsing the call. Web Crypto, so ids
 * work in browsers, Workers and edge runtimes as in Node (global since Node 19).
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}
