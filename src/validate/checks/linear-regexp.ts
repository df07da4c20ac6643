import type { RE2JS } from 're2js';
import { loadRe2js } from '../../node/dependencies.js';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import { SCHEMA_MAX_PATTERN_LENGTH } from '../../readers/limits.js';

/**
 * Tool schemas come from the dataset, and ajv would run their `pattern` / `patternProperties` with JavaScript's
 * backtracking RegExp (`^(a+)+$` doubles its time per character). RE2JS matches in time linear in the text; the
 * price is that lookaround and backreferences, which need backtracking, are not available.
 */
export function compileLinear(pattern: string): { regExp: RE2JS; error?: undefined } | { regExp?: undefined; error: string } {
  if (pattern.length > SCHEMA_MAX_PATTERN_LENGTH) return { error: `is ${pattern.length} characters, over the ${SCHEMA_MAX_PATTERN_LENGTH}-character budget` };
  try {
    const { RE2JS } = loadRe2js();
    return { regExp: RE2JS.compile(RE2JS.translateRegExp(pattern)) };
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    return { error: `cannot run in linear time (${why}; lookaround and backreferences are not supported)` };
  }
}

/** Matches nothing out: a pattern the linear engine cannot run is reported once (TOOL_SCHEMA_UNCHECKED) and not applied. */
const acceptAll: RegExpLike = { test: () => true };

/** ajv's `code.regExp` option: every pattern a schema holds runs on RE2JS. */
export const linearRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string): RegExpLike => {
    const compiled = compileLinear(pattern).regExp;
    return compiled ? { test: (text: string) => compiled.matcher(text).find() } : acceptAll;
  },
  { code: 'chatfmt linear-time RegExp (RE2JS)' },
);
