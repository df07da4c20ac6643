import fc from 'fast-check';

/** Splits `text` at the given code-unit offsets (sorted, deduplicated, empty chunks dropped). */
export function splitAt(text: string, offsets: Iterable<number>): string[] {
  const cuts = [...new Set(offsets)].filter((at) => at > 0 && at < text.length).sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const at of cuts) {
    chunks.push(text.slice(from, at));
    from = at;
  }
  chunks.push(text.slice(from));
  return chunks;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Moves an offset that would split a surrogate pair (decoders never do that) one unit forward. */
export function safeOffset(text: string, at: number): number {
  return at > 0 && at < text.length && isLowSurrogate(text.charCodeAt(at)) ? at + 1 : at;
}

/** Every code point its own chunk. */
export function codePointChunks(text: string): string[] {
  return Array.from(text);
}

/**
 * Spans of marker-like tokens: `<...>` runs up to 64 units without a nested `<` (covers `<tool_call>`,
 * `<|channel|>`, `<｜tool▁sep｜>`, `<parameter=x>`, `<seed:eos>`), plus harmony's ` to=` and Kimi's `functions.`.
 */
export function markerSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let start = text.indexOf('<'); start !== -1; start = text.indexOf('<', start + 1)) {
    const end = text.indexOf('>', start + 1);
    if (end === -1) break;
    if (end - start <= 64 && text.lastIndexOf('<', end) === start) spans.push([start, end + 1]);
  }
  for (const word of [' to=', 'functions.']) {
    for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) spans.push([at, at + word.length]);
  }
  return spans;
}

/**
 * Named chunkings around markers: for each marker, a split right before, right after and in the middle
 * of it; one chunking cut at every marker boundary; one cut at every unit inside every marker.
 */
export function markerChunkings(text: string): { name: string; chunks: string[] }[] {
  const spans = markerSpans(text);
  const result: { name: string; chunks: string[] }[] = [];
  const seen = new Set<number>();
  for (const [start, end] of spans) {
    const label = JSON.stringify(text.slice(start, end));
    for (const [where, at] of [
      ['before', start],
      ['inside', start + Math.floor((end - start) / 2)],
      ['after', end],
    ] as const) {
      const offset = safeOffset(text, at);
      if (seen.has(offset) || offset <= 0 || offset >= text.length) continue;
      seen.add(offset);
      result.push({ name: `split ${where} ${label}@${start}`, chunks: splitAt(text, [offset]) });
    }
  }
  if (spans.length > 0) {
    result.push({ name: 'every marker boundary', chunks: splitAt(text, spans.flat()) });
    const inside: number[] = [];
    for (const [start, end] of spans) for (let at = start; at <= end; at++) inside.push(safeOffset(text, at));
    result.push({ name: 'every unit inside markers', chunks: splitAt(text, inside) });
  }
  return result;
}

/** Random partitions of `text` into 1..16 chunks, never splitting a surrogate pair. */
export function partitionArbitrary(text: string): fc.Arbitrary<string[]> {
  return fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 15 })
    .map((offsets) => splitAt(text, offsets.map((at) => safeOffset(text, at))));
}

/** A stable 32-bit seed from a name, so every case has its own fixed random partitions. */
export function seedOf(name: string): number {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return hash | 0;
}
