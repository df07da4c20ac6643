import type { ToolCall } from '../types.js';
import { isPlainObject } from '../util/guards.js';

/**
 * The calls of one assistant turn that its rendered text does not show. A call shows by its name (the k-th call of
 * a name needs k occurrences: gpt-oss's template writes only the first of two `get_weather` calls) or, failing
 * that, by its arguments (all its string values, else all its keys, else the raw text). Chat-only templates (SmolLM3's,
 * granite-docling's) render a tool-call turn from its content alone, so a dataset of calls trains the model to answer
 * without calling; this is how convert and validate tell, with or without a parser for the call syntax.
 */
export function droppedCalls(turnText: string, calls: readonly ToolCall[]): number[] {
  const dropped: number[] = [];
  const seen = new Map<string, number>();
  calls.forEach((call, index) => {
    const name = call?.function?.name;
    if (typeof name === 'string' && name !== '') {
      const nth = (seen.get(name) ?? 0) + 1;
      seen.set(name, nth);
      if (occurrences(turnText, name, nth) >= nth) return;
    }
    const marks = argumentMarks(call?.function?.arguments);
    if (marks.length > 0 && marks.every((mark) => turnText.includes(mark))) return;
    dropped.push(index);
  });
  return dropped;
}

/** How often `needle` occurs in `text`, counting no further than `enough`. */
function occurrences(text: string, needle: string, enough: number): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1 && count < enough; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Why a turn is an error, naming the calls the render lost. */
export function droppedCallsMessage(templateName: string, calls: readonly ToolCall[], dropped: readonly number[]): string {
  const names = dropped.map((index) => JSON.stringify(String(calls[index]?.function?.name ?? ''))).join(', ');
  const all = dropped.length === calls.length;
  const which = all ? 'its calls' : `call(s) ${names}`;
  const why = all ? 'the model would learn to answer without calling (the template does not write tool calls)' : `the template writes only ${calls.length - dropped.length} of the turn's ${calls.length} parallel calls`;
  return `${templateName} renders this tool-call turn without ${which}: neither the name (${names}) nor the arguments appear in the rendered turn, so ${why}`;
}

function argumentMarks(args: unknown): string[] {
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      return args.trim() === '' ? [] : [args];
    }
  }
  const entries = value instanceof Map ? [...value.entries()].map(([key, item]) => [String(key), item] as const) : isPlainObject(value) ? Object.entries(value) : [];
  // A value tells one call from another of the same name (Paris, London); a key only that some call is there.
  const values = entries.flatMap(([, item]) => (typeof item === 'string' && item.trim() !== '' ? [item] : []));
  if (values.length > 0) return values;
  const keys = entries.map(([key]) => key).filter((key) => key !== '');
  if (keys.length > 0) return keys;
  return typeof args === 'string' && args.trim() !== '' && args.trim() !== '{}' ? [args] : [];
}
