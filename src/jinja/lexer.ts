// Jinja2 lexer with trim_blocks + lstrip_blocks (transformers' configuration), scanning without regexes.
import { TemplateSyntaxError } from './errors.js';
import { isPySpace } from './values.js';

export type TokenType =
  | 'data' | 'block_begin' | 'block_end' | 'var_begin' | 'var_end'
  | 'name' | 'string' | 'int' | 'float' | 'op' | 'eof';

export interface Token {
  type: TokenType;
  /** Operator text, name, data text or decoded string; numbers keep their source text. */
  value: string;
  pos: number;
}

const OPERATORS_2 = new Set(['//', '**', '==', '!=', '<=', '>=']);
const OPERATORS_1 = new Set(['+', '-', '/', '*', '%', '~', '[', ']', '(', ')', '{', '}', '<', '>', '=', '.', ':', '|', ',', ';']);
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

export function lineOf(source: string, pos: number): number {
  let line = 1;
  for (let i = source.indexOf('\n'); i !== -1 && i < pos; i = source.indexOf('\n', i + 1)) line++;
  return line;
}

/** CRLF/CR → LF and drop one trailing newline (jinja2's keep_trailing_newline=False). */
export function normalizeSource(source: string): string {
  let src = source.indexOf('\r') === -1 ? source : source.replace(/\r\n?/g, '\n');
  if (src.endsWith('\n')) src = src.slice(0, -1);
  return src;
}

function rstripPy(s: string): string {
  let end = s.length;
  while (end > 0 && isPySpace(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

function skipSpaces(src: string, pos: number): number {
  const n = src.length;
  while (pos < n) {
    const c = src.charCodeAt(pos);
    // Plain ASCII spaces and visible ASCII decide without a call: this runs between every two tokens.
    if (c === 32 || c === 10) pos++;
    else if (c > 32 && c < 0x85) return pos;
    else if (isPySpace(c)) pos++;
    else return pos;
  }
  return pos;
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c > 127;
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Text before a tag, after `-` stripping or lstrip_blocks. */
function stripBefore(text: string, sign: string, kind: string, lineStarting: boolean): string {
  if (sign === '-') return rstripPy(text);
  if (sign === '+' || kind === '{') return text;
  const lineStart = text.lastIndexOf('\n') + 1;
  if (lineStart === 0 && !lineStarting) return text;
  if (lineStart === text.length) return text;
  for (let i = lineStart; i < text.length; i++) if (!isPySpace(text.charCodeAt(i))) return text;
  return text.slice(0, lineStart);
}

/** Matches `{%[-+]? raw [-]?%}` at pos; returns the position after it or -1. */
function matchRawBegin(src: string, pos: number): number {
  let p = pos + 2;
  if (src[p] === '-' || src[p] === '+') p++;
  p = skipSpaces(src, p);
  if (!src.startsWith('raw', p)) return -1;
  p += 3;
  if (p < src.length && isNameChar(src.charCodeAt(p))) return -1;
  p = skipSpaces(src, p);
  if (src.startsWith('-%}', p)) return skipSpaces(src, p + 3);
  if (src.startsWith('%}', p)) return p + 2;
  return -1;
}

/** Finds `{%[-+]? endraw (+%}|-%}\s*|%}\n?)`; returns [tagStart, sign, endPos]. */
function findRawEnd(src: string, from: number): [number, string, number] {
  for (let i = src.indexOf('{%', from); i !== -1; i = src.indexOf('{%', i + 2)) {
    let p = i + 2;
    let sign = '';
    if (src[p] === '-' || src[p] === '+') sign = src[p++]!;
    p = skipSpaces(src, p);
    if (!src.startsWith('endraw', p)) continue;
    p = skipSpaces(src, p + 6);
    if (src.startsWith('+%}', p)) return [i, sign, p + 3];
    if (src.startsWith('-%}', p)) return [i, sign, skipSpaces(src, p + 3)];
    if (src.startsWith('%}', p)) return [i, sign, src[p + 2] === '\n' ? p + 3 : p + 2];
  }
  throw new TemplateSyntaxError('Missing end of raw directive', lineOf(src, from));
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };

/** Decodes a Python string literal body (unicode-escape semantics; unknown escapes stay verbatim). */
function decodeString(body: string, src: string, pos: number): string {
  let slash = body.indexOf('\\');
  if (slash === -1) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    if (slash < i) slash = body.indexOf('\\', i);
    // Copy the run up to the next backslash in one slice (long prose with a few `\n` escapes is common).
    if (slash === -1 || slash + 1 >= body.length) {
      out += body.slice(i);
      break;
    }
    if (slash > i) out += body.slice(i, slash);
    i = slash;
    const e = body[++i]!;
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + len);
      if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) {
        throw new TemplateSyntaxError(`truncated \\${e} escape in string literal`, lineOf(src, pos));
      }
      out += String.fromCodePoint(parseInt(hex, 16));
      i += len;
    } else if (e >= '0' && e <= '7') {
      let oct = e;
      while (oct.length < 3 && body[i + 1] !== undefined && body[i + 1]! >= '0' && body[i + 1]! <= '7') oct += body[++i];
      out += String.fromCharCode(parseInt(oct, 8));
    } else {
      out += '\\' + e;
    }
  }
  return out;
}

