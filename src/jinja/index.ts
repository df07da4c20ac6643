// chatfmt's Jinja engine: jinja2 semantics as transformers configures it (sandbox, trim_blocks, lstrip_blocks,
// loop controls, json.dumps-style tojson, raise_exception, strftime_now, {% generation %}), compiled to closures.
//
// Values are plain JS data read as Python values: null = None, boolean = bool, an integer-valued number or a
// bigint = int, any other number or a PyFloat = float, string = str (measured in code points), array = list,
// plain object or Map = dict (insertion order; parsePythonJson returns a Map when JS objects would reorder keys).
// A variable that is missing or set to undefined is jinja2's Undefined.
import type { Stmt } from './ast.js';
import { resolveLimits, withBudget, type RenderLimits } from './budget.js';
import { Compiler, runBody } from './compile.js';
import { hasGeneration } from './compile-support.js';
import { toJinjaError } from './errors.js';
import { dumpJson } from './json-write.js';
import { normalizeSource, tokenize } from './lexer.js';
import { decodeParsedForm, encodeParsedForm } from './parsed-form.js';
import { Parser } from './parser.js';
import { pyRepr } from './repr.js';
import { GLOBALS, RenderState, withClock, type RenderClock } from './runtime.js';

export { PyFloat } from './values.js';
export { DEFAULT_LIMITS, type RenderLimits } from './budget.js';
export { parsePythonJson, needsPythonReader, JsonNestingError } from './json.js';
export { shareJson } from './reuse.js';
export { JinjaError } from './errors.js';

export interface PythonJsonDumpsOptions {
  ensureAscii?: boolean;
  /** Spaces (number) or an indent string, as json.dumps(indent=...). */
  indent?: number | string | null;
  /** [item separator, key separator]; default [', ', ': '] (',' when indenting). */
  separators?: [string, string];
  sortKeys?: boolean;
}

/** Python json.dumps(value, ensure_ascii=False) by default: `1.0` (PyFloat) stays `1.0`, bigint ints stay exact. */
export function pythonJsonDumps(value: unknown, options: PythonJsonDumpsOptions = {}): string {
  const indent = typeof options.indent === 'number' ? ' '.repeat(Math.max(0, options.indent)) : (options.indent ?? null);
  return dumpJson(value, {
    ensureAscii: options.ensureAscii ?? false,
    indent,
    itemSeparator: options.separators?.[0],
    keySeparator: options.separators?.[1],
    sortKeys: options.sortKeys ?? false,
  });
}

export interface CompileOptions {
  /** Template name used in error messages (file path / family id). */
  name?: string;
  /**
   * The template's parsed form from parseTemplateForm: the template is built from it instead of lexing and parsing
   * the source. A form made from another source, in another form layout, or damaged, is ignored (the source is
   * parsed); a well-formed one holding this source is trusted as the source is.
   */
  parsed?: string;
}
export interface JinjaRenderOptions {
  /** Clock for strftime_now; its UTC fields are formatted. Default: the current local wall-clock time. */
  now?: Date;
  /** Lower (or raise) the render's safety limits; exceeding one is a TEMPLATE_LIMIT error. */
  limits?: Partial<RenderLimits>;
  /**
   * Default true: a macro call or a top-level loop whose inputs (arguments, the names it reads, the list it walks)
   * equal those of an earlier render of this compiled template gives that render's text instead of running again;
   * the text is the same either way. false runs every block (to time the interpreter, say).
   */
  reuse?: boolean;
}
export interface JinjaRenderResult {
  text: string;
  /** UTF-16 offsets [start, end) of the output of each top-level {% generation %} block. */
  generationSpans: Array<[number, number]>;
  /** True when the text holds what strftime_now gave the template: the render's date (today's, unless `now` is given). */
  readsClock: boolean;
}
export interface CompiledTemplate {
  readonly name: string;
  readonly source: string;
  readonly hasGenerationBlocks: boolean;
  render(variables: Record<string, unknown>, options?: JinjaRenderOptions): JinjaRenderResult;
}

/** Python repr() of a template value, e.g. for diagnostics. */
export function pythonRepr(value: unknown): string {
  return pyRepr(value);
}

class Template implements CompiledTemplate {
  readonly hasGenerationBlocks: boolean;
  private readonly body: ReturnType<Compiler['body']>;
  private readonly slots: Compiler['slots'];

  constructor(
    readonly name: string,
    readonly source: string,
    parsed: string | undefined,
  ) {
    let built: ReturnType<typeof buildFrom>;
    try {
      const src = normalizeSource(source);
      built = (parsed === undefined ? undefined : buildFromForm(src, parsed)) ?? buildFrom(src, parseSource(src));
    } catch (error) {
      throw toJinjaError(error, name);
    }
    this.hasGenerationBlocks = built.hasGenerationBlocks;
    this.body = built.body;
    this.slots = built.slots;
  }

  render(variables: Record<string, unknown>, options: JinjaRenderOptions = {}): JinjaRenderResult {
    const root = this.slots.root(variables ?? {}, GLOBALS);
    const state = new RenderState(options.now, resolveLimits(options.limits), root, options.reuse !== false);
    const clock: RenderClock = { now: options.now, readings: [] };
    try {
      withBudget(state.budget, () => withClock(clock, () => runBody(this.body, state, root)));
    } catch (error) {
      throw toJinjaError(error, this.name);
    }
    // A date read but never written (Mistral's, when the row has its own system prompt) leaves the text as it is.
    const readsClock = clock.readings.some((reading) => reading.trim() !== '' && state.out.includes(reading));
    return { text: state.out, generationSpans: state.spans, readsClock };
  }
}

function parseSource(src: string): Stmt[] {
  return new Parser(tokenize(src), src).parseTemplate();
}

function buildFrom(src: string, ast: Stmt[]) {
  const compiler = new Compiler(src, ast);
  return { hasGenerationBlocks: hasGeneration(ast), body: compiler.body(ast), slots: compiler.slots };
}

/** The template built from a parsed form of `src`; undefined when the form is not one (the caller parses `src`). */
function buildFromForm(src: string, parsed: string): ReturnType<typeof buildFrom> | undefined {
  const ast = decodeParsedForm(src, parsed);
  if (ast === undefined) return undefined;
  try {
    return buildFrom(src, ast);
  } catch {
    // A tree the compiler rejects is not one the parser made from this source.
    return undefined;
  }
}

/**
 * The template's parsed form, as text to keep (a file, a build): passed back as compileTemplate's `parsed` option
 * with the same source, a later process skips lexing and parsing. Throws JinjaError (TEMPLATE_SYNTAX) as
 * compileTemplate does.
 */
export function parseTemplateForm(source: string, options: Pick<CompileOptions, 'name'> = {}): string {
  const src = normalizeSource(source);
  try {
    return encodeParsedForm(src, parseSource(src));
  } catch (error) {
    throw toJinjaError(error, options.name ?? '<string>');
  }
}

const CACHE_SIZE = 64;
const cache = new Map<string, Template>();

/** Compiles a template once; cached by source and name. Throws JinjaError (TEMPLATE_SYNTAX) on syntax errors. */
export function compileTemplate(source: string, options: CompileOptions = {}): CompiledTemplate {
  const name = options.name ?? '<string>';
  const key = `${name}\u0000${source}`;
  let template = cache.get(key);
  if (template) {
    cache.delete(key);
    cache.set(key, template);
    return template;
  }
  template = new Template(name, source, options.parsed);
  cache.set(key, template);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return template;
}
