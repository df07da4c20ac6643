/**
 * Markup between probe values, cut where one marker can end and another begin: at white space, and between
 * glued tokens (`><`, `][`). `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>` is two markers, `<function=` one.
 */
export function markupSegments(text: string): string[] {
  return boundaries(text).slice(0, -1).map((start, i, all) => text.slice(start, i + 1 < all.length ? all[i + 1] : undefined).trim()).filter((s) => s !== '');
}

/** Every way to cut `text` in two at a segment boundary: [left, right], both trimmed. */
export function splitsOf(text: string): Array<[string, string]> {
  return boundaries(text).map((at) => [text.slice(0, at).trim(), text.slice(at).trim()]);
}

function boundaries(text: string): number[] {
  const cuts = [0];
  for (let i = 1; i < text.length; i++) {
    const before = text[i - 1]!;
    const here = text[i]!;
    const space = /\s/.test(here);
    if ((/\s/.test(before) && !space) || ((before === '>' || before === ']') && (here === '<' || here === '['))) cuts.push(i);
  }
  cuts.push(text.length);
  return [...new Set(cuts)];
}
