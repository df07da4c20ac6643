// A harmony message header, between `<|start|>` and `<|message|>`:
//   ROLE? [" to=" RECIPIENT] ["<|channel|>" CHANNEL] [" " ["<|constrain|>"] CTYPE], parts in any order.
// Parsed leniently (harmony's non-strict mode): junk is reported, never thrown.

import type { ParseCode, Severity } from '../../types.js';
import type { ToolIndex } from '../core.js';
import { escapeRegExp } from '../engine/markers.js';
import { isWhitespace } from '../engine/trim.js';
import { CHANNEL, CONSTRAIN } from './markers.js';

export type Channel = 'analysis' | 'commentary' | 'final';
const CHANNELS: readonly Channel[] = ['analysis', 'commentary', 'final'];

export interface Header {
  role?: string;
  recipient?: string;
  /** The word after the last `<|channel|>` ('' when nothing follows it). */
  channelWord?: string;
  channelCount: number;
  recipientCount: number;
  contentType?: string;
  constrained: boolean;
  /** Words that fit nowhere in the grammar. */
  junk: string[];
}

type Token = { marker: typeof CHANNEL | typeof CONSTRAIN } | { word: string };

/**
 * A word: up to white space (`\s` is the set isWhitespace tests) or a `<` that opens `<|channel|>` or `<|constrain|>`.
 * One native match: a first parse runs a loop per character in V8's unoptimised tiers. Linear: the two alternatives
 * begin with different characters and the lookaheads are fixed strings.
 */
const WORD = new RegExp(`(?:[^\\s<]|<(?!${escapeRegExp(CHANNEL.slice(1))})(?!${escapeRegExp(CONSTRAIN.slice(1))}))*`, 'y');

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    // ASCII white space tested here, not by a call per character (a first parse runs this unoptimised).
    const code = text.charCodeAt(i);
    if (code === 32 || (code >= 9 && code <= 13) || (code >= 0xa0 && isWhitespace(code))) {
      i++;
      continue;
    }
    const marker = text.startsWith(CHANNEL, i) ? CHANNEL : text.startsWith(CONSTRAIN, i) ? CONSTRAIN : undefined;
    if (marker) {
      tokens.push({ marker });
      i += marker.length;
      continue;
    }
    const start = i;
    WORD.lastIndex = i;
    WORD.test(text);
    i = WORD.lastIndex;
    tokens.push({ word: text.slice(start, i) });
  }
  return tokens;
}

/** `roleFirst`: the header text begins right after `<|start|>`, so its first plain word is the role. */
export function parseHeader(text: string, roleFirst: boolean): Header {
  const tokens = tokenize(text);
  const header: Header = { channelCount: 0, recipientCount: 0, constrained: false, junk: [] };
  let i = 0;
  const first = wordAt(tokens, 0);
  if (roleFirst && first !== undefined && !first.startsWith('to=')) {
    header.role = first;
    i = 1;
  }
  for (; i < tokens.length; i++) {
    const token = tokens[i]!;
    if ('marker' in token) {
      const next = wordAt(tokens, i + 1);
      const usable = next !== undefined && !next.startsWith('to=');
      if (usable) i++;
      if (token.marker === CHANNEL) {
        header.channelCount++;
        header.channelWord = usable ? next : '';
      } else {
        header.constrained = true;
        if (usable && header.contentType === undefined) header.contentType = next;
        else if (usable) header.junk.push(next);
      }
      continue;
    }
    const word = token.word;
    if (word.startsWith('to=')) {
      header.recipientCount++;
      let recipient = word.slice(3);
      const next = wordAt(tokens, i + 1);
      if (recipient === '' && next !== undefined) {
        recipient = next;
        i++;
      }
      header.recipient = recipient;
    } else if (header.contentType === undefined) header.contentType = word;
    else header.junk.push(word);
  }
  return header;
}

// Helpers here are module functions, not closures made per header: the bundle keeps function names, so each closure
// made at run time cost an Object.defineProperty (its name) on top of its allocation, once per message of a parse.

function wordAt(tokens: readonly Token[], index: number): string | undefined {
  const token = tokens[index];
  return token && 'word' in token ? token.word : undefined;
}

/** A known channel word, also when the model decorated it (`commentary?`, `––final`). */
export function resolveChannel(word: string): { channel?: Channel; exact: boolean } {
  let best: Channel | undefined;
  let bestAt = Infinity;
  for (const channel of CHANNELS) {
    if (word === channel) return { channel, exact: true };
    const at = word.indexOf(channel);
    if (at >= 0 && at < bestAt) {
      best = channel;
      bestAt = at;
    }
  }
  return best ? { channel: best, exact: false } : { exact: false };
}

/**
 * A header that says nothing a reader could miss: no free text, only structure. Such a header
 * without `<|message|>` is dropped with a warning; anything else is salvaged as content.
 */
export function isStructureOnly(header: Header, role: string | undefined): boolean {
  if (header.junk.length > 0) return false;
  const typeLooksLikeOne = header.contentType === undefined || header.constrained || /^[a-z][a-z0-9_.+-]*$/.test(header.contentType);
  return typeLooksLikeOne && (header.channelWord !== undefined || header.recipient !== undefined || (role ?? header.role) === 'assistant');
}