/** Scans a number at pos; returns [type, text, end]. */
function scanNumber(src: string, pos: number, afterDot: boolean): [TokenType, string, number] {
  const digits = (p: number): number => {
    if (!isDigit(src.charCodeAt(p))) return p;
    p++;
    for (;;) {
      if (isDigit(src.charCodeAt(p))) p++;
      else if (src[p] === '_' && isDigit(src.charCodeAt(p + 1))) p += 2;
      else return p;
    }
  };
  if (src[pos] === '0' && /[bBoOxX]/.test(src[pos + 1] ?? '')) {
    let p = pos + 2;
    while (p < src.length && /[0-9a-fA-F_]/.test(src[p]!)) p++;
    return ['int', src.slice(pos, p), p];
  }
  const intEnd = digits(pos);
  if (afterDot) return ['int', src.slice(pos, intEnd), intEnd];
  let p = intEnd;
  let isFloat = false;
  if (src[p] === '.' && isDigit(src.charCodeAt(p + 1))) {
    p = digits(p + 1);
    isFloat = true;
  }
  if (src[p] === 'e' || src[p] === 'E') {
    let q = p + 1;
    if (src[q] === '+' || src[q] === '-') q++;
    if (isDigit(src.charCodeAt(q))) {
      p = digits(q);
      isFloat = true;
    }
  }
  return [isFloat ? 'float' : 'int', src.slice(pos, p), p];
}

