import type { DeclaredType, UntypedValues } from '../../args/coerce.js';
import { skipWhitespace } from '../trim.js';

export interface TaggedArgsSyntax {
  /** Opens a key (`<parameter=`, `<arg_key>`). */
  keyOpen: string;
  /** Ends the key (`>`, `</arg_key>`). */
  keyClose: string;
  /** Opens the value after the key, if the syntax has one (`<arg_value>`). */
  valueOpen?: string;
  /** Ends the value (`</parameter>`, `</arg_value>`). */
  valueClose: string;
  /** Markers that also end a value whose close tag is missing; not consumed. */
  valueImplicitEnds: readonly string[];
  /** Markers that end the argument list; `consume: false` leaves it for the call close. */
  argsEnd: readonly { marker: string; consume: boolean }[];
  /** Strip exactly one leading and one trailing newline of each raw value (the template's wrapping). */
  stripOneNewline: boolean;
  /** What opens the block the arguments sit in (`<function=`): inside a string value it nests with its close. */
  blockOpen?: string;
  /**
   * The block's close (an implicit end, `</function>`) ends a value that lost its close tag only when a call or
   * section close, or the end of output, follows it; elsewhere it is text of the value (code that writes the syntax).
   */
  blockCloseNeedsFollower?: boolean;
  /**
   * The key tag holds attributes (DSML `<｜DSML｜parameter name="K" string="true">`): `name` is the one that holds
   * the key; `typing`, if given, the one that declares the value a raw string or JSON text (see declaredKind).
   */
  keyAttributes?: { name: string; typing?: { attribute: string; string: string; json: string } };
  /**
   * Names a model wraps all arguments in (DeepSeek-V3.2: `arguments`, `input`). As the first parameter, undeclared
   * by a declared tool, and holding a JSON object of that tool's declared parameters, it stands for them (vLLM
   * repairs it the same way); otherwise it is an ordinary parameter.
   */
  wrapperKeys?: readonly string[];
  /** What a value with no schema becomes (coerce.ts UntypedValues); default: plain JSON literals are JSON. */
  untypedValues?: UntypedValues;
}

export interface KeyTag {
  key: string;
  declared?: DeclaredType;
}

/** The key (and declared type) a key tag's text names; an empty key when it names none. */
export function readKeyTag(text: string, syntax: TaggedArgsSyntax): KeyTag {
  const spec = syntax.keyAttributes;
  if (!spec) return { key: text.trim() };
  const attributes = readAttributes(text);
  const key = attributes.get(spec.name)?.trim() ?? '';
  const { typing } = spec;
  const value = typing ? attributes.get(typing.attribute)?.trim() : undefined;
  // Any other value (or none) declares nothing: the schema alone decides.
  if (value === undefined) return { key };
  if (value === typing!.string) return { key, declared: 'string' };
  return value === typing!.json ? { key, declared: 'json' } : { key };
}

/** `a="x" b="y"` (a key tag is at most MAX_HEADER long); reading stops at the first thing that is not an attribute. */
function readAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  let i = 0;
  for (;;) {
    i = skipWhitespace(text, i);
    const eq = text.indexOf('=', i);
    if (eq < 0) return attributes;
    const name = text.slice(i, eq).trim();
    const open = skipWhitespace(text, eq + 1);
    if (text.charCodeAt(open) !== 34 /* " */) return attributes;
    const close = text.indexOf('"', open + 1);
    if (close < 0 || name.length === 0) return attributes;
    if (!attributes.has(name)) attributes.set(name, text.slice(open + 1, close));
    i = close + 1;
  }
}
