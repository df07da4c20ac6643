import { familyInfo } from '../../families/info.js';
import { jsonArgs } from '../engine/codecs/json-args.js';
import type { Grammar, HeaderReader } from '../engine/grammar.js';
import { readUntil } from '../engine/headers.js';
import { MarkerSet } from '../engine/markers.js';
import { skipWhitespace } from '../engine/trim.js';
import { deepseek } from './deepseek-markers.js';

const FENCE = '```';
const separator = new MarkerSet(deepseek.sep);
const nameEnd = new MarkerSet(['\n', FENCE]);

/** `function<｜tool▁sep｜>NAME\n```json\n`: the type word, the name, then an optional opening fence. */
const r1Header: HeaderReader = (buf, pos, final) => {
  const type = readUntil(buf, pos, separator);
  if (type.status !== 'found') return type.status === 'error' ? { status: 'error', at: type.at, message: 'no tool separator' } : type;
  const nameStart = type.at + type.marker.length;
  const name = readUntil(buf, nameStart, nameEnd);
  if (name.status === 'error') return { status: 'error', at: name.at, message: 'call name without a newline' };
  if (name.status === 'more') return { status: 'more' };
  let end = skipWhitespace(buf, name.at);
  if (end >= buf.length && !final) return { status: 'more' };
  if (buf.startsWith(FENCE, end)) {
    const info = buf.indexOf('\n', end);
    if (info < 0) return final ? { status: 'ok', end: buf.length, name: name.text.trim() } : { status: 'more' };
    end = info + 1;
  } else if (!final && buf.length - end < FENCE.length && FENCE.startsWith(buf.slice(end))) {
    return { status: 'more' };
  }
  return { status: 'ok', end, name: name.text.trim() };
};

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
