// Markup (markupsafe) where it differs from str. transformers renders with autoescape off, so Markup only shows
// where a `|safe` or `|escape` result meets plain text: `+`, `%`, str.format, str.join and Markup's own methods
// HTML-escape the plain side, and the methods markupsafe wraps return Markup again. `~` and most filters give str.
import { chargeChars } from './budget.js';
import { typeError } from './errors.js';
import { pyRepr, pyStr } from './repr.js';
import { Markup, isTuple, makeTuple, pyTypeName } from './values.js';

export { Markup };

export function htmlEscape(s: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const rep = c === 38 ? '&amp;' : c === 60 ? '&lt;' : c === 62 ? '&gt;' : c === 34 ? '&#34;' : c === 39 ? '&#39;' : undefined;
    if (rep !== undefined) {
      out += s.slice(start, i) + rep;
      start = i + 1;
    }
  }
  return out + s.slice(start);
}

/** The str a Markup stands for; any other value unchanged. */
export function unmark(value: unknown): unknown {
  return value instanceof Markup ? value.text : value;
}

/** markupsafe.escape(value) as text: a Markup is already safe, anything else is printed and escaped. */
export function escapedText(value: unknown): string {
  return value instanceof Markup ? value.text : htmlEscape(pyStr(value));
}

/** markupsafe's %-argument helper: %s and %r see escaped text, numbers stay numbers. */
export function escapedFormatArg(value: unknown, conversion: string): string | undefined {
  if (conversion === 's') return escapedText(value);
  if (conversion === 'r' || conversion === 'a') return htmlEscape(pyRepr(value));
  return undefined;
}

/** `a + b` where either side is Markup: the plain side is escaped; anything but a string is a TypeError. */
export function markupAdd(a: unknown, b: unknown): Markup {
  const isText = (v: unknown) => typeof v === 'string' || v instanceof Markup;
  if (!isText(a) || !isText(b)) throw typeError(`unsupported operand type(s) for +: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  const left = escapedText(a);
  const right = escapedText(b);
  chargeChars(left.length + right.length);
  return new Markup(left + right);
}

type StrMethod = (s: string, args: unknown[], kwargs: Record<string, unknown> | null) => unknown;

// The str methods Markup overrides (markupsafe 3): their string results are Markup; replace's replacement and the
// justify methods' fill character are escaped. Other arguments are used as given.
const WRAPPING = new Set([
  'capitalize', 'title', 'lower', 'upper', 'replace', 'ljust', 'rjust', 'lstrip', 'rstrip', 'center', 'strip',
  'expandtabs', 'swapcase', 'zfill', 'casefold', 'removeprefix', 'removesuffix', 'translate',
  'split', 'rsplit', 'splitlines', 'partition', 'rpartition',
]);
const ESCAPED_ARGUMENT: Record<string, number> = { replace: 1, ljust: 1, rjust: 1, center: 1 };

function wrap(result: unknown): unknown {
  if (typeof result === 'string') return new Markup(result);
  if (Array.isArray(result)) {
    const items = result.map((item) => (typeof item === 'string' ? new Markup(item) : item));
    return isTuple(result) ? makeTuple(items) : items;
  }
  return result;
}

/**
 * A str method called on a Markup: `join` escapes the items (methods.ts gives `format` an escaping formatter), the
 * overridden methods return Markup, the rest see plain text.
 */
export function markupMethod(name: string, impl: StrMethod): StrMethod {
  if (name === 'join') {
    return (text, args, kwargs) => new Markup(impl(text, [escapeItems(args[0])], kwargs) as string);
  }
  if (!WRAPPING.has(name)) return (text, args, kwargs) => impl(text, args, kwargs);
  const escaped = ESCAPED_ARGUMENT[name];
  return (text, args, kwargs) => {
    if (escaped === undefined || args.length <= escaped) return wrap(impl(text, args, kwargs));
    const escapedArgs = args.slice();
    escapedArgs[escaped] = escapedText(args[escaped]);
    return wrap(impl(text, escapedArgs, kwargs));
  };
}

function escapeItems(items: unknown): unknown {
  return Array.isArray(items) ? items.map(escapedText) : items;
}
