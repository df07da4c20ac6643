import { randomFillSync } from 'node:crypto';

export interface CallIdInfo {
  index: number;
  name: string;
}

/** Mints the OpenAI id of a call whose wire format carries none. */
export type IdGenerator = (info: CallIdInfo) => string;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 24;

/** `call_` + 24 random letters and digits (the OpenAI shape). */
export const randomCallId: IdGenerator = randomIds('call_', ID_LENGTH);

/** 9 random letters and digits: the only ids Mistral's tokenizer and templates accept. */
export const randomNineCharId: IdGenerator = randomIds('', 9);

function randomIds(prefix: string, length: number): IdGenerator {
  return () => {
    const bytes = randomFillSync(new Uint8Array(length * 2));
    let id = prefix;
    // Rejection sampling keeps the alphabet uniform (248 = 4 × 62).
    for (let i = 0; i < bytes.length && id.length < prefix.length + length; i++) if (bytes[i]! < 248) id += ALPHABET[bytes[i]! % 62];
    while (id.length < prefix.length + length) id += ALPHABET[randomFillSync(new Uint8Array(1))[0]! % 62];
    return id;
  };
}
