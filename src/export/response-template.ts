import { ChatfmtError } from '../errors.js';
import { familyIds, resolveFamilyId, type FamilyId } from '../families/info.js';
import { ASSISTANT_HEADERS } from '../parse/assistant-headers.js';
import type { Grammar } from '../parse/engine/grammar.js';
import { deepseek } from '../parse/grammars/deepseek-markers.js';
import { parserFamilies } from '../registry/index.js';

/**
 * chatfmt's families as transformers response templates. The markers come from each family's grammar (the same data
 * the parser runs on); what the grammar does in code (headers, argument codecs) is described per family below in
 * terms of the template's parsers. Every template keeps chatfmt's text convention: each piece of content or reasoning
 * is trimmed and the pieces are concatenated (`repeats` + `join: ""`), so text around calls is not overwritten.
 */

export type ExportVerdict = 'exact' | 'partial';

export interface ExportedResponseTemplate {
  family: FamilyId;
  /** The `response_template` dict: no keys transformers would reject. */
  template: Record<string, unknown>;
  /**
   * 'exact': transformers' dict, mapped to OpenAI, equals chatfmt's parse on well-formed output except where a common
   * loss applies (markers inside arguments, text after a stop string, drafts in closed reasoning); 'partial': the
   * family's own losses (listed first) apply too.
   */
  verdict: ExportVerdict;
  /** What the template does differently from chatfmt's parser; never empty (the common gaps come last). */
  losses: string[];
}

/** Gaps every exported template has, because of what response templates are. */
export const COMMON_LOSSES: readonly string[] = [
  'no call ids (transformers emits none; chatfmt mints call_… ids when mapping to OpenAI) and no call index',
  'a malformed or truncated call makes transformers raise (ValueError) instead of keeping its raw text as content with a diagnostic',
  'tools= casts arguments with Python int()/float() and never un-types a value; chatfmt types by JSON Schema',
  'a marker written inside an argument (a JSON string or a raw value) is still a marker: a call close there ends the call early',
  'text after a stop string is joined to the text before it without the whitespace between them',
  'call markup inside a closed reasoning block (a draft, or prose naming the marker) ends the reasoning there instead of staying reasoning',
  'content and reasoning use `repeats` + `join`, which vLLM\'s response-template adapter does not accept (transformers does)',
];

const SYNTAX = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);

/** A literal inside a pattern: only regex syntax is escaped, so Python `regex` and JavaScript read it alike. */
function lit(text: string): string {
  let out = '';
  for (const char of text) out += SYNTAX.has(char) ? `\\${char}` : char;
  return out;
}

function anyOf(texts: readonly string[]): string {
  const unique = [...new Set(texts)];
  return unique.length === 1 ? lit(unique[0]!) : `(?:${unique.map(lit).join('|')})`;
}

type Field = Record<string, unknown>;

const CALL_TRANSFORM = { type: 'function', function: { name: '{name}', arguments: '{content}' } };

/** How a family's call looks, in template terms. */
interface CallShape {
  /** Pattern after the call opener (and optional section opener) up to the arguments; captures `name` (and `id`). */
  header: string;
  /** Replaces the grammar's call opener alternatives (default: the grammar's `call.open`). */
  opener?: string;
  close: Field;
  args: Field;
  transform?: unknown;
}

interface FamilyPlan {
  /** Every family with a grammar has one; harmony's template is written out whole. */
  call?: CallShape;
  verdict: ExportVerdict;
  losses: string[];
  /** Literal anchors beyond the assistant header (prompts that end after a tool result). */
  anchors?: string[];
  /** Optional section openers before the call opener (default: the grammar's section opens). */
  section?: string[];
}

const xmlParameter = (valueNewline: boolean): Field => ({
  content: 'xml-inline',
  content_args: {
    tag_pattern: valueNewline
      ? '<parameter=(?P<key>[^>\\n]+)>\\n?(?P<value>.*?)\\n?</parameter>'
      : '<parameter=(?P<key>[^>\\n]+)>(?P<value>.*?)</parameter>',
  },
});

