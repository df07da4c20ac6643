import { familyInfo } from '../../families/info.js';
import { jsonArgs } from '../engine/codecs/json-args.js';
import type { Grammar, HeaderReader } from '../engine/grammar.js';
import { MAX_HEADER, readUntil, skipHeaderSpace } from '../engine/headers.js';
import { MarkerSet } from '../engine/markers.js';
import { deepseek } from './deepseek-markers.js';

const FENCE = '```';
const separator = new MarkerSet(deepseek.sep);
const nameEnd = new MarkerSet(['\n', FENCE]);
const callBegin = new MarkerSet(deepseek.callBegin);

/** `function<｜tool▁sep｜>NAME\n```json\n`: the type word, the name, then an optional opening fence. */
const r1Header: HeaderReader = (buf, pos, final) => {
  const type = readUntil(buf, pos, separator);
  if (type.status !== 'found') return type.status === 'error' ? { status: 'error', at: type.at, message: 'no tool separator' } : type;
  const nameStart = type.at + type.marker.length;
  const name = readUntil(buf, nameStart, nameEnd);
  if (name.status === 'error') return { status: 'error', at: name.at, message: 'call name without a newline' };
  if (name.status === 'more') return { status: 'more' };
  // White space past MAX_HEADER: no fence follows; the arguments codec reads on from the name.
  let end = skipHeaderSpace(buf, name.at) ?? name.at;
  if (end >= buf.length && !final) return { status: 'more' };
  if (buf.startsWith(FENCE, end)) {
    const info = fenceInfoEnd(buf, end + FENCE.length, final);
    if (info === undefined) return { status: 'more' };
    end = info;
  } else if (!final && buf.length - end < FENCE.length && FENCE.startsWith(buf.slice(end))) {
    return { status: 'more' };
  }
  const word = typeWord(type.text);
  if (word === '' || word === 'function') return { status: 'ok', end, name: name.text.trim() };
  return { status: 'ok', end, name: name.text.trim(), warning: `call type ${JSON.stringify(word)} before the tool separator is not "function"; read as a function call` };
};

/** The header text before the separator, less the call opener that may follow the short section opener. */
function typeWord(text: string): string {
  const word = text.trim();
  const opener = callBegin.at(word, 0);
  return opener ? word.slice(opener.length).trim() : word;
}

/** A fence's info string: a language word (`json`), nothing else on its line. */
const INFO = /^[ \t]*[\w.+#-]*[ \t]*\r?$/;

/**
 * Where the arguments begin after an opening fence: past its info line when that holds only a language word, else
 * right after the fence, so text on that line (`\`\`\`{"a": 1}`, or JSON cut short) reaches the arguments codec instead
 * of being dropped as the info string (the call then read as `{}` with no diagnostic). The line is looked for within
 * MAX_HEADER characters (the reader runs on every push until it decides); undefined: more text is needed.
 */
function fenceInfoEnd(buf: string, from: number, final: boolean): number | undefined {
  const newline = buf.slice(from, from + MAX_HEADER + 1).indexOf('\n');
  if (newline < 0 && !final && buf.length - from <= MAX_HEADER) return undefined;
  const lineEnd = newline < 0 ? Math.min(buf.length, from + MAX_HEADER + 1) : from + newline;
  if (!INFO.test(buf.slice(from, lineEnd))) return from;
  return newline < 0 ? lineEnd : lineEnd + 1;
}

/**
 * `<｜tool▁call▁begin｜>function<｜tool▁sep｜>N\n```json\n{json}\n```<｜tool▁call▁end｜>`, calls joined by `\n`
 * inside `<｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>` (FORMATS §2). The prompt opens `<think>\n`.
 */
export const deepseekR1Grammar: Grammar = {
  id: 'deepseek-r1',
  reasoning: deepseek.think,
  section: { open: deepseek.callsBegin, close: deepseek.callsEnd },
  // The type word before the separator is read loosely, so `<｜tool▁calls｜>function<｜tool▁sep｜>…` also parses.
  call: { open: [...deepseek.callBegin, deepseek.callsShort], close: deepseek.callEnd },
  header: r1Header,
  args: jsonArgs,
  tailOptional: [FENCE],
  stopStrings: familyInfo['deepseek-r1'].stopStrings,
  defaultPrefix: '<think>\n',
};
