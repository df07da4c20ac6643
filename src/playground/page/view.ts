// Writes results into the page. Text always goes in as text nodes (never HTML): prompts and completions are untrusted.
import type { MessageTokenCounts } from '../../convert/message-tokens.js';
import type { DetectVerdict } from '../../detect/detect.js';
import type { Diagnostic, Message, ParsedMessage } from '../../types.js';
import type { Prompt } from './analysis.js';

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

function element(tag: string, className: string | undefined, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Every occurrence of the special strings, longest first where two start together, none overlapping. */
function specialRanges(text: string, specials: readonly string[]): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const special of specials) {
    for (let at = text.indexOf(special); at >= 0; at = text.indexOf(special, at + special.length)) found.push([at, at + special.length]);
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const kept: Array<[number, number]> = [];
  for (const range of found) if (kept.length === 0 || range[0] >= kept[kept.length - 1]![1]) kept.push(range);
  return kept;
}

/**
 * The prompt with its regions marked: each `{% generation %}` span is one `mark.assistant`, the generation prompt one
 * `mark.gen-prompt`, so a region's text is exactly the span's; special tokens are `span.special` inside them.
 */
export function showPrompt(target: HTMLElement, prompt: Prompt, specials: readonly string[]): void {
  const regions: Array<{ start: number; end: number; kind: string }> = prompt.generationSpans.map(([start, end]) => ({ start, end, kind: 'assistant' }));
  if (prompt.generationPrompt && prompt.generationPrompt[1] > prompt.generationPrompt[0]) {
    regions.push({ start: prompt.generationPrompt[0], end: prompt.generationPrompt[1], kind: 'gen-prompt' });
  }
  regions.sort((a, b) => a.start - b.start);
  const text = prompt.text;
  const marks = specialRanges(text, specials);
  let next = 0;
  const fill = (parent: ParentNode, from: number, to: number) => {
    while (next < marks.length && marks[next]![1] <= from) next++;
    let at = from;
    for (let k = next; k < marks.length && marks[k]![0] < to; k++) {
      const start = Math.max(marks[k]![0], from);
      const end = Math.min(marks[k]![1], to);
      if (start > at) parent.append(text.slice(at, start));
      parent.append(element('span', 'special', text.slice(start, end)));
      at = end;
    }
    if (to > at) parent.append(text.slice(at, to));
  };
  const fragment = document.createDocumentFragment();
  let at = 0;
  for (const region of regions) {
    if (region.start < at) continue;
    fill(fragment, at, region.start);
    const mark = element('mark', region.kind);
    fill(mark, region.start, region.end);
    fragment.append(mark);
    at = region.end;
  }
  fill(fragment, at, text.length);
  target.replaceChildren(fragment);
}

export function showTokenCounts(target: HTMLElement, counts: MessageTokenCounts, messages: readonly Message[]): void {
  const table = element('table', undefined);
  const head = element('tr', undefined);
  head.append(element('th', undefined, '#'), element('th', undefined, 'role'), element('th', 'count', 'tokens'));
  table.append(head);
  const row = (key: string, label: string, role: string, tokens: string) => {
    const tr = element('tr', undefined);
    tr.dataset.row = key;
    tr.append(element('td', undefined, label), element('td', undefined, role), element('td', 'count', tokens));
    table.append(tr);
  };
  counts.messages.forEach((span, i) => row(String(i), String(i), String(messages[i]?.role ?? ''), span.withNext ? `with ${i + 1}` : String(span.tokens)));
  if (counts.generationPrompt) row('generation-prompt', '', 'generation prompt', String(counts.generationPrompt.tokens));
  row('total', '', 'total', String(counts.total));
  target.replaceChildren(table);
}

export function showDetect(target: HTMLElement, verdict: DetectVerdict): void {
  const status = element('span', `status ${verdict.status}`, verdict.status);
  const best = verdict.best ? (verdict.best.variant ?? verdict.best.family) : '';
  target.replaceChildren(status, element('span', 'best', best), document.createTextNode(best ? ': ' : ''), element('span', 'reason', verdict.reason));
}

export interface Note {
  severity: 'error' | 'warning';
  text: string;
}

export function showNotes(target: HTMLElement, notes: readonly Note[]): void {
  target.replaceChildren(...notes.map((note) => element('li', note.severity, note.text)));
}

export function diagnosticNote(diagnostic: Diagnostic): Note {
  return { severity: diagnostic.severity, text: `${diagnostic.code}: ${diagnostic.message}` };
}

export function showParsed(message: ParsedMessage | undefined): void {
  const field = (id: string, value: string | null | undefined) => {
    const target = byId(id);
    if (value === null || value === undefined || value === '') target.replaceChildren(element('span', 'empty', value === '' ? '(empty)' : 'null'));
    else target.replaceChildren(value);
  };
  field('parsed-content', message?.content);
  field('parsed-reasoning', message?.reasoning_content);
  byId('parsed-calls').replaceChildren(
    ...(message?.tool_calls ?? []).map((call) => {
      const item = element('li', 'call');
      item.append(element('div', 'call-name', call.function.name), element('pre', 'call-args', prettyArguments(call.function.arguments)));
      return item;
    }),
  );
  showNotes(byId('diagnostics'), (message?.diagnostics ?? []).map(diagnosticNote));
}

function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
