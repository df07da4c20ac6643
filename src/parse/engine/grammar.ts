import type { ParseCode } from '../../types.js';
import type { ToolIndex } from '../core.js';
import type { MarkerSet } from './markers.js';

/** What a header reader found between the call opener and the arguments. */
export type HeaderResult =
  | { status: 'more' }
  | { status: 'error'; at: number; message: string }
  /** `name` undefined: the argument codec names the call itself (Hermes JSON). */
  | {
      status: 'ok';
      end: number;
      name?: string;
      id?: string;
      /** The header is a call slot that names no function (a Kimi bare counter id): the only declared tool, if one. */
      anonymous?: boolean;
      /** Header text read past without a use (DeepSeek-R1's type word when it is not `function`): a warning names it. */
      warning?: string;
    };

/** Reads a call header from `buf[pos..]`; pure, re-run on the same start until it decides (headers are short). */
export type HeaderReader = (buf: string, pos: number, final: boolean) => HeaderResult;

/** How a codec reports to the machine. Buffer offsets are relative to the `buf` passed to `feed`. */
export interface CallSink {
  /** Validates the name and starts the call; returns why it is not a call, or undefined. */
  start(name: string, id?: string): ParseCode | undefined;
  args(text: string): void;
  warn(code: ParseCode, message: string, at: number): void;
}

/**
 * `next`: the open call (if any) ended at `pos` and the same codec reads further calls (a JSON list of calls): the
 * next call's text starts there. `done` after a `next` ends the structure with no call open.
 */
export type CodecResult =
  | { status: 'more'; pos: number; wake?: Wake }
  | { status: 'done' | 'next'; pos: number }
  | { status: 'error'; pos: number; code: ParseCode; message: string };

/**
 * Attached to 'more' by a codec that holds undecided text it has already examined: feeding it again cannot change
 * anything until one of `markers` (or a prefix of one) arrives, or `within` more characters have. The machine then
 * collects pushes without handing them over, so a long hold is not re-joined and re-searched on every small push.
 */
export interface Wake {
  markers: MarkerSet;
  within: number;
}

/** Turns the wire form of one call's arguments into JSON text, incrementally. One instance per call. */
export interface ArgsCodec {
  /** Consumes from `buf[pos..]` and returns how far it got; `final` = no more text will come. */
  feed(buf: string, pos: number, final: boolean, sink: CallSink): CodecResult;
  /**
   * The fast lane (ParserCore.extend): when all of `chunk` continues the value being streamed and decides nothing (no
   * close, no marker, nothing invalid), consumes it and returns the argument text it settles ('' for none). Otherwise
   * undefined, with nothing changed: the chunk then goes to feed. Given `hold`, a codec may also take a chunk that
   * ends in a possible marker start: it consumes the text before it and sets `hold.chars` to the length of that tail,
   * which the machine keeps (as feed's 'more' would) and offers again in front of the next chunk. A codec that takes
   * `hold` must accept, at the front of a chunk, text its last feed left unconsumed.
   */
  extend?(chunk: string, hold?: LaneHold): string | undefined;
}

/** What a fast-lane chunk left unconsumed at its end (ArgsCodec.extend). */
export interface LaneHold {
  chars: number;
}

export interface CodecContext {
  tools: ToolIndex;
  /** The call's name when the header carried it. */
  name: string | undefined;
  /** Markers that may legally follow the arguments (call close, section close, ...). */
  followers: MarkerSet;
}

export type CodecFactory = (context: CodecContext) => ArgsCodec;

export interface MarkerPair {
  open: readonly string[];
  close: readonly string[];
}

/**
 * A family's tool-call and reasoning syntax as data, run by the one engine (machine.ts):
 * [reasoning] text [section? call+ section?] text, where
 * call := open header args tailOptional* close.
 */
export interface Grammar {
  id: string;
  reasoning?: MarkerPair;
  /**
   * Call markup inside an open reasoning block is reasoning text: only the close ends the block (Mistral's `[THINK]`,
   * as llama.cpp and vLLM read it). By default a call there is tentative and may end reasoning (FORMATS §0.6).
   */
  reasoningHoldsCalls?: boolean;
  /**
   * Text right after a reasoning opener that names the channel and is not reasoning (Gemma's `thought⏎`). Only the
   * whole label is dropped: `<|channel>thousand…` keeps its text. A doubled opener before it is absorbed too.
   */
  reasoningLabel?: string;
  /** A wrapper around consecutive calls (DeepSeek, Kimi). Calls are also accepted without it. */
  section?: MarkerPair;
  /** An empty `close` list: a call ends with its arguments (Llama 3's `<|python_tag|>`, Mistral v11's `[ARGS]{…}`). */
  call: MarkerPair;
  header: HeaderReader;
  args: CodecFactory;
  /**
   * Markers that open a call without its opener (Qwen3-Coder models drop `<tool_call>` and write `<function=…>`): the
   * marker is left for the header to read, and the call ends with its arguments, no close needed.
   */
  bareOpen?: readonly string[];
  /**
   * Bare openers that open a call only where one may stand: before anything else was said, or right after a call
   * (past whitespace or one of `callSeparators`). Elsewhere they are text (Llama 3 writes its JSON call object with
   * no marker, and `{` in prose is prose). Such an opener that does not start a call leaves its text as content with a
   * warning, not an error: nothing claimed it was a call.
   */
  leadingOpen?: readonly string[];
  /** Text between two calls that belongs to neither (Llama 3's `;`): dropped when a call follows, else content. */
  callSeparators?: readonly string[];
  /** Blocks that belong to reasoning even when written in content (Seed-OSS budget reflections). */
  aside?: MarkerPair;
  /** Tokens that may sit between the arguments and the call close (DeepSeek-R1's closing fence). */
  tailOptional?: readonly string[];
  /** Generation stop strings: removed wherever they appear outside call arguments. */
  stopStrings: readonly string[];
  /** What the family's generation prompt leaves open when the caller gives no prefix. */
  defaultPrefix: string;
}

/** A variant of a grammar with other markers: never a copied parser. */
export function withTags(base: Grammar, changes: Partial<Grammar> & { id: string }): Grammar {
  return { ...base, ...changes };
}