const REEMITTED_THINK = 'a <think> the model writes again after a <think> prefill stays in the reasoning text';
const UNTYPED = 'values stay strings unless tools= types them (chatfmt also types plain JSON literals without a schema)';
const PYTHON_LITERALS = 'Python-literal values ({\'timeout\': 5}, [\'a\']) stay strings (chatfmt reads them for object and array parameters)';

const PLANS: Record<FamilyId, FamilyPlan> = {
  hermes: hermesPlan(),
  'qwen2.5': hermesPlan(),
  qwen3: hermesPlan(),
  'qwen3-coder': {
    call: { header: '<function=(?P<name>[^>\\n]+)>', opener: '(?:<tool_call>\\s*)?', close: { close: ['</function>'] }, args: xmlParameter(true) },
    verdict: 'partial',
    losses: [
      UNTYPED,
      PYTHON_LITERALS,
      'a parameter without </parameter> is not recovered (the call loses it)',
      'a stray </tool_call> in text is dropped (it closes content, so that calls written without <tool_call> also parse)',
    ],
  },
  'deepseek-v3.1': {
    call: {
      header: `\\s*(?P<name>[^\\s<]+)\\s*${anyOf(deepseek.sep)}`,
      close: { close: [...deepseek.callEnd] },
      args: { content: 'json' },
    },
    verdict: 'exact',
    losses: [],
    anchors: ['<｜tool▁output▁end｜>'],
  },
  'deepseek-r1': {
    call: {
      header: `[^<]*${anyOf(deepseek.sep)}(?P<name>[^\\n\`]+?)\\s*\`\`\`[^\\n]*\\n`,
      close: { close_pattern: `\\s*\`\`\`\\s*${anyOf(deepseek.callEnd)}` },
      args: { content: 'json' },
    },
    verdict: 'partial',
    losses: ['a call without its ```json fence is not recognised (it stays content)', REEMITTED_THINK],
    anchors: ['<｜tool▁outputs▁end｜>'],
    // Some distills write the short `<｜tool▁calls｜>` before the call opener, as a section opener.
    section: [...deepseek.callsBegin, deepseek.callsShort],
  },
  'kimi-k2': {
    call: {
      header: '\\s*(?P<id>(?:functions\\.)?(?P<name>[^<\\s]+):\\d+)\\s*<\\|tool_call_argument_begin\\|>',
      close: { close: ['<|tool_call_end|>'] },
      args: { content: 'json' },
      transform: { id: '{id}', ...CALL_TRANSFORM },
    },
    verdict: 'partial',
    losses: ['a bare counter id (`functions.0`) naming the only declared tool is not a call (it stays content)', 'ids are kept in the dict as `id` (vLLM\'s adapter drops them)'],
  },
  'gpt-oss': {
    verdict: 'partial',
    losses: [
      'builtin recipients (python, browser.*, container.*) are not calls, and their messages are dropped',
      'a zero-argument call with an empty body makes transformers raise (chatfmt reads it as {})',
      '`json` glued to the function name is not split off',
      'text outside messages (free text where a header belongs) is dropped instead of kept with a PARSE_BAD_HEADER diagnostic',
      'messages of one field (a commentary preamble and the final answer) are joined with no blank line between them',
    ],
  },
  'glm-4.5': {
    call: {
      header: '\\s*(?P<name>[^\\s<]+)\\s*',
      close: { close: ['</tool_call>'] },
      args: { content: 'xml-inline', content_args: { tag_pattern: '<arg_key>\\s*(?P<key>.*?)\\s*</arg_key>\\s*<arg_value>(?P<value>.*?)</arg_value>' } },
    },
    verdict: 'partial',
    losses: [UNTYPED],
  },
  'seed-oss': {
    call: { header: '\\s*<function=(?P<name>[^>\\n]+)>', close: { close_pattern: '</function>\\s*</seed:tool_call>' }, args: xmlParameter(true) },
    verdict: 'partial',
    losses: [UNTYPED, PYTHON_LITERALS, '<seed:cot_budget_reflect> blocks written in content stay content (chatfmt moves them to reasoning)'],
  },
  'minimax-m2': {
    call: {
      header: '(?P<name>[^"]+)">',
      close: { close: ['</invoke>'] },
      args: { content: 'xml-inline', content_args: { tag_pattern: '<parameter name="(?P<key>[^"]+)">(?P<value>.*?)</parameter>' } },
    },
    verdict: 'partial',
    losses: [UNTYPED],
  },
  'gemma-4': {
    call: {
      header: ':?call:(?P<name>[^{<\\s]+)(?=\\{)',
      // Models sometimes end a call with the turn's end instead of its close (FORMATS-NEXT §1 edge case 5).
      close: { close: ['<tool_call|>', '<turn|>'] },
      // transformers' own Gemma 4 template reads the object notation this way.
      args: { content: 'json', content_args: { unquoted_keys: true, string_delims: [['<|"|>', '<|"|>']] } },
    },
    verdict: 'partial',
    losses: [
      'a `None` argument value (how the launch and 2026-04 templates print null) makes transformers raise (chatfmt reads it as null, with a diagnostic)',
      'keys with characters outside \\w (`my-key:`) or with whitespace before them are not quoted, so transformers raises',
      'a doubled `<|channel>` before the `thought⏎` label keeps the second opener and the label in the reasoning',
      'a call with no braces at all (`call:f<tool_call|>`) stays content (chatfmt reads it as a call with {})',
    ],
    // After tool results the model continues its own turn.
    anchors: ['<tool_response|>'],
  },
  'deepseek-v3.2': {
    call: {
      header: '(?P<name>[^"]+)">',
      close: { close: ['</｜DSML｜invoke>'] },
      args: { content: 'xml-inline', content_args: { tag_pattern: '<｜DSML｜parameter name="(?P<key>[^"]+)"(?:\\s+string="(?:true|false)")?\\s*>(?P<value>.*?)</｜DSML｜parameter>' } },
    },
    verdict: 'partial',
    losses: [
      '`string="false"` values stay strings unless tools= types them (JSON numbers, lists and objects; chatfmt decodes them without a schema)',
      'tools= skips `string` in a type list, so a `string="true"` value is cast to another type the schema allows (`null` for a nullable string becomes null; chatfmt keeps the text wherever the schema allows a string)',
      'a parameter written twice keeps its last value (chatfmt keeps the first)',
      'a parameter without its `</｜DSML｜parameter>` is lost',
      'arguments wrapped in one undeclared `arguments`/`input` parameter are not unwrapped',
    ],
    // After tool results the model continues right after the results block.
    anchors: ['</function_results>'],
  },
  mistral: {
    call: {
      // v11+: the id, when written, is kept; `NAME{…}` is what remains when a detokenizer dropped `[ARGS]`. Every
      // alternative captures `id` (empty when absent) so the transform always finds it.
      header: '\\s*(?P<name>[^\\[{\\s]+)\\s*(?:\\[CALL_ID\\](?P<id>[^\\[]*)\\[ARGS\\]|(?P<id>)\\[ARGS\\]|(?P<id>)(?=\\{))',
      // No closer: a call ends after a `}` where the next call or the end of the turn starts, or where a line of
      // text follows (a line that starts with `}`, `]` or `,` still belongs to pretty-printed JSON).
      close: { close_pattern: '(?<=\\})(?=\\s*(?:\\[TOOL_CALLS\\]|</s>)|[^\\S\\n]*\\n\\s*[^\\s\\}\\],])' },
      args: { content: 'json' },
      transform: { id: '{id}', ...CALL_TRANSFORM },
    },
    verdict: 'partial',
    losses: [
      'the v3/v7 list form `[TOOL_CALLS] [{"name": …, "arguments": …}]` is not read (it stays content): the one `tool_calls` field holds the v11 form, one region per call, and cannot also split a list',
      'text right after a call\'s JSON on the same line makes transformers raise (a call ends at the next `[TOOL_CALLS]`, `</s>` or line of text)',
      'a call without `[CALL_ID]` carries `id: ""` in the dict (chatfmt mints one)',
    ],
  },
  'llama-3': {
    call: {
      // A call stands at the start, after `<|python_tag|>`, or right after the previous call (past a `;`).
      opener: '(?:^|(?<=\\})|<\\|python_tag\\|>)\\s*;?\\s*',
      header: '\\{\\s*"name"\\s*:\\s*"(?P<name>[^"]+)"\\s*,\\s*"(?:parameters|arguments)"\\s*:\\s*',
      // The close takes the call object's own `}`, so the body is the arguments object alone. That `}` ends the output,
      // or is followed by something no JSON continues with (`;`, the next call, a stop token, text). `\\Z` only
      // outside the lookahead: inside it, partial matching would pass it at every buffer end (§8).
      close: { close_pattern: '\\s*\\}(?:\\s*\\Z|(?=\\s*[^\\s,\\}\\]]))' },
      args: { content: 'json' },
    },
    verdict: 'partial',
    losses: [
      'built-in calls after <|python_tag|> (`brave_search.call(query="…")`) and raw interpreter code stay content: their arguments are not JSON, and a field has one content parser',
      'a call object that writes "parameters"/"arguments" before "name" is not a call (it stays content)',
      'a call object right after prose that ends with `}` is read as a call (chatfmt reads calls only at the start, after <|python_tag|> or after a call)',
    ],
  },
};

