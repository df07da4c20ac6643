import { coerceAdmitted, declaredKindOf, jsonStringFragment, untypedIsString, type DeclaredType } from '../../args/coerce.js';
import type { AdmittedTypes } from '../../args/schema.js';
import { minifyJson } from '../../args/json-text.js';
import type { CallSink, CodecContext } from '../grammar.js';
import type { ParseCode } from '../../../types.js';
import { isHighSurrogate } from '../../../util/utf16.js';
import { escapeFragment } from './escape-fragment.js';
import { parameterTypes } from './parameter-types.js';
import type { KeyTag, TaggedArgsSyntax } from './tagged-syntax.js';

/**
 * The JSON text the tagged-args codec writes, value by value: how the schema (and the key tag) types a value, a
 * string value streamed as JSON-escaped fragments, any other value coerced whole at its end, a wrapper of all
 * arguments unwrapped. The codec is one class written in layers, each file extending the one below it: this writer,
 * tagged-nested-value.ts (where a value that may nest its own syntax ends), tagged-args.ts (the tag reader and its
 * fast lane). One object rather than parts that call each other: the lane's per-push test reads the value's state
 * with no indirection, and every call site sees one receiver shape.
 */
export abstract class TaggedValueWriter {
  private count = 0;
  protected readonly seen = new Set<string>();
  protected key = '';
  private declared: DeclaredType | undefined;
  /** The value may be a wrapper of all arguments (TaggedArgsSyntax.wrapperKeys): read whole, decided at its end. */
  private wrapper = false;
  private admitted: AdmittedTypes | undefined;
  protected streamString = false;
  /**
   * A value no schema types, read as JSON when it is plainly a JSON literal (coerce.ts guessJsonLiteral): until its
   * first character past white space shows whether it can be one, it is gathered; once that character cannot begin
   * a literal, it streams as a string value does (the JSON text is the same as coercing it whole at its end).
   */
  private untypedPending = false;
  /** The value runs to its own close structure (readNestedValue): a string, or a value no schema types. */
  protected nestedRead = false;
  protected skipValue = false;
  protected valueFresh = true;
  private heldTail = '';
  private rawParts: string[] = [];
  /** Argument text read but not yet given to the sink (flushArgs). */
  protected argsText = '';

  constructor(
    protected readonly syntax: TaggedArgsSyntax,
    protected readonly context: CodecContext,
  ) {}

  /**
   * Argument text is gathered while a feed reads and handed to the sink once, before any warning and at the end:
   * one event for the pieces of a parameter (`,"content":"`, the value, `"`) instead of one each. The events of one
   * push make one delta either way.
   */
  protected flushArgs(sink: CallSink): void {
    if (this.argsText.length === 0) return;
    sink.args(this.argsText);
    this.argsText = '';
  }

  private warn(sink: CallSink, code: ParseCode, message: string, at: number): void {
    this.flushArgs(sink);
    sink.warn(code, message, at);
  }

  /** A value's key was read: false when it was given before (its value is then skipped). */
  protected beginValue({ key, declared }: KeyTag, at: number, sink: CallSink): boolean {
    this.key = key;
    this.declared = declared;
    this.valueFresh = true;
    this.heldTail = '';
    this.rawParts = [];
    this.skipValue = this.seen.has(key);
    if (this.skipValue) {
      this.warn(sink, 'PARSE_DUPLICATE_ARG', `argument "${key}" given twice; the first value is kept`, at);
      return false;
    }
    this.seen.add(key);
    const types = parameterTypes(this.context.tools, this.context.name, key);
    this.admitted = types.admitted;
    this.wrapper = this.syntax.wrapperKeys !== undefined && this.mayWrap(key);
    const kind = declared === undefined ? types.kind : declaredKindOf(types.admitted, declared);
    this.untypedPending = !this.wrapper && kind === 'unknown' && declared === undefined;
    this.streamString = !this.wrapper && kind === 'string';
    this.nestedRead = !this.wrapper && (kind === 'string' || kind === 'unknown');
    if (this.streamString) this.openStreamedString();
    // Untyped values that are all strings (MiniMax-M2) are decided before any text.
    else if (this.untypedPending) this.settleUntyped('');
    return true;
  }

