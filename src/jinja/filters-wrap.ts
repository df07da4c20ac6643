// jinja2's wordwrap: each line of the text wrapped by Python's textwrap.wrap (expand_tabs and replace_whitespace off,
// the other options at their defaults), joined by the wrap string.
import { chargeChars } from './budget.js';
import { PyError } from './errors.js';
import { arg, type Kwargs } from './filter-args.js';
import { pySplitlines, pyStrip } from './methods.js';
import { truncInt } from './numbers.js';
import { pyRepr, pyStr } from './repr.js';
import { codePoints, isPySpace, pyTypeName, truthy } from './values.js';

// textwrap's whitespace is ASCII only; its \w and letters are Unicode (Python's \w is letters, numbers and `_`).
const WS = '[\\t\\n\\x0b\\x0c\\r ]';
const NON_WS = '[^\\t\\n\\x0b\\x0c\\r ]';
const WORD_PUNCT = '[\\p{L}\\p{N}_!"\'&.,?]';
const LETTER = '[\\p{L}\\p{Nl}\\p{No}_]';
const WORD = '[\\p{L}\\p{N}_]';

/**
 * textwrap.TextWrapper.wordsep_re: whitespace runs, em-dashes between words, and words that end at whitespace, the
 * end, an em-dash, or a hyphen between letters. Its only repetition is a lazy one whose every alternative is tried
 * at the next position, so it stays linear.
 */
const CHUNK_WITH_HYPHENS = new RegExp(
  `(${WS}+|(?<=${WORD_PUNCT})-{2,}(?=${WORD})|${NON_WS}+?(?:-(?:(?<=${LETTER}{2}-)|(?<=${LETTER}-${LETTER}-))(?=${LETTER}-?${LETTER})|(?=${WS}|$)|(?<=${WORD_PUNCT})(?=-{2,}${WORD})))`,
  'u',
);
/** wordsep_simple_re, when break_on_hyphens is off. */
const CHUNK_SIMPLE = new RegExp(`(${WS}+)`, 'u');

/**
 * One of the chunks textwrap fills lines with, as code points. A word too long for any line is cut a line's width at
 * a time: `from` is where its rest starts. textwrap slices the rest off as a new string at every cut, which makes a
 * long word cost its length squared over the width (a megabyte-long word at width 1 ran for minutes); moving `from`
 * makes each cut cost what it takes.
 */
interface Chunk {
  readonly cps: string[];
  from: number;
}

function lengthOf(chunk: Chunk): number {
  return chunk.cps.length - chunk.from;
}

/** The chunk's text from `from` on, for a line. */
function textOf(chunk: Chunk): string {
  return chunk.from === 0 ? chunk.cps.join('') : chunk.cps.slice(chunk.from).join('');
}

/** re.split with a captured group, empty pieces dropped: the chunks textwrap fills lines with. */
function chunksOf(text: string, breakOnHyphens: boolean): Chunk[] {
  return text
    .split(breakOnHyphens ? CHUNK_WITH_HYPHENS : CHUNK_SIMPLE)
    .filter((c) => c !== '' && c !== undefined)
    .map((c) => ({ cps: codePoints(c), from: 0 }));
}

/** `chunk.strip() == ''`, reading only up to the first character strip keeps. */
function isBlank(chunk: Chunk): boolean {
  for (let i = chunk.from; i < chunk.cps.length; i++) if (!isPySpace(chunk.cps[i]!.charCodeAt(0))) return false;
  return true;
}

/** textwrap's _handle_long_word: the start of a word too long for any line, cut after its last hyphen if it can. */
function cutLongWord(chunks: Chunk[], line: string[], lineLength: number, width: number, breakLong: boolean, breakOnHyphens: boolean): void {
  const spaceLeft = width < 1 ? 1 : width - lineLength;
  const chunk = chunks[chunks.length - 1]!;
  const { cps, from } = chunk;
  if (breakLong) {
    let end = spaceLeft;
    if (breakOnHyphens && lengthOf(chunk) > spaceLeft) {
      // chunk.rfind('-', 0, space_left), then any(c != '-' for c in chunk[:hyphen]).
      let hyphen = spaceLeft - 1;
      while (hyphen >= 0 && cps[from + hyphen] !== '-') hyphen--;
      if (hyphen > 0) {
        let i = 0;
        while (i < hyphen && cps[from + i] === '-') i++;
        if (i < hyphen) end = hyphen + 1;
      }
    }
    const cut = Math.min(cps.length, from + end);
    line.push(cps.slice(from, cut).join(''));
    chunk.from = cut;
  } else if (line.length === 0) {
    line.push(textOf(chunks.pop()!));
  }
}

/** textwrap.wrap(text, width, expand_tabs=False, replace_whitespace=False, ...) on one line of text. */
function wrapLine(text: string, width: number, breakLong: boolean, breakOnHyphens: boolean): string[] {
  const chunks = chunksOf(text, breakOnHyphens).reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    const line: string[] = [];
    let length = 0;
    if (lines.length > 0 && isBlank(chunks[chunks.length - 1]!)) chunks.pop();
    while (chunks.length > 0 && length + lengthOf(chunks[chunks.length - 1]!) <= width) {
      const chunk = chunks.pop()!;
      line.push(textOf(chunk));
      length += lengthOf(chunk);
    }
    if (chunks.length > 0 && lengthOf(chunks[chunks.length - 1]!) > width) {
      cutLongWord(chunks, line, length, width, breakLong, breakOnHyphens);
    }
    if (line.length > 0 && pyStrip(line[line.length - 1]!, null, true, true) === '') line.pop();
    if (line.length > 0) lines.push(line.join(''));
  }
  return lines;
}

export function doWordwrap(value: unknown, args: unknown[], kwargs: Kwargs): string {
  // jinja2 calls the value's own splitlines: only a str (or a Markup, unwrapped before this) has one.
  if (typeof value !== 'string') throw new PyError('AttributeError', `'${pyTypeName(value)}' object has no attribute 'splitlines'`);
  const s = value;
  const width = Number(truncInt(arg(args, kwargs, 0, 'width', 79)) ?? 79);
  const breakLong = truthy(arg(args, kwargs, 1, 'break_long_words', true));
  const wrapArg = arg(args, kwargs, 2, 'wrapstring', null);
  const wrapstring = wrapArg === null ? '\n' : pyStr(wrapArg);
  const breakOnHyphens = truthy(arg(args, kwargs, 3, 'break_on_hyphens', true));
  const lines = pySplitlines(s, false);
  if (width <= 0 && lines.length > 0) throw new PyError('ValueError', `invalid width ${pyRepr(width)} (must be > 0)`);
  const wrapped = lines.flatMap((line) => {
    const pieces = wrapLine(line, width, breakLong, breakOnHyphens);
    // A line that wraps to nothing still stands between two wrap strings.
    return pieces.length === 0 ? [''] : pieces;
  });
  let length = wrapstring.length * Math.max(0, wrapped.length - 1);
  for (const piece of wrapped) length += piece.length;
  chargeChars(length);
  return wrapped.join(wrapstring);
}
