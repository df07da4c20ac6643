import type { ArgsCodec, CallSink, CodecFactory, CodecResult } from '../grammar.js';
import { isPlainObject } from '../../../util/guards.js';
import { INVALID, JsonValueScanner, NEED_MORE, tryParseJson } from '../json-scan.js';
import { plainStringEnd } from '../json-runs.js';
import { skipWhitespace } from '../trim.js';
import { streamValue } from './json-args.js';

type State = 'open' | 'key' | 'colon' | 'value' | 'comma';
const ARGUMENT_KEYS = new Set(['arguments', 'parameters']);
/** Longest key or name string accepted (characters). */
const MAX_TOKEN = 4096;

export interface CallObjectOptions {
  /**
   * A key whose string value is the model's own call id (Mistral's `"id"`). The call then starts once both the name
   * and the id are known, or at the object's end: the id may come last, and a call's id is fixed when it starts.
   */
  idKey?: string;
  /**
   * An object without `arguments`/`parameters` is not a call (Llama 3, whose call objects are bare JSON): the call
   * starts only when its arguments begin. Otherwise it starts at the name and a missing key means `{}`.
   */
  requireArguments?: boolean;
  /** The key holding the call's name: `name` unless set (Command-R's action lists write `tool_name`). */
  nameKey?: string;
}

/**
 * `{"name": "N", "arguments": {...}}` (Hermes, Qwen2.5, Qwen3). The call starts when the name string is
 * complete; the raw text of the `arguments` (or `parameters`) value is streamed as it arrives, or buffered
 * until the name is known when it comes first. Arguments serialised as a JSON string are decoded.
 */
export const hermesJson: CodecFactory = callObject({});

/** The codec of one JSON call object, with options (see CallObjectOptions). */
export function callObject(options: CallObjectOptions): CodecFactory {
  return () => callObjectCodec(options);
}