export function tokenize(source: string): Token[] {
  const src = source;
  const n = src.length;
  const tokens: Token[] = [];
  let pos = 0;
  let lineStarting = true;

  while (pos < n) {
    let tag = src.indexOf('{', pos);
    while (tag !== -1) {
      const next = src[tag + 1];
      if (next === '{' || next === '%' || next === '#') break;
      tag = src.indexOf('{', tag + 1);
    }
    if (tag === -1) {
      tokens.push({ type: 'data', value: src.slice(pos), pos });
      break;
    }
    const kind = src[tag + 1]!;
    const signChar = src[tag + 2];
    const sign = signChar === '-' || signChar === '+' ? signChar : '';
    const rawEnd = kind === '%' ? matchRawBegin(src, tag) : -1;
    const text = stripBefore(src.slice(pos, tag), sign, kind, lineStarting);
    if (text.length > 0) tokens.push({ type: 'data', value: text, pos });

    if (rawEnd !== -1) {
      const [endTag, endSign, after] = findRawEnd(src, rawEnd);
      const body = stripBefore(src.slice(rawEnd, endTag), endSign, '%', false);
      if (body.length > 0) tokens.push({ type: 'data', value: body, pos: rawEnd });
      pos = after;
      lineStarting = src[after - 1] === '\n';
      continue;
    }

    let p = tag + 2 + sign.length;
    if (kind === '#') {
      const end = src.indexOf('#}', p);
      if (end === -1) throw new TemplateSyntaxError('Missing end of comment tag', lineOf(src, tag));
      const before = src[end - 1];
      pos = before === '-' && end > p ? skipSpaces(src, end + 2) : before === '+' && end > p ? end + 2 : src[end + 2] === '\n' ? end + 3 : end + 2;
      lineStarting = src[pos - 1] === '\n';
      continue;
    }

    const isBlock = kind === '%';
    tokens.push({ type: isBlock ? 'block_begin' : 'var_begin', value: '', pos: tag });
    const balance: string[] = [];
    for (;;) {
      p = skipSpaces(src, p);
      if (p >= n) throw new TemplateSyntaxError(`unexpected end of template, expected '${isBlock ? 'end of statement block' : 'end of print statement'}'`, lineOf(src, tag));
      const c = src.charCodeAt(p);
      // Only '-', '+', '%' and '}' can start the end of a tag.
      if (balance.length === 0 && (c === 45 || c === 43 || c === 37 || c === 125)) {
        if (isBlock) {
          if (src.startsWith('-%}', p)) {
            tokens.push({ type: 'block_end', value: '', pos: p });
            p = skipSpaces(src, p + 3);
            break;
          }
          if (src.startsWith('+%}', p)) {
            tokens.push({ type: 'block_end', value: '', pos: p });
            p += 3;
            break;
          }
          if (src.startsWith('%}', p)) {
            tokens.push({ type: 'block_end', value: '', pos: p });
            p += src[p + 2] === '\n' ? 3 : 2;
            break;
          }
        } else {
          if (src.startsWith('-}}', p)) {
            tokens.push({ type: 'var_end', value: '', pos: p });
            p = skipSpaces(src, p + 3);
            break;
          }
          if (src.startsWith('}}', p)) {
            tokens.push({ type: 'var_end', value: '', pos: p });
            p += 2;
            break;
          }
        }
      }
      const ch = src[p]!;
      if (c === 39 || c === 34) {
        // indexOf, not a character loop: templates such as gpt-oss carry long prose in string literals, and a
        // cold compile runs this before the JIT has optimised anything.
        let q = p + 1;
        let close = src.indexOf(ch, q);
        for (;;) {
          if (close === -1) {
            q = n;
            break;
          }
          const escape = src.indexOf('\\', q);
          if (escape === -1 || escape > close) {
            q = close;
            break;
          }
          q = escape + 2;
          if (q > close) close = src.indexOf(ch, q);
        }
        if (q >= n) throw new TemplateSyntaxError(`unexpected char ${ch === "'" ? `"'"` : `'"'`} at ${p}`, lineOf(src, p));
        tokens.push({ type: 'string', value: decodeString(src.slice(p + 1, q), src, p), pos: p });
        p = q + 1;
      } else if (isDigit(c)) {
        const [type, value, end] = scanNumber(src, p, src[p - 1] === '.');
        tokens.push({ type, value, pos: p });
        p = end;
      } else if (isNameStart(c)) {
        let q = p + 1;
        for (; q < n; q++) {
          const d = src.charCodeAt(q);
          if (!((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === 95 || (d >= 48 && d <= 57) || d > 127)) break;
        }
        tokens.push({ type: 'name', value: src.slice(p, q), pos: p });
        p = q;
      } else {
        const next = src.charCodeAt(p + 1);
        const two = (next === 61 || next === 47 || next === 42) && OPERATORS_2.has(src.slice(p, p + 2)) ? src.slice(p, p + 2) : undefined;
        const op = two ?? (OPERATORS_1.has(ch) ? ch : undefined);
        if (op === undefined) throw new TemplateSyntaxError(`unexpected char '${ch}' at ${p}`, lineOf(src, p));
        if (op === '(' || op === '[' || op === '{') balance.push(op);
        else if (op in CLOSERS) {
          if (balance.length === 0) throw new TemplateSyntaxError(`unexpected '${op}'`, lineOf(src, p));
          const open = balance.pop();
          if (open !== CLOSERS[op]) throw new TemplateSyntaxError(`unexpected '${op}', expected '${open === '(' ? ')' : open === '[' ? ']' : '}'}'`, lineOf(src, p));
        }
        tokens.push({ type: 'op', value: op, pos: p });
        p += op.length;
      }
    }
    pos = p;
    lineStarting = src[p - 1] === '\n';
  }
  tokens.push({ type: 'eof', value: '', pos: n });
  return tokens;
}