  private openStreamedString(): void {
    this.argsText += `${this.count++ > 0 ? ',' : ''}${JSON.stringify(this.key)}:"`;
  }

  /**
   * Whether the untyped value's start, `text` (the new text: all before it was white space), decides it (see
   * untypedPending); a string streams from here on.
   */
  private settleUntyped(text: string): void {
    const isString = untypedIsString(text, this.syntax.untypedValues);
    if (isString === undefined) return;
    this.untypedPending = false;
    if (!isString) return;
    text = this.rawParts.join('');
    this.streamString = true;
    this.rawParts = [];
    this.openStreamedString();
    const fragment = this.streamedFragment(text);
    if (fragment.length > 0) this.argsText += fragment;
  }

  private mayWrap(key: string): boolean {
    const name = this.context.name;
    if (name === undefined || this.count > 0 || !this.syntax.wrapperKeys?.includes(key)) return false;
    return this.context.tools.parameters(name) !== undefined && parameterTypes(this.context.tools, name, key).schema === undefined;
  }

  /** Writes a wrapper's object as the arguments themselves, when it holds only declared parameters. */
  private unwrap(raw: string, sink: CallSink, at: number): boolean {
    const text = raw.trim();
    if (text.charCodeAt(0) !== 123 /* { */) return false;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return false;
    }
    const keys = Object.keys(value as object);
    const name = this.context.name!;
    if (keys.length === 0 || !keys.every((key) => this.context.tools.parameterSchema(name, key) !== undefined)) return false;
    this.argsText += minifyJson(text).slice(1, -1);
    this.count++;
    for (const key of keys) this.seen.add(key);
    this.warn(sink, 'PARSE_ARGS_UNWRAPPED', `every argument was given inside "${this.key}"; its object is used as the arguments`, at);
    return true;
  }

  protected addValueText(text: string): void {
    if (this.skipValue) return;
    if (this.valueFresh && this.syntax.stripOneNewline && text.charCodeAt(0) === 10) text = text.slice(1);
    this.valueFresh = false;
    if (!this.streamString) {
      this.rawParts.push(text);
      // Only the new text is read: white space streamed a character a push must not be read again each time.
      if (this.untypedPending) this.settleUntyped(text);
      return;
    }
    const fragment = this.streamedFragment(text);
    if (fragment.length > 0) this.argsText += fragment;
  }

  /** A string value's next text as JSON-escaped argument text ('' when all of it is held). */
  protected streamedFragment(text: string): string {
    text = this.heldTail + text;
    // Hold a newline that may be the wrapping one, and half a surrogate pair (escaping it alone would
    // differ from escaping the whole character, so stream and batch would disagree).
    const last = text.charCodeAt(text.length - 1);
    const hold = (this.syntax.stripOneNewline && last === 10) || isHighSurrogate(last);
    this.heldTail = hold ? text.slice(-1) : '';
    if (hold) text = text.slice(0, -1);
    return text.length > 0 ? escapeFragment(text) : '';
  }

  protected endValue(sink: CallSink, at: number): void {
    if (this.skipValue) return;
    if (this.streamString) {
      const tail = this.heldTail === '\n' && this.syntax.stripOneNewline ? '' : this.heldTail;
      this.argsText += tail ? `${jsonStringFragment(tail)}"` : '"';
      return;
    }
    let raw = this.rawParts.join('');
    if (this.syntax.stripOneNewline && raw.charCodeAt(raw.length - 1) === 10) raw = raw.slice(0, -1);
    if (this.wrapper && this.unwrap(raw, sink, at)) return;
    const coerced = coerceAdmitted(raw, this.admitted!, this.declared, this.syntax.untypedValues);
    this.argsText += `${this.count++ > 0 ? ',' : ''}${JSON.stringify(this.key)}:${coerced.json}`;
    if (coerced.diagnostic) this.warn(sink, coerced.diagnostic.code, `${this.key}: ${coerced.diagnostic.message}`, at);
  }
}
