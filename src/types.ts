// The message model: OpenAI chat format, as users and datasets write it.

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}
/** Content parts other than text are passed through to the template untouched. */
export type ContentPart = TextPart | { type: string; [key: string]: unknown };
export type Content = string | ContentPart[] | null;

export interface ToolCallFunction {
  name: string;
  /** A JSON string (OpenAI wire form) or an object (the form many HF templates expect). */
  arguments: string | Record<string, unknown>;
}

export interface ToolCall {
  id?: string;
  type?: 'function';
  function: ToolCallFunction;
}

export interface Message {
  role: Role | (string & {});
  content?: Content;
  reasoning_content?: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

export interface JsonSchema {
  [key: string]: unknown;
}

export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: JsonSchema; [key: string]: unknown };
}
export type Tool = FunctionTool | { type: string; [key: string]: unknown };

/** What `chatfmt render` reads: a conversation plus template variables. */
export interface Conversation {
  messages: Message[];
  tools?: Tool[] | null;
  documents?: unknown[] | null;
  add_generation_prompt?: boolean;
  [variable: string]: unknown;
}

// ---- Parse output ----

/** An OpenAI tool call as returned by a parser: `arguments` is always a JSON string. */
export interface ParsedToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ParsedMessage {
  role: 'assistant';
  content: string | null;
  reasoning_content: string | null;
  tool_calls: ParsedToolCall[];
  diagnostics: Diagnostic[];
}

/** One OpenAI `chat.completion.chunk` delta, plus chatfmt's optional additions. */
export interface DeltaToolCall {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface Delta {
  content?: string;
  reasoning_content?: string;
  tool_calls?: DeltaToolCall[];
  /**
   * chatfmt addition: indexes of calls that were started in the stream but turned out malformed or
   * truncated. Their raw text follows as `content`; a client drops them, as the batch result does.
   */
  withdrawn_tool_calls?: number[];
  /**
   * chatfmt addition, only with `reportCallEnds`: indexes of calls the parser saw close. A closed call is final (only
   * an open call can be withdrawn), so a consumer that must never show a withdrawn call can release it here.
   */
  tool_call_ends?: number[];
  /** chatfmt addition: diagnostics, in the order they were found. */
  diagnostics?: Diagnostic[];
}

// ---- Diagnostics ----

export type Severity = 'error' | 'warning';

export type ParseCode =
  | 'PARSE_TRUNCATED_CALL'
  | 'PARSE_BAD_ARGS_JSON'
  | 'PARSE_ARGS_NOT_OBJECT'
  | 'PARSE_UNKNOWN_TOOL'
  | 'PARSE_BAD_CALL_SYNTAX'
  | 'PARSE_BAD_HEADER'
  | 'PARSE_UNCLOSED_REASONING'
  | 'PARSE_ARG_TYPE'
  | 'PARSE_DUPLICATE_ARG'
  /**
   * Every argument sat in one undeclared wrapper parameter (`arguments`, `input`), or a call object's `arguments` held
   * JSON text inside a JSON string (double-encoded): the object inside was used instead.
   */
  | 'PARSE_ARGS_UNWRAPPED'
  /**
   * Call markup inside reasoning that was not a call (a draft the model wrote while thinking, closed by the reasoning
   * close, prose, or a parse failure): it stays reasoning text, unexecuted (FORMATS §0.6), and this warning says so.
   */
  | 'PARSE_CALL_IN_REASONING'
  /** The template's family was unknown: calls were read with a grammar derived from probe renders. */
  | 'PARSE_GRAMMAR_DERIVED'
  /** The template's family was taken on weak evidence (few probes alike, or markers only) as nothing better was found. */
  | 'PARSE_FAMILY_UNVERIFIED'
  /**
   * Parsing with a response template (`output: 'openai'`): an error = the template's parser raised (transformers would
   * throw), the unparsed raw text follows as content; a warning = the OpenAI message differs from transformers' dict
   * (a non-repeating field overwritten by a later region keeps both texts here).
   */
  | 'PARSE_RESPONSE_TEMPLATE'
  /** `chatfmt serve --repair lenient`: a bare or fenced JSON call to a declared tool, written as text, was taken as a call. */
  | 'PARSE_CALL_RECOVERED'
  /**
   * A call repeated the id of an earlier call in the same output (Kimi-K2 writes its ids, `functions.NAME:IDX`, and
   * can write one twice): it got a fresh one, so every result still pairs with one call.
   */
  | 'PARSE_DUPLICATE_CALL_ID'
  /** More diagnostics than MAX_DIAGNOSTICS (a model looping on a broken marker): the rest are counted, not listed. */
  | 'PARSE_TOO_MANY_DIAGNOSTICS';

export interface Diagnostic {
  code: ParseCode;
  severity: Severity;
  message: string;
  /** Character offsets into the parsed completion text (prefix excluded): [start, end). */
  span?: [number, number];
  family?: string;
}
