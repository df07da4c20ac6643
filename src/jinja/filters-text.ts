// Text filters: escape, indent, title, truncate, striptags.
import { chargeChars } from './budget.js';
import { arg, type Kwargs } from './filter-args.js';
import { htmlEscape } from './markup.js';
import { pySplitlines } from './methods.js';
import { truncInt } from './numbers.js';
import { pyStr } from './repr.js';
import { codePoints, isPySpace, truthy } from './values.js';

export function doIndent(value: unknown, args: unknown[], kwargs: Kwargs): string {
  const width = arg(args, kwargs, 0, 'width', 4);
  const first = truthy(arg(args, kwargs, 1, 'first', false));
  const blank = truthy(arg(args, kwargs, 2, 'blank', false));
  const widthChars = typeof width === 'string' ? width.length : Math.max(0, Number(truncInt(width) ?? 0));
  const s = pyStr(value) + '\n';
  const lines = pySplitlines(s, false);
  chargeChars(s.length + (lines.length + 1) * widthChars);
  const indention = typeof width === 'string' ? width : ' '.repeat(widthChars);
  let rv: string;
  if (blank) rv = lines.join('\n' + indention);
  else {
    rv = lines.shift() ?? '';
    if (lines.length > 0) rv += '\n' + lines.map((line) => (line ? indention + line : line)).join('\n');
  }
  return first ? indention + rv : rv;
}

export function doTitle(value: unknown): string {
  let out = '';
  let atStart = true;
  for (const ch of pyStr(value)) {
    const c = ch.charCodeAt(0);
    if (isPySpace(c) || ch === '-' || ch === '(' || ch === '{' || ch === '[' || ch === '<') {
      out += ch;
      atStart = true;
    } else {
      out += atStart ? ch.toUpperCase() : ch.toLowerCase();
      atStart = false;
    }
  }
  return out;
}

export function doTruncate(value: unknown, args: unknown[], kwargs: Kwargs): string {
  const s = pyStr(value);
  const length = Number(arg(args, kwargs, 0, 'length', 255));
  const killwords = truthy(arg(args, kwargs, 1, 'killwords', false));
  const end = String(arg(args, kwargs, 2, 'end', '...'));
  const leeway = Number(arg(args, kwargs, 3, 'leeway', 5) ?? 5);
  const chars = codePoints(s);
  if (chars.length <= length + leeway) return s;
  const head = chars.slice(0, Math.max(0, length - end.length)).join('');
  if (killwords) return head + end;
  const at = head.lastIndexOf(' ');
  return (at === -1 ? head : head.slice(0, at)) + end;
}

export function doStriptags(value: unknown): string {
  let s = pyStr(value);
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      if (end === -1) break;
      i = end + 3;
    } else if (s[i] === '<') {
      const end = s.indexOf('>', i + 1);
      if (end === -1) {
        out += s.slice(i);
        break;
      }
      i = end + 1;
    } else {
      const next = s.indexOf('<', i);
      const stop = next === -1 ? s.length : next;
      out += s.slice(i, stop);
      i = stop;
    }
  }
  s = out.replace(/&(amp|lt|gt|quot|#39|#34);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#34': '"' })[e] ?? _);
  const words: string[] = [];
  let start = -1;
  for (let j = 0; j <= s.length; j++) {
    const space = j === s.length || isPySpace(s.charCodeAt(j));
    if (!space && start === -1) start = j;
    else if (space && start !== -1) {
      words.push(s.slice(start, j));
      start = -1;
    }
  }
  return words.join(' ');
}


export { htmlEscape };
