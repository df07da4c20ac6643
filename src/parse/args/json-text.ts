// Small scanners over JSON source text. Arguments keep the model's own number spelling
// (`1.0`, 20-digit ids), so values are validated and re-emitted as text, not re-serialised.

const ZERO = 48;
const NINE = 57;

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

/** Scans the digits starting at `i`; returns the index after them. */
function skipDigits(text: string, i: number): number {
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  return i;
}

/** True when `text` is exactly one JSON number (RFC 8259 grammar: no `+`, `_`, hex, leading zeros, `1.`, `.5`). */
export function isJsonNumber(text: string): boolean {
  return numberParts(text) !== undefined;
}

interface NumberParts {
  integer: string;
  fraction: string;
  exponent: number;
}

function numberParts(text: string): NumberParts | undefined {
  let i = 0;
  if (text.charCodeAt(i) === 45 /* - */) i++;
  const integerStart = i;
  if (text.charCodeAt(i) === ZERO) i++;
  else if (isDigit(text.charCodeAt(i))) i = skipDigits(text, i);
  else return undefined;
  const integer = text.slice(integerStart, i);
  let fraction = '';
  if (text.charCodeAt(i) === 46 /* . */) {
    const start = i + 1;
    i = skipDigits(text, start);
    if (i === start) return undefined;
    fraction = text.slice(start, i);
  }
  let exponent = 0;
  const e = text.charCodeAt(i);
  if (e === 101 || e === 69 /* e E */) {
    i++;
    let sign = 1;
    const s = text.charCodeAt(i);
    if (s === 43 || s === 45 /* + - */) {
      if (s === 45) sign = -1;
      i++;
    }
    const start = i;
    i = skipDigits(text, start);
    if (i === start) return undefined;
    // Huge exponents only matter for their sign and rough size.
    exponent = sign * Math.min(Number(text.slice(start, Math.min(i, start + 9))), 1e9);
  }
  return i === text.length ? { integer, fraction, exponent } : undefined;
}

/** True when `text` is a JSON number with an integral value (`3`, `3.0`, `1e3`, `-0`). */
export function isJsonInteger(text: string): boolean {
  const parts = numberParts(text);
  if (!parts) return false;
  let digits = parts.integer + parts.fraction;
  let scale = parts.exponent - parts.fraction.length;
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === ZERO) end--;
  if (end === 0) return true;
  scale += digits.length - end;
  digits = digits.slice(0, end);
  return scale >= 0;
}

function isJsonSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** Removes insignificant whitespace from text already known to be valid JSON; strings stay byte-exact. */
export function minifyJson(text: string): string {
  let out = '';
  let runStart = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 34 /* " */) {
      i++;
      while (i < text.length) {
        const c = text.charCodeAt(i);
        if (c === 92 /* \ */) i += 2;
        else if (c === 34) break;
        else i++;
      }
      i++;
    } else if (isJsonSpace(code)) {
      out += text.slice(runStart, i);
      while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
      runStart = i;
    } else {
      i++;
    }
  }
  return out + text.slice(runStart);
}
