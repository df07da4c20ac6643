// The heavy dependencies (ajv, re2js, @huggingface/tokenizers), each loaded by the first call that needs it rather
// than when `chatfmt` is imported: together they cost a program that only renders more start-up than its first render.
// The APIs that use them are synchronous (createRowValidator, createTokenizer), so `await import()` cannot serve;
// each package ships a CommonJS build that `require` loads synchronously, resolved from this file as an import would be.
import { createRequire } from 'node:module';

type Ajv = typeof import('ajv');
type Re2js = typeof import('re2js');
type Tokenizers = typeof import('@huggingface/tokenizers');

const requireHere = createRequire(import.meta.url);

function onFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(name) as T);
}

export const loadAjv: () => Ajv = onFirstUse<Ajv>('ajv');
export const loadRe2js: () => Re2js = onFirstUse<Re2js>('re2js');
export const loadTokenizers: () => Tokenizers = onFirstUse<Tokenizers>('@huggingface/tokenizers');
