// jinja2's wordwrap: each line of the text wrapped by Python's textwrap.wrap (expand_tabs and replace_whitespace off,
// the other options at their defaults), joined by the wrap string.
import { chargeChars } from './budget.js';
import { PyError } from './errors.js';
import { arg, type Kwargs } from './filter-args.js';
import { pySplitlines, pyStrip } from './methods.js';
import { truncInt } from './numbers.js';
import { pyRepr, pyStr } from './repr.js';
import { codePoints, pyTypeName, truthy } from './values.js';

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

/** re.split with a captured group, empty pieces dropped: the chunks textwrap fills lines with. */
function chunksOf(text: string, breakOnHyphens: boolean): string[][] {
  return text.split(breakOnHyphens ? CHUNK_WITH_HYPHENS : CHUNK_SIMPLE).filter((c) => c !== '' && c !== undefined).map(codePoints);
}

function isBlank(chunk: string[]): boolean {
  return pyStrip(chunk.join(''), null, true, true) === '';
}

/** textwrap's _handle_long_word: the start of a word too long for any line, cut after its last hyphen if it can. */
function cutLongWord(chunks: string[][], line: string[][], lineLength: number, width: number, breakLong: boolean, breakOnHyphens: boolean): void {
  const spaceLeft = width < 1 ? 1 : width - lineLength;
  const chunk = chunks[chunks.length - 1]!;
  if (breakLong) {
    let end = spaceLeft;
    if (breakOnHyphens && chunk.length > spaceLeft) {
      const hyphen = chunk.slice(0, spaceLeft).lastIndexOf('-');
      if (hyphen > 0 && chunk.slice(0, hyphen).some((c) => c !== '-')) end = hyphen + 1;
    }
    line.push(chunk.slice(0, end));
    chunks[chunks.length - 1] = chunk.slice(end);
  } else if (line.length === 0) {
    line.push(chunks.pop()!);
  }
}

/** textwrap.wrap(text, width, expand_tabs=False, replace_whitespace=False, ...) on one line of text. */
function wrapLine(text: string, width: number, breakLong: boolean, breakOnHyphens: boolean): string[] {
  const chunks = chunksOf(text, breakOnHyphens).reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    const line: string[][] = [];
    let length = 0;
    if (lines.length > 0 && isBlank(chunks[chunks.length - 1]!)) chunks.pop();
    while (chunks.length > 0 && length + chunks[chunks.length - 1]!.length <= width) {
      const chunk = chunks.pop()!;
      line.push(chunk);
      length += chunk.length;
    }
    if (chunks.length > 0 && chunks[chunks.length - 1]!.length > width) {
      cutLongWord(chunks, line, length, width, breakLong, breakOnHyphens);
    }
    if (line.length > 0 && isBlank(line[line.length - 1]!)) line.pop();
    if (line.length > 0) lines.push(line.map((c) => c.join('')).join(''));
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