function callObjectCodec(options: CallObjectOptions): ArgsCodec {
  const idKey = options.idKey;
  const nameKey = options.nameKey ?? 'name';
  let state: State = 'open';
  let key: string | undefined;
  let name: string | undefined;
  let id: string | undefined;
  let idSeen = false;
  /** The arguments value has begun (requireArguments waits for it). */
  let argsBegun = false;
  let value: JsonValueScanner | undefined;
  /** How far into a pending (not yet consumed) token the scanner already looked. */
  let tokenScanned = 0;
  let started = false;
  let argsSeen = false;
  let streamingArgs = false;
  /** Whether the value being read is the arguments; decided once when it starts (hot when streaming). */
  let isArgs = false;
  /** The first other key whose value was an object: maybe the arguments misspelt (`"argumets"`), reported if none came. */
  let ignoredObject: string | undefined;
  const argParts: string[] = [];
  let sinkRef: CallSink | undefined;

  return {
    feed(buf, pos, final, sink) {
      sinkRef = sink;
      for (;;) {
        if (state !== 'value' || value === undefined) {
          // Most tokens follow no white space: that case costs no call (a first parse runs this loop unoptimised).
          const code = buf.charCodeAt(pos);
          if (code <= 32 || code >= 0xa0) pos = skipWhitespace(buf, pos);
        }
        if (pos >= buf.length) return { status: 'more', pos };
        const c = buf[pos]!;
        switch (state) {
          case 'open':
            if (c !== '{') return fail(pos, 'expected a JSON object after the call opener');
            pos++;
            state = 'key';
            break;
          case 'key': {
            if (c === '}') return finish(pos + 1, sink);
            if (c !== '"') return fail(pos, 'expected a key string');
            if (value === undefined) {
              // A plain key, whole in the buffer (the usual case), is read in one native match; anything else (an
              // escape, a key cut by the chunk) by the scanner, which keeps its place across chunks.
              const end = plainStringEnd(buf, pos);
              if (end >= 0 && end - pos <= MAX_TOKEN + 1) {
                key = buf.slice(pos + 1, end - 1);
                pos = end;
                state = 'colon';
                break;
              }
              value = new JsonValueScanner();
            }
            const end = scanToken(buf, pos, final, MAX_TOKEN);
            if (end === NEED_MORE) return { status: 'more', pos };
            if (end === INVALID) return fail(value.errorAt, 'invalid or overlong key');
            const parsed = tryParseJson(buf.slice(pos, end));
            if (!parsed.ok) return fail(pos, 'invalid key string');
            key = parsed.value as string;
            value = undefined;
            pos = end;
            state = 'colon';
            break;
          }
          case 'colon':
            if (c !== ':') return fail(pos, 'expected ":"');
            pos++;
            state = 'value';
            break;
          case 'value': {
            if (value === undefined) {
              isArgs = ARGUMENT_KEYS.has(key!) && !argsSeen;
              if (!isArgs && c === '{' && key !== nameKey && key !== idKey) ignoredObject ??= key;
              value = new JsonValueScanner();
              streamingArgs = isArgs && c === '{';
              if (isArgs && c !== '{' && c !== '"') {
                return { status: 'error', pos, code: 'PARSE_ARGS_NOT_OBJECT', message: 'the arguments are not a JSON object' };
              }
              if (isArgs) {
                argsBegun = true;
                const refused = tryStart(pos, sink, false);
                if (refused) return refused;
              }
            }
            if (streamingArgs) {
              const result = streamValue(value, buf, pos, final, emitArgs);
              if (result.status !== 'done') return result;
              pos = result.pos;
            } else if (!isArgs && !(key === nameKey && name === undefined) && !(key === idKey && !idSeen)) {
              // Another key's value: validated and consumed as it arrives, then ignored.
              const end = value.scan(buf, pos, final);
              if (end === INVALID) return fail(value.errorAt, 'invalid JSON in the call object', 'PARSE_BAD_ARGS_JSON');
              if (end === NEED_MORE) return { status: 'more', pos: buf.length };
              pos = end;
            } else {
              const plainEnd = !isArgs && tokenScanned === 0 ? plainStringEnd(buf, pos) : -1;
              if (plainEnd >= 0 && plainEnd - pos <= MAX_TOKEN + 1) {
                // The name (or id) as a plain string, whole in the buffer: its text is its value.
                const outcome = takeString(buf.slice(pos + 1, plainEnd - 1), pos, sink);
                if (outcome) return outcome;
                pos = plainEnd;
                value = undefined;
                state = 'comma';
                break;
              }
              const end = scanToken(buf, pos, final, isArgs ? Number.MAX_SAFE_INTEGER : MAX_TOKEN);
              if (end === NEED_MORE) return { status: 'more', pos };
              if (end === INVALID) return fail(value.errorAt, 'invalid JSON in the call object', 'PARSE_BAD_ARGS_JSON');
              const outcome = takeValue(buf.slice(pos, end), isArgs, pos, sink);
              if (outcome) return outcome;
              pos = end;
            }
            if (isArgs) argsSeen = true;
            value = undefined;
            state = 'comma';
            break;
          }
          case 'comma':
            if (c === '}') return finish(pos + 1, sink);
            if (c !== ',') return fail(pos, 'expected "," or "}"');
            pos++;
            state = 'key';
            break;
        }
      }
    },
    extend(chunk) {
      // Only the streamed arguments of a started call: anything else is held or decides something.
      return started && streamingArgs && value !== undefined && value.extendString(chunk) ? chunk : undefined;
    },
  };

  // The helpers are declared after the return, where the bundle's name-keeping statement for each (esbuild keepNames
  // puts it at the declaration) never runs: a name kept per codec, i.e. per call, cost an Object.defineProperty in
  // every call of a cold first parse.

  /**
   * Scans a whole token (a key, the name, serialised arguments) without consuming it until complete;
   * returns its end, NEED_MORE or INVALID. Keys and names are capped: a pending token is re-joined with
   * each chunk, so an endless one would cost quadratic time.
   */
  function scanToken(buf: string, pos: number, final: boolean, cap: number): number {
    const end = value!.scan(buf, pos + tokenScanned, final);
    if (end === NEED_MORE) tokenScanned = buf.length - pos;
    else tokenScanned = 0;
    // Over the cap whether it closed in this buffer or not (a chunk that brings more than the cap at once must decide
    // as a character-at-a-time stream does), and failing at the same place: right after the cap, not at the end of
    // whatever the buffer holds, so the text after it is read again the same way whatever the chunking.
    // A scanner error past the cap counts as the cap: a stream reaches the cap first (a batch whose last feed is the
    // final one, held back by trailing white space, sees the unterminated string's error instead).
    const over = end === NEED_MORE ? tokenScanned > cap : end === INVALID ? value!.errorAt > pos + cap + 1 : end - pos > cap + 1;
    if (over) {
      tokenScanned = 0;
      value!.errorAt = pos + cap + 1;
      return INVALID;
    }
    return end;
  }

  /** Argument text goes out at once when the name is known, else it waits for the name. */
  function emitArgs(piece: string): void {
    if (started) sinkRef!.args(piece);
    else argParts.push(piece);
  }

  /** A complete non-streamed value: the name, serialised arguments, or an ignored key. */
  function takeValue(text: string, isArgs: boolean, pos: number, sink: CallSink): CodecResult | undefined {
    if (isArgs) {
      // Arguments serialised as a JSON string holding an object.
      const outer = tryParseJson(text);
      const inner = outer.ok && typeof outer.value === 'string' ? tryParseJson(outer.value) : { ok: false as const };
      if (!inner.ok || !isPlainObject(inner.value)) {
        return { status: 'error', pos, code: 'PARSE_ARGS_NOT_OBJECT', message: 'the arguments are not a JSON object' };
      }
      emitArgs((outer as { value: string }).value);
      sink.warn('PARSE_ARGS_UNWRAPPED', 'the arguments were a JSON string holding an object (double-encoded); its object is used', pos);
      return undefined;
    }
    const parsed = tryParseJson(text);
    // An id that is not a string is no id (the caller's generator mints one); a name that is not a string fails.
    if (parsed.ok && typeof parsed.value === 'string') return takeString(parsed.value, pos, sink);
    if (key === idKey && !idSeen) return takeString('', pos, sink);
    return fail(pos, 'the call name is not a string');
  }

  /** The name's or the id's string value. */
  function takeString(text: string, pos: number, sink: CallSink): CodecResult | undefined {
    if (key === idKey && !idSeen) {
      idSeen = true;
      if (text.length > 0) id = text;
    } else name = text;
    return tryStart(pos, sink, false);
  }

  /** Starts the call once its name (and, with an idKey, its id or the object's end) is known. */
  function tryStart(pos: number, sink: CallSink, closing: boolean): CodecResult | undefined {
    if (started || name === undefined) return undefined;
    if (idKey !== undefined && !idSeen && !closing) return undefined;
    if (options.requireArguments && !argsBegun) return undefined;
    const refused = sink.start(name, id);
    if (refused) return { status: 'error', pos, code: refused, message: `not a declared tool: ${name}` };
    started = true;
    if (argParts.length > 0) sink.args(argParts.join(''));
    argParts.length = 0;
    return undefined;
  }

  function finish(pos: number, sink: CallSink): CodecResult {
    // A complete object that is no call is reported at its `}`: a stop string after it is no truncation.
    if (name === undefined) return fail(pos - 1, `the call object has no "${nameKey}"`);
    if (options.requireArguments && !argsBegun) return fail(pos - 1, 'the call object has no "parameters" or "arguments"');
    const refused = tryStart(pos, sink, true);
    if (refused) return refused;
    if (!argsSeen) {
      // The call gets `{}`; an object under another key may have been meant as its arguments, and is not lost silently.
      // Reported at the call object's `}`: a position in this feed's buffer, the same whatever the chunking.
      if (ignoredObject !== undefined) {
        sink.warn('PARSE_BAD_CALL_SYNTAX', `the call object has no "arguments"; the object under ${JSON.stringify(ignoredObject)} was ignored and the call gets {}`, pos - 1);
      }
      sink.args('{}');
    }
    return { status: 'done', pos };
  }
}

function fail(pos: number, message: string, code: 'PARSE_BAD_CALL_SYNTAX' | 'PARSE_BAD_ARGS_JSON' = 'PARSE_BAD_CALL_SYNTAX'): CodecResult {
  return { status: 'error', pos, code, message };
}
