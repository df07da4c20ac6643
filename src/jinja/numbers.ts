// Python int/float arithmetic over number | bigint | PyFloat | boolean.
import { charge } from './budget.js';
import { LimitError, PyError, typeError } from './errors.js';
import { PyFloat, pyTypeName } from './values.js';

/** A numeric operand split into its Python kind. */
type Num = { int: true; v: number | bigint } | { int: false; v: number };

function num(value: unknown): Num | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? { int: true, v: value } : { int: false, v: value };
  if (typeof value === 'boolean') return { int: true, v: value ? 1 : 0 };
  if (typeof value === 'bigint') return { int: true, v: value };
  if (value instanceof PyFloat) return { int: false, v: value.value };
  return undefined;
}

/** An int result: a number when exact, else bigint. */
export function normInt(value: bigint): number | bigint {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
}

/** A float result: integral values become PyFloat so they print as `5.0`. */
export function makeFloat(value: number): number | PyFloat {
  return Number.isInteger(value) ? new PyFloat(value) : value;
}

export function toNumber(value: number | bigint): number {
  return typeof value === 'bigint' ? Number(value) : value;
}

/** Bits of |value| (0 for 0). */
export function bitLength(value: bigint): number {
  if (value === 0n) return 0;
  return (value < 0n ? -value : value).toString(16).length * 4;
}

// Integers past this many bits cannot be printed by Python anyway (4,300 digits is about 14,300 bits); computing
// them is refused before it starts, so `10 ** 10 ** 8` costs nothing.
const MAX_INT_BITS = 1 << 20;

/** Pays for an integer result of about `bits` bits before computing it. */
function chargeIntBits(bits: number): void {
  if (bits > MAX_INT_BITS) throw new LimitError(`integer result of about ${Math.round(bits)} bits exceeds the sandbox's ${MAX_INT_BITS}`);
  charge(bits / 8);
}

function big(value: number | bigint): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