export type Route =
  | { kind: 'reasoning' }
  | { kind: 'content' }
  /** Not a call although addressed to a recipient (undeclared tool, builtin, foreign role): header + body become content. */
  | { kind: 'raw' }
  | { kind: 'call'; name: string };

export interface Problem {
  code: ParseCode;
  severity: Severity;
  message: string;
}

const GLUED_TYPE = 'json';

/**
 * Decides what a message is. `fixedRole` is the role the prompt opened (`<|start|>assistant`), if any.
 *
 * Choices (also summarised in index.ts):
 * - `functions.NAME` is a call on any channel (analysis calls: vllm PR#28139). With tools declared, an
 *   undeclared NAME is not a call (error); NAME + glued `json` resolves to NAME when only that is declared.
 *   Without tools, a trailing `json` glued to a letter or digit is stripped when the header has no
 *   content type (llama.cpp PR#15158) — a tool really named `...json` must be declared to survive.
 * - Any other recipient (`python`, `browser.search`, `container.exec`) is a call only when a tool of
 *   exactly that name is declared; otherwise its text stays content with a warning (llama.cpp drops it:
 *   peer disagreement #3; chatfmt never loses text).
 * - `to=assistant` means no recipient. A role other than assistant is a foreign message: raw content, error.
 */
export function routeMessage(header: Header, fixedRole: string | undefined, tools: ToolIndex): { route: Route; problems: Problem[] } {
  const problems: Problem[] = [];
  const role = fixedRole ?? header.role;
  if (role !== undefined && role !== 'assistant') {
    problems.push({ code: 'PARSE_BAD_HEADER', severity: 'error', message: `message from role "${role}" in an assistant completion; kept as text` });
    return { route: { kind: 'raw' }, problems };
  }
  if (header.junk.length > 0) warn(problems, `unexpected text in the message header: ${JSON.stringify(header.junk.join(' '))}`);
  if (header.channelCount > 1) warn(problems, 'several <|channel|> in one header; the last one counts');
  if (header.recipientCount > 1) warn(problems, 'several recipients in one header; the last one counts');

  const recipient = header.recipient === 'assistant' ? undefined : header.recipient;
  if (recipient === '') warn(problems, 'empty recipient (to=) ignored');
  if (recipient) return routeRecipient(recipient, header, tools, problems);

  if (header.channelWord === undefined) {
    warn(problems, 'message without <|channel|>; read as content');
    return { route: { kind: 'content' }, problems };
  }
  const { channel, exact } = resolveChannel(header.channelWord);
  if (!channel) {
    warn(problems, `unknown channel ${JSON.stringify(header.channelWord)}; read as content`);
    return { route: { kind: 'content' }, problems };
  }
  if (!exact) warn(problems, `channel ${JSON.stringify(header.channelWord)} read as "${channel}"`);
  return { route: { kind: channel === 'analysis' ? 'reasoning' : 'content' }, problems };
}

function warn(problems: Problem[], message: string): void {
  problems.push({ code: 'PARSE_BAD_HEADER', severity: 'warning', message });
}

function routeRecipient(recipient: string, header: Header, tools: ToolIndex, problems: Problem[]): { route: Route; problems: Problem[] } {
  if (!recipient.startsWith('functions.')) {
    if (tools.declared && tools.has(recipient)) return callTo(problems, recipient);
    return notACall(problems, 'warning', `recipient "${recipient}" is not a declared function; its message is kept as text`);
  }
  const name = recipient.slice('functions.'.length);
  const stripped = stripGluedType(name);
  if (tools.declared) {
    if (name !== '' && tools.has(name)) return callTo(problems, name);
    if (stripped !== undefined && tools.has(stripped)) {
      problems.push(gluedWarning(name));
      return callTo(problems, stripped);
    }
    return notACall(problems, 'error', `call to undeclared tool "${name}"; kept as text`);
  }
  if (name === '') return notACall(problems, 'error', 'call without a function name; kept as text');
  if (stripped !== undefined && header.contentType === undefined) {
    problems.push(gluedWarning(name));
    return callTo(problems, stripped);
  }
  return callTo(problems, name);
}

function notACall(problems: Problem[], severity: Severity, message: string): { route: Route; problems: Problem[] } {
  problems.push({ code: 'PARSE_UNKNOWN_TOOL', severity, message });
  return { route: { kind: 'raw' }, problems };
}

function callTo(problems: Problem[], name: string): { route: Route; problems: Problem[] } {
  return { route: { kind: 'call', name }, problems };
}

function stripGluedType(name: string): string | undefined {
  if (name.length <= GLUED_TYPE.length || !name.endsWith(GLUED_TYPE)) return undefined;
  const before = name.charCodeAt(name.length - GLUED_TYPE.length - 1);
  const alphanumeric = (before >= 0x30 && before <= 0x39) || (before >= 0x41 && before <= 0x5a) || (before >= 0x61 && before <= 0x7a);
  return alphanumeric ? name.slice(0, -GLUED_TYPE.length) : undefined;
}

function gluedWarning(name: string): Problem {
  return { code: 'PARSE_BAD_HEADER', severity: 'warning', message: `content type glued to the tool name "${name}"; read as "${name.slice(0, -GLUED_TYPE.length)}"` };
}
