// Python's Unicode case operations on str: title, capitalize, swapcase, casefold and the is-case tests. JavaScript
// has upper and lower case only; title case, full case folding and Python's per-character final sigma are built
// here on top of them. (Characters newer than Python's Unicode tables may still differ: each side maps its own.)
import { codePoints } from './values.js';

/** Latin digraphs, whose title case is a letter of its own. */
const DIGRAPH_TITLE: Record<string, string> = { 'Ǆ': 'ǅ', 'ǅ': 'ǅ', 'ǆ': 'ǅ', 'Ǉ': 'ǈ', 'ǈ': 'ǈ', 'ǉ': 'ǈ', 'Ǌ': 'ǋ', 'ǋ': 'ǋ', 'ǌ': 'ǋ', 'Ǳ': 'ǲ', 'ǲ': 'ǲ', 'ǳ': 'ǲ' };

// Built on first use, as every Unicode property class here: V8 takes ~0.05 ms to build one, which start-up would pay.
let classes:
  | { cased: RegExp; ignorable: RegExp; notUpper: RegExp; notLower: RegExp; anyUpper: RegExp; anyLower: RegExp; upper: RegExp; lower: RegExp; title: RegExp }
  | undefined;
const unicode = () =>
  (classes ??= {
    cased: /^\p{Cased}$/u,
    ignorable: /^\p{Case_Ignorable}$/u,
    notUpper: /[\p{Lowercase}\p{Lt}]/u,
    notLower: /[\p{Uppercase}\p{Lt}]/u,
    anyUpper: /\p{Uppercase}/u,
    anyLower: /\p{Lowercase}/u,
    upper: /^\p{Uppercase}$/u,
    lower: /^\p{Lowercase}$/u,
    title: /^\p{Lt}$/u,
  });

/**
 * The title case of one character. Where JavaScript's upper case is several characters, title case keeps the first
 * upper and lowers the rest (ß → Ss, ﬁ → Fi); Greek letters with a written iota take their own title forms; the
 * Georgian Mkhedruli letters and ŉ have none beyond themselves.
 */
export function titleChar(ch: string): string {
  const digraph = DIGRAPH_TITLE[ch];
  if (digraph !== undefined) return digraph;
  const cp = ch.codePointAt(0)!;
  if ((cp >= 0x10d0 && cp <= 0x10fa) || (cp >= 0x10fd && cp <= 0x10ff)) return ch;
  if (cp === 0x149) return 'ʼN';
  if (cp >= 0x1f80 && cp <= 0x1faf) return String.fromCodePoint(cp | 8);
  const iota = IOTA_TITLE[cp];
  if (iota !== undefined) return iota;
  const upper = ch.toUpperCase();
  const first = String.fromCodePoint(upper.codePointAt(0)!);
  return first.length === upper.length ? upper : first + upper.slice(first.length).toLowerCase();
}

/** ᾳ ῃ ῳ and their accented forms: the capital with its iota as prosgegrammeni, not as a second letter. */
const IOTA_TITLE: Record<number, string> = {
  0x1fb3: 'ᾼ', 0x1fbc: 'ᾼ', 0x1fc3: 'ῌ', 0x1fcc: 'ῌ', 0x1ff3: 'ῼ', 0x1ffc: 'ῼ',
  0x1fb2: 'Ὰ\u0345', 0x1fb4: 'Ά\u0345', 0x1fc2: 'Ὴ\u0345', 0x1fc4: 'Ή\u0345', 0x1ff2: 'Ὼ\u0345', 0x1ff4: 'Ώ\u0345',
  0x1fb7: 'Α\u0342\u0345', 0x1fc7: 'Η\u0342\u0345', 0x1ff7: 'Ω\u0342\u0345',
};

function isCased(ch: string): boolean {
  return ch.charCodeAt(0) < 0x80 ? /[A-Za-z]/.test(ch) : unicode().cased.test(ch);
}

/**
 * One character lowered in its string: a capital sigma is final (ς) after a cased letter and not before one,
 * case-ignorable characters skipped both ways, as CPython decides it for every str method that lowers.
 */
function lowerIn(chars: readonly string[], i: number): string {
  const ch = chars[i]!;
  if (ch !== 'Σ') return ch.toLowerCase();
  const { ignorable } = unicode();
  let j = i - 1;
  while (j >= 0 && ignorable.test(chars[j]!)) j--;
  if (j < 0 || !isCased(chars[j]!)) return 'σ';
  let k = i + 1;
  while (k < chars.length && ignorable.test(chars[k]!)) k++;
  return k === chars.length || !isCased(chars[k]!) ? 'ς' : 'σ';
}

/** Every character lowered in its string (String.prototype.toLowerCase would decide a sigma in a substring alone). */
function lowerFrom(chars: readonly string[], start: number): string {
  let out = '';
  for (let i = start; i < chars.length; i++) out += lowerIn(chars, i);
  return out;
}

export function pyTitle(s: string): string {
  const chars = codePoints(s);
  let out = '';
  let previousCased = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    out += previousCased ? lowerIn(chars, i) : titleChar(ch);
    previousCased = isCased(ch);
  }
  return out;
}

export function pyCapitalize(s: string): string {
  if (s === '') return s;
  const chars = codePoints(s);
  return titleChar(chars[0]!) + lowerFrom(chars, 1);
}

export function pySwapcase(s: string): string {
  const { upper, lower } = unicode();
  const chars = codePoints(s);
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    out += upper.test(ch) ? lowerIn(chars, i) : lower.test(ch) ? ch.toUpperCase() : ch;
  }
  return out;
}

/** Full case folding: lower case of the upper case, except where Unicode folds otherwise. */
function foldChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) return ch.toLowerCase();
  // Cherokee folds to its capitals; dotless ı folds to itself; capital sharp s folds as ß does.
  if (cp >= 0x13a0 && cp <= 0x13f5) return ch;
  if ((cp >= 0x13f8 && cp <= 0x13fd) || (cp >= 0xab70 && cp <= 0xabbf)) return ch.toUpperCase();
  if (cp === 0x131) return ch;
  if (cp === 0x1e9e) return 'ss';
  return ch.toUpperCase().toLowerCase();
}

export function pyCasefold(s: string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase();
  let out = '';
  for (const ch of s) out += foldChar(ch);
  return out;
}

/** str.isupper: some character is upper case, none is lower or title case. */
export function pyIsUpper(s: string): boolean {
  const { notUpper, anyUpper } = unicode();
  return !notUpper.test(s) && anyUpper.test(s);
}

/** str.islower: some character is lower case, none is upper or title case. */
export function pyIsLower(s: string): boolean {
  const { notLower, anyLower } = unicode();
  return !notLower.test(s) && anyLower.test(s);
}

/** str.istitle: every cased run starts with an upper or title case character and goes on in lower case. */
export function pyIsTitle(s: string): boolean {
  const { upper, lower, title } = unicode();
  let cased = false;
  let previousCased = false;
  for (const ch of s) {
    if (upper.test(ch) || title.test(ch)) {
      if (previousCased) return false;
      previousCased = cased = true;
    } else if (lower.test(ch)) {
      if (!previousCased) return false;
      previousCased = cased = true;
    } else previousCased = false;
  }
  return cased;
}