export function unsupported(op: string, a: unknown, b: unknown): PyError {
  // Python names the power operator by both its spellings.
  return typeError(`unsupported operand type(s) for ${op === '**' ? '** or pow()' : op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

/** Applies a numeric binary operator; returns undefined when either side is not numeric. */
export function numericOp(op: string, a: unknown, b: unknown): unknown {
  const x = num(a);
  const y = num(b);
  if (x === undefined || y === undefined) return undefined;
  if (x.int && y.int) return intOp(op, x.v, y.v);
  const fx = toNumber(x.v);
  const fy = toNumber(y.v);
  switch (op) {
    case '+':
      return makeFloat(fx + fy);
    case '-':
      return makeFloat(fx - fy);
    case '*':
      return makeFloat(fx * fy);
    case '/':
      if (fy === 0) throw new PyError('ZeroDivisionError', 'float division by zero');
      return makeFloat(fx / fy);
    case '//':
      if (fy === 0) throw new PyError('ZeroDivisionError', 'float floor division by zero');
      return makeFloat(floatDivmod(fx, fy)[0]);
    case '%':
      if (fy === 0) throw new PyError('ZeroDivisionError', 'float modulo');
      return makeFloat(floatDivmod(fx, fy)[1]);
    case '**':
      return makeFloat(floatPower(fx, fy));
  }
  return undefined;
}

/** A float power; one too large for a double is Python's OverflowError (errno 34), not inf. */
function floatPower(x: number, y: number): number {
  const result = Math.pow(x, y);
  // NaN (a negative base to a fractional power) is where Python makes a complex number: not written here.
  if ((result === Infinity || result === -Infinity) && Number.isFinite(x) && Number.isFinite(y)) {
    // 0.0 ** -1 is Python's ZeroDivisionError; only an overflow from finite values is this one.
    if (x === 0) throw new PyError('ZeroDivisionError', '0.0 cannot be raised to a negative power');
    throw new PyError('OverflowError', "(34, 'Numerical result out of range')");
  }
  return result;
}

/**
 * x / y of two ints, correctly rounded as Python's true division is (Number(x) / Number(y) rounds twice): the
 * quotient to 66 bits or more with a sticky bit for the rest, then one rounding to a double.
 */
function intTrueDivide(x: bigint, y: bigint): number {
  const negative = x < 0n !== y < 0n;
  const a = x < 0n ? -x : x;
  const b = y < 0n ? -y : y;
  if (a === 0n) return negative ? -0 : 0;
  const shift = Math.max(0, 66 - (bitLength(a) - bitLength(b)));
  const scaled = a << BigInt(shift);
  const quotient = ((scaled / b) << 1n) | (scaled % b === 0n ? 0n : 1n);
  // Scaled back in two exact steps: one power of two below 2^-1074 would be 0 for a quotient still representable.
  const half = (shift + 1) >> 1;
  const value = Number(quotient) * 2 ** -half * 2 ** -(shift + 1 - half);
  if (value === Infinity) throw new PyError('OverflowError', 'integer division result too large for a float');
  return negative ? -value : value;
}

function copySign(magnitude: number, sign: number): number {
  return sign < 0 || Object.is(sign, -0) ? -Math.abs(magnitude) : Math.abs(magnitude);
}

/**
 * CPython's float divmod: the remainder from fmod (exact, JavaScript's %), the quotient from it, so 2.5 // 0.001 is
 * 2499.0 as in Python (Math.floor(2.5 / 0.001) is 2500, the quotient rounded up before it is floored), and a zero
 * takes the divisor's sign.
 */
function floatDivmod(x: number, y: number): [number, number] {
  let mod = x % y;
  let div = (x - mod) / y;
  if (mod !== 0) {
    if (y < 0 !== mod < 0) {
      mod += y;
      div -= 1;
    }
  } else mod = copySign(0, y);
  let floor: number;
  if (div !== 0) {
    floor = Math.floor(div);
    if (div - floor > 0.5) floor += 1;
  } else floor = copySign(0, x / y);
  return [floor, mod];
}

function intOp(op: string, a: number | bigint, b: number | bigint): unknown {
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+': {
        const r = a + b;
        if (Number.isSafeInteger(r)) return r;
        break;
      }
      case '-': {
        const r = a - b;
        if (Number.isSafeInteger(r)) return r;
        break;
      }
      case '*': {
        const r = a * b;
        if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
        break;
      }
      case '/':
        if (b === 0) throw new PyError('ZeroDivisionError', 'division by zero');
        return makeFloat(a / b);
      case '//':
        if (b === 0) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
        return Math.floor(a / b);
      case '%': {
        if (b === 0) throw new PyError('ZeroDivisionError', 'integer modulo by zero');
        const r = a % b;
        return r !== 0 && r < 0 !== b < 0 ? r + b : r === 0 ? 0 : r;
      }
      case '**':
        if (b < 0) return makeFloat(floatPower(a, b));
        break;
    }
  }
  const x = big(a);
  const y = big(b);
  switch (op) {
    case '+':
      return normInt(x + y);
    case '-':
      return normInt(x - y);
    case '*':
      chargeIntBits(bitLength(x) + bitLength(y));
      return normInt(x * y);
    case '/':
      if (y === 0n) throw new PyError('ZeroDivisionError', 'division by zero');
      return makeFloat(intTrueDivide(x, y));
    case '//': {
      if (y === 0n) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
      let q = x / y;
      if (x % y !== 0n && x < 0n !== y < 0n) q -= 1n;
      return normInt(q);
    }
    case '%': {
      if (y === 0n) throw new PyError('ZeroDivisionError', 'integer modulo by zero');
      let r = x % y;
      if (r !== 0n && r < 0n !== y < 0n) r += y;
      return normInt(r);
    }
    case '**':
      if (y < 0n) return makeFloat(floatPower(Number(x), Number(y)));
      // 0, 1 and -1 stay small whatever the exponent.
      if (y === 0n) return 1;
      if (x === 0n || x === 1n) return Number(x);
      if (x === -1n) return y % 2n === 0n ? 1 : -1;
      chargeIntBits(bitLength(x) * Number(y));
      return normInt(x ** y);
  }
  return undefined;
}

export function binaryNumeric(op: string, a: unknown, b: unknown): unknown {
  const r = numericOp(op, a, b);
  if (r === undefined) throw unsupported(op, a, b);
  return r;
}

export function negate(value: unknown): unknown {
  const x = num(value);
  if (x === undefined) throw typeError(`bad operand type for unary -: '${pyTypeName(value)}'`);
  if (!x.int) return makeFloat(-x.v);
  return typeof x.v === 'bigint' ? normInt(-x.v) : x.v === 0 ? 0 : -x.v;
}

/** Numeric comparison: -1, 0, 1, or undefined when not both numeric. NaN compares as unordered (NaN result). */
export function compareNumbers(a: unknown, b: unknown): number | undefined {
  const x = num(a);
  const y = num(b);
  if (x === undefined || y === undefined) return undefined;
  if (typeof x.v === 'bigint' || typeof y.v === 'bigint') {
    if (!x.int || !y.int) {
      const fx = toNumber(x.v);
      const fy = toNumber(y.v);
      return fx < fy ? -1 : fx > fy ? 1 : fx === fy ? 0 : NaN;
    }
    const bx = big(x.v);
    const by = big(y.v);
    return bx < by ? -1 : bx > by ? 1 : 0;
  }
  return x.v < y.v ? -1 : x.v > y.v ? 1 : x.v === y.v ? 0 : NaN;
}

/** Python int(x) for numbers (truncation). */
export function truncInt(value: unknown): number | bigint | undefined {
  const x = num(value);
  if (x === undefined) return undefined;
  if (x.int) return x.v;
  if (!Number.isFinite(x.v)) throw new PyError(Number.isNaN(x.v) ? 'ValueError' : 'OverflowError', 'cannot convert float to integer');
  const t = Math.trunc(x.v);
  return Number.isSafeInteger(t) ? t : normInt(BigInt(t));
}

export function asFloat(value: unknown): number | undefined {
  const x = num(value);
  return x === undefined ? undefined : toNumber(x.v);
}