function hermesPlan(): FamilyPlan {
  return {
    call: { header: '', close: { close: ['</tool_call>'] }, args: { content: 'json' }, transform: { type: 'function', function: '{content}' } },
    verdict: 'partial',
    losses: ['the `"parameters"` key some models write for `"arguments"` stays `parameters` in the dict (chatfmt\'s OpenAI mapping reads it; other consumers may not)', REEMITTED_THINK],
  };
}

/** A text field in chatfmt's convention: every piece trimmed, pieces concatenated. */
const pieces = { content: 'text', repeats: true, join: '' };

function grammarTemplate(id: FamilyId, grammar: Grammar, plan: FamilyPlan, call: CallShape): Record<string, unknown> {
  const { header, also = [] } = ASSISTANT_HEADERS[id];
  // A prompt that closes reasoning (DeepSeek-V3.1's non-thinking `</think>`, a Seed budget-0 prefill) is prompt, not
  // output: anchoring after the close keeps its reasoning out of the dict and its close out of content.
  const anchors = [header, ...also, ...(grammar.reasoning?.close ?? []), ...(plan.anchors ?? [])];
  const sectionOpens = plan.section ?? grammar.section?.open;
  const callOpeners = [...(sectionOpens ?? []), ...grammar.call.open, ...(grammar.bareOpen ?? [])];
  const section = sectionOpens ? `(?:${anyOf(sectionOpens)}\\s*)?` : '';
  const opener = call.opener ?? anyOf(grammar.call.open);
  const fields: Record<string, Field> = {};
  if (grammar.reasoning) {
    const { open } = grammar.reasoning;
    // A stop string ends reasoning that was never closed, as it ends content.
    const close = [...grammar.reasoning.close, ...grammar.stopStrings];
    fields.thinking = {
      ...thinkingOpen(open, grammar.reasoningLabel),
      // FORMATS §0.6: a call opening inside open reasoning ends it, unless the family's reasoning holds calls.
      ...(grammar.reasoningHoldsCalls ? { close } : { close_pattern: `${anyOf(close)}|(?=${anyOf(callOpeners)})` }),
      ...pieces,
    };
  }
  const open = `${section}${opener}${call.header}`;
  fields.tool_calls = {
    // A plain literal opener (Hermes' `<tool_call>`) is written as one.
    ...(open === anyOf(grammar.call.open) && grammar.call.open.length === 1 ? { open: grammar.call.open[0] } : { open_pattern: open }),
    ...call.close,
    repeats: true,
    ...call.args,
    transform: call.transform ?? CALL_TRANSFORM,
  };
  // Content is the implicit field; stop strings, section closes and (for bare calls) the call close end a piece.
  const contentCloses = [...grammar.stopStrings, ...(grammar.section?.close ?? []), ...(grammar.bareOpen ? grammar.call.close : [])];
  fields.content = { close: [...new Set(contentCloses)], ...pieces };
  return { defaults: { role: 'assistant' }, start_anchor: [...new Set(anchors)], fields };
}

