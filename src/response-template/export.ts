import { ChatfmtError } from '../errors.js';
import { familyIds, resolveFamilyId, type FamilyId } from '../families/info.js';
import { ASSISTANT_HEADERS } from '../parse/assistant-headers.js';
import type { Grammar } from '../parse/engine/grammar.js';
import { deepseek } from '../parse/grammars/deepseek-markers.js';
import { parserFamilies } from '../parse/registry.js';

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

// Families without a plan yet are refused with a clear error (see exportResponseTemplate).
const PLANS: Partial<Record<FamilyId, FamilyPlan>> = {
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
    ],
  },
  'glm-4.5': {
    call: {
      header: '\\s*(?P<name>[^\\s<]+)\\s*',
      close: { close: ['</tool_call>'] },
      args: { content: 'xml-inline', content_args: { tag_pattern: '<arg_key>\\s*(?P<key>.*?)\\s*</arg_key>\\s*<arg_value>\\n?(?P<value>.*?)\\n?</arg_value>' } },
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
  const { header } = ASSISTANT_HEADERS[id];
  // A prompt that closes reasoning (DeepSeek-V3.1's non-thinking `</think>`, a Seed budget-0 prefill) is prompt, not
  // output: anchoring after the close keeps its reasoning out of the dict and its close out of content.
  const anchors = [header, ...(grammar.reasoning?.close ?? []), ...(plan.anchors ?? [])];
  const sectionOpens = plan.section ?? grammar.section?.open;
  const callOpeners = [...(sectionOpens ?? []), ...grammar.call.open, ...(grammar.bareOpen ?? [])];
  const section = sectionOpens ? `(?:${anyOf(sectionOpens)}\\s*)?` : '';
  const opener = call.opener ?? anyOf(grammar.call.open);
  const fields: Record<string, Field> = {};
  if (grammar.reasoning) {
    fields.thinking = {
      open: [...grammar.reasoning.open],
      // FORMATS §0.6: a call opening inside open reasoning ends it.
      close_pattern: `${anyOf(grammar.reasoning.close)}|(?=${anyOf(callOpeners)})`,
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
  if (plan === undefined) throw new ChatfmtError('UNKNOWN_FAMILY', `no response-template export for ${id} yet (exported: ${Object.keys(PLANS).join(', ')})`);
  const grammar = parserFamilies[id].grammar;
  const template = grammar && plan.call ? grammarTemplate(id, grammar, plan, plan.call) : harmonyTemplate();
  // A copy: the caller may edit it, and the plans' arrays must not change.
  return { family: id, template: structuredClone(template), verdict: plan.verdict, losses: [...plan.losses, ...COMMON_LOSSES] };
}
