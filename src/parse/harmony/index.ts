// gpt-oss (harmony) behind the parser event protocol of src/parse/core.ts.
//
// Decisions (FORMATS.md §4, LESSONS.md gpt-oss, peer-vectors README #1, #3, #15):
// - Start state from the prompt tail: after `<|start|>assistant` (also the default with no prefix) the
//   completion begins in a header; after `<|message|>`, inside that message; after a terminator, between
//   messages. A completion that itself starts with `<|start|>assistant` is fine.
// - Channels: analysis → reasoning; final and recipient-less commentary → content. `to=functions.NAME`
//   is a call on any channel. Several messages per completion; messages of one field concatenate in
//   order, each message's text trimmed at both ends (the cross-family rule for text around calls).
// - A call body is JSON, validated incrementally and streamed raw; markers inside its strings are text.
//   It ends at `<|call|>`, `<|end|>`, `<|return|>` (or `<|start|>`/`<|channel|>`). Empty body with a
//   terminator → `{}`. At the end of output a complete object is accepted (servers strip the `<|call|>`
//   stop token), an incomplete one is withdrawn (PARSE_TRUNCATED_CALL). Text after a call is kept.
// - Truncated analysis keeps its text with a PARSE_UNCLOSED_REASONING warning; a truncated final or
//   commentary message keeps its text silently (the `<|return|>` stop token is usually stripped).
// - Never throws. Free text where a header belongs, a foreign role, or a header over 256 characters is
//   kept verbatim as content with a PARSE_BAD_HEADER error (harmony's non-strict salvage, vectors
//   `...missing_message_token[non_strict]`). A header that is only structure but has no `<|message|>`
//   (`<|channel|>commentary to=assistant<|end|>`) is dropped with a warning; a repeated `<|channel|>`
//   in one header keeps the last one (llama.cpp L5017/L5025). Decorated channel words (`commentary?`)
//   are read with a warning.
// - Undeclared function (tools given): raw message text as content + PARSE_UNKNOWN_TOOL error. Builtin
//   recipients (`python`, `browser.*`, `container.*`) are calls only if a tool of that exact name is
//   declared; otherwise raw content + PARSE_UNKNOWN_TOOL warning (llama.cpp drops them; we keep text).
// - Not handled: text whose markers were stripped by the detokenizer (`analysis…assistantfinal…`); it
//   becomes content with a PARSE_BAD_HEADER error.

import type { CoreFactory } from '../core.js';
import { createHarmonyMachine } from './machine.js';

export const createHarmonyCore: CoreFactory = (options) => createHarmonyMachine(options);
