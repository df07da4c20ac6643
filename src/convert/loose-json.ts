import { needsPythonReader, parsePythonJson } from '../jinja/index.js';
import { parsePythonLiteral } from '../parse/args/index.js';
import { clipForMessage } from '../util/utf16.js';

export type LooseJsonResult = { ok: true; value: unknown; python: boolean } | { ok: false; error: string };

/**
 * Reads a JSON value, falling back to Python-literal syntax (`{'a': True}`): dataset dumps made with `str(dict)`
 * are common (Hermes FC subsets). Nothing is evaluated.
 */
export function parseLooseJson(text: string): LooseJsonResult {
  try {
    return { ok: true, value: exactJsonValue(text, JSON.parse(text)), python: false };
  } catch (error) {
    const python = parsePythonLiteral(text.trim());
    if (python.ok) return { ok: true, value: python.value, python: true };
    return { ok: false, error: (error as Error).message };
  }
}

/** A field that holds JSON either already decoded or as a JSON string (LLaMA-Factory `tools`, xLAM `answers`). */
export function decodeJsonField(value: unknown): LooseJsonResult {
  if (typeof value === 'string') return parseLooseJson(value);
  return { ok: true, value, python: false };
}

/** A short, single-line preview of untrusted text for messages. */
export function preview(text: string, max = 60): string {
  return clipForMessage(text, max, JSON.stringify);
}

/**
 * `parsed` (what JSON.parse made of `text`, which decides validity as validate decides it) in the value model
 * `chatfmt render` reads input with: `1.0` stays a float, integers past 2^53 keep their digits, integer-like keys keep
 * their order. Re-read only when the text holds something JSON.parse changes.
 */
export function exactJsonValue(text: string, parsed: unknown): unknown {
  return needsPythonReader(text) ? parsePythonJson(text) : parsed;
}
