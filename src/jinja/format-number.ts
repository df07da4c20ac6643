// Python's float formatting ('f', 'e', 'g' and the empty type), from the double's exact decimal expansion.
// JavaScript's toFixed and toExponential round an exact half away from zero where Python rounds it to even
// ('%.1f' % 2.25 is '2.2'), stop at 100 digits, and switch to exponent notation from 1e21 on; none of that is Python's.
import { chargeChars } from './budget.js';
import { PyError } from './errors.js';
import { floatRepr } from './repr.js';

/** |x| as digits × 10^-scale, exactly: every finite double is a finite decimal. */
function exactDecimal(x: number): { digits: bigint; scale: number } {
  if (x === 0) return { digits: 0n, scale: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  // |x| = mantissa × 2^exponent, with the implicit leading bit of a normal number.
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return { digits: mantissa << BigInt(exponent), scale: 0 };
  // m / 2^k = m × 5^k / 10^k.
  return { digits: mantissa * 5n ** BigInt(-exponent), scale: -exponent };
}

/** The digits of digits × 10^-drop rounded to an integer, an exact half to the even neighbour. */
function roundHalfEven(digits: bigint, drop: number): string {
  // More digits than the expansion has: zeros written, not a power of ten multiplied ('%.100000f' % 0.5).
  if (drop <= 0) return digits === 0n ? '0' : digits.toString() + '0'.repeat(-drop);
  const unit = 10n ** BigInt(drop);
  const kept = digits / unit;
  const rest = (digits % unit) * 2n;
  return (rest > unit || (rest === unit && kept % 2n === 1n) ? kept + 1n : kept).toString();
}

function signOf(x: number): string {
  return x < 0 || Object.is(x, -0) ? '-' : '';
}

/** With `precision` digits after the point: Python's '%.{precision}f'. */
export function fixedNotation(x: number, precision: number, alt = false): string {
  if (!Number.isFinite(x)) return floatRepr(x);
  chargeChars(precision);
  const { digits, scale } = exactDecimal(x);
  const text = roundHalfEven(digits, scale - precision).padStart(precision + 1, '0');
  const whole = text.slice(0, text.length - precision);
  const point = precision > 0 || alt ? '.' : '';
  return `${signOf(x)}${whole}${point}${text.slice(whole.length)}`;
}

/** The value rounded to `significant` digits: its digits and the power of ten of the first one. */
function significantDigits(x: number, significant: number): { text: string; exponent: number } {
  chargeChars(significant);
  const { digits, scale } = exactDecimal(x);
  if (digits === 0n) return { text: '0'.repeat(significant), exponent: 0 };
  const length = digits.toString().length;
  let text = roundHalfEven(digits, length - significant);
  let exponent = length - 1 - scale;
  // 9.96 to two digits is 10.0: one digit more, and a power of ten up.
  if (text.length > significant) {
    text = text.slice(0, significant);
    exponent += 1;
  }
  return { text, exponent };
}

function withExponent(mantissa: string, exponent: number): string {
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** With `precision` digits after the point of a one-digit mantissa: Python's '%.{precision}e'. */
export function exponentNotation(x: number, precision: number, alt = false): string {
  if (!Number.isFinite(x)) return floatRepr(x);
  const { text, exponent } = significantDigits(x, precision + 1);
  const point = precision > 0 || alt ? '.' : '';
  return signOf(x) + withExponent(`${text[0]}${point}${text.slice(1)}`, exponent);
}

/**
 * Python's '%.{precision}g': `precision` significant digits, in fixed notation when the exponent is from -4 to below
 * the precision, trailing zeros dropped unless `alt`. `keepPoint` is str.format's empty type with a precision, which
 * keeps one digit after the point of a whole number in fixed notation ('{:.3}'.format(1.0) is '1.0') and so turns to
 * exponent notation one digit sooner.
 */
export function generalNotation(x: number, precision: number, alt = false, keepPoint = false): string {
  if (!Number.isFinite(x)) return floatRepr(x);
  const p = precision === 0 ? 1 : precision;
  const { exponent } = significantDigits(x, p);
  // Keeping the point takes one digit of the precision: '{:.4}'.format(1234.5) is '1.234e+03', not '1234.0'.
  const useExponent = exponent < -4 || exponent >= (keepPoint ? p - 1 : p);
  let text = useExponent ? exponentNotation(x, p - 1, alt) : fixedNotation(x, p - 1 - exponent, alt);
  if (!alt) {
    const e = text.indexOf('e');
    let mantissa = e === -1 ? text : text.slice(0, e);
    if (mantissa.includes('.')) mantissa = mantissa.replace(/0+$/, '').replace(/\.$/, '');
    if (keepPoint && !useExponent && !mantissa.includes('.')) mantissa += '.0';
    text = e === -1 ? mantissa : mantissa + text.slice(e);
  }
  return text;
}

/**
 * Python's round(x, digits) of a float: the exact value rounded at 10^-digits, an exact half to even (round(2.675, 2)
 * is 2.67, since the double is below 2.675; round(25.0, -1) is 20.0). Past the precision a double holds it is x.
 */
export function roundFloat(x: number, digits: number): number {
  if (!Number.isFinite(x) || x === 0 || digits > 330) return x;
  if (digits < -330) return 0 * x;
  const { digits: all, scale } = exactDecimal(x);
  const kept = roundHalfEven(all, scale - digits);
  const rounded = Number(digits >= 0 ? `${kept}e-${digits}` : `${kept}e${-digits}`);
  if (rounded === Infinity) throw new PyError('OverflowError', 'rounded value too large to represent');
  return signOf(x) === '-' ? -rounded : rounded;
}

/** Python's round(n, digits) of an int with digits < 0: to a multiple of 10^-digits, an exact half to even. */
export function roundInt(n: bigint, digits: number): bigint {
  const unit = 10n ** BigInt(-digits);
  const magnitude = n < 0n ? -n : n;
  const rounded = BigInt(roundHalfEven(magnitude, -digits)) * unit;
  return n < 0n ? -rounded : rounded;
}