/**
 * A reasoning label (Gemma's `thought⏎`) belongs to the opener, but only whole: `<|channel>thousand…` keeps its text.
 * The bare opener is taken only where the next character leaves the label. A positive lookahead on purpose: under
 * partial matching a negative one (or a `\Z`) that runs out of input counts as passing, so a stream that has seen
 * `<|channel>thou` would commit the bare opener at once (§8). An opener at the very end of the output stays text.
 */
function thinkingOpen(open: readonly string[], label: string | undefined): Field {
  if (label === undefined) return { open: [...open] };
  const chars = [...label];
  const leaves = chars.map((char, i) => `${lit(chars.slice(0, i).join(''))}[^${classLit(char)}]`);
  return { open_pattern: `${anyOf(open)}${lit(label)}|${anyOf(open)}(?=${leaves.join('|')})` };
}

function classLit(char: string): string {
  return char === '\n' ? '\\n' : '\\]^-['.includes(char) ? `\\${char}` : char;
}

/** Harmony (FORMATS §4): analysis → thinking; final and recipient-less commentary → content; `to=functions.N` → call. */
function harmonyTemplate(): Record<string, unknown> {
  const end = ['<|end|>', '<|return|>'];
  return {
    defaults: { role: 'assistant' },
    start_anchor: ASSISTANT_HEADERS['gpt-oss'].header,
    fields: {
      thinking: { open: ['<|channel|>analysis<|message|>'], close: end, ...pieces },
      tool_calls: {
        // Recipient after the channel (`<|channel|>commentary to=functions.f <|constrain|>json`) or before it
        // (`to=functions.f<|channel|>commentary json`).
        open_pattern: '(?:<\\|channel\\|>\\w+\\s*)?to=functions\\.(?P<name>[^\\s<]+)\\s*(?:<\\|channel\\|>\\w+)?[^<]*(?:<\\|constrain\\|>[^<]*)?<\\|message\\|>',
        close: ['<|call|>', ...end],
        repeats: true,
        content: 'json',
        transform: CALL_TRANSFORM,
      },
      content: { open: ['<|channel|>final<|message|>', '<|channel|>commentary<|message|>'], close: end, ...pieces },
    },
  };
}

/**
 * The family as a response template transformers can run, with what it loses against chatfmt's own parser.
 * Variants (`qwen3-thinking`) export their family's template: their prefill reaches it through `prefix`.
 */
export function exportResponseTemplate(familyId: string): ExportedResponseTemplate {
  const id = resolveFamilyId(familyId);
  if (id === undefined) throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${familyId}" (known: ${familyIds.join(', ')})`);
  const plan = PLANS[id];
  const grammar = parserFamilies[id].grammar;
  const template = grammar && plan.call ? grammarTemplate(id, grammar, plan, plan.call) : harmonyTemplate();
  // A copy: the caller may edit it, and the plans' arrays must not change.
  return { family: id, template: structuredClone(template), verdict: plan.verdict, losses: [...plan.losses, ...COMMON_LOSSES] };
}
