import fc from 'fast-check';
import type { Tool } from '../../src/types.js';

// Writes well-formed completions in each family's wire format from a structured message, so property
// tests can compare parse results against a known answer. Test scaffolding, not a renderer.

export interface WireCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Text pieces and groups of consecutive calls, in order; optional reasoning first. */
export interface WireMessage {
  reasoning?: string;
  parts: ({ text: string } | { calls: WireCall[] })[];
}

export interface WireCase {
  completion: string;
  prefix?: string;
  tools?: Tool[];
  content: string | null;
  reasoning: string | null;
  calls: (WireCall & { id?: string })[];
}

const names = ['get_weather', 'run_code', 'lookup'] as const;
const keys = ['city', 'code', 'query', 'path'] as const;

/** Every parameter is a declared string, so XML families keep values raw. */
export const wireTools: Tool[] = names.map((name) => ({
  type: 'function',
  function: {
    name,
    parameters: { type: 'object', properties: Object.fromEntries(keys.map((key) => [key, { type: 'string' }])) },
  },
}));

// Prose never contains '<', so it cannot form a marker; values may (they sit inside a call).
const proseChars = fc.constantFrom(...Array.from('abc xyz.,:;!?{}[]"\'\\/=-_\n\té🎉世'));
const valueChars = fc.constantFrom(...Array.from('abc <>{}[]"\'\\/:,=_-\n\té🎉世'), '</b>', '<tool_call>', '<think>', '<|im');

export const proseArbitrary = fc
  .array(proseChars, { minLength: 1, maxLength: 24 })
  .map((chars) => chars.join(''))
  .filter((text) => text.trim() !== '');

const valueArbitrary = fc.array(valueChars, { maxLength: 20 }).map((chars) => chars.join(''));

export const callArbitrary: fc.Arbitrary<WireCall> = fc.record({
  name: fc.constantFrom(...names),
  arguments: fc.dictionary(fc.constantFrom(...keys), valueArbitrary, { maxKeys: 3 }),
});

export function messageArbitrary(withReasoning: boolean): fc.Arbitrary<WireMessage> {
  const part = fc.oneof(
    proseArbitrary.map((text) => ({ text })),
    fc.array(callArbitrary, { minLength: 1, maxLength: 3 }).map((calls) => ({ calls })),
  );
  return fc.record({
    ...(withReasoning ? { reasoning: fc.option(proseArbitrary, { nil: undefined }) } : {}),
    parts: fc.array(part, { maxLength: 4 }).map(mergeAdjacent),
  }) as fc.Arbitrary<WireMessage>;
}

/** Adjacent text pieces are one piece; adjacent call groups one group. */
function mergeAdjacent(parts: WireMessage['parts']): WireMessage['parts'] {
  const merged: WireMessage['parts'] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (last && 'text' in last && 'text' in part) last.text += ' ' + part.text;
    else if (last && 'calls' in last && 'calls' in part) last.calls = [...last.calls, ...part.calls];
    else merged.push({ ...part });
  }
  return merged;
}

interface FamilyWriter {
  reasoning?: (text: string) => { prefix?: string; text: string };
  calls: (calls: WireCall[], firstIndex: number) => string;
  text?: (text: string) => string;
  /** Values must survive the XML codecs: no close tags, no edge newlines where no padding exists. */
  xmlValues?: 'padded' | 'bare';
  /** The prefix for a message without reasoning, where the family's default prefix opens reasoning. */
  plainPrefix?: string;
  /** Prose as the family can write it (Llama 3 reads `{` or `;` right after a call as more calls). */
  prose?: (text: string) => string;
  kimiIds?: boolean;
  /** Between content pieces that are separate messages (harmony: a blank line, issue 16); default none. */
  pieceSeparator?: string;
}

const hermes = (calls: WireCall[]) =>
  calls.map((call) => `<tool_call>\n{"name": "${call.name}", "arguments": ${JSON.stringify(call.arguments)}}\n</tool_call>`).join('\n');
const xmlParams = (call: WireCall, pad: string) =>
  Object.entries(call.arguments).map(([key, value]) => `<parameter=${key}>${pad}${value as string}${pad}</parameter>\n`).join('');

const ds = { SB: '<｜tool▁calls▁begin｜>', SE: '<｜tool▁calls▁end｜>', CB: '<｜tool▁call▁begin｜>', CE: '<｜tool▁call▁end｜>', SEP: '<｜tool▁sep｜>' };

export const wireFamilies: Record<string, FamilyWriter> = {
  hermes: { calls: hermes },
  'qwen2.5': { calls: hermes },
  qwen3: { calls: hermes, reasoning: (text) => ({ text: `<think>\n${text}\n</think>\n\n` }) },
  'qwen3-coder': {
    xmlValues: 'padded',
    calls: (calls) => calls.map((call) => `<tool_call>\n<function=${call.name}>\n${xmlParams(call, '\n')}</function>\n</tool_call>`).join('\n'),
    reasoning: (text) => ({ prefix: '<think>\n', text: `${text}\n</think>\n\n` }),
  },
  'deepseek-v3.1': {
    calls: (calls) => ds.SB + calls.map((call) => `${ds.CB}${call.name}${ds.SEP}${JSON.stringify(call.arguments)}${ds.CE}`).join('') + ds.SE,
    reasoning: (text) => ({ prefix: '<think>', text: `${text}</think>` }),
  },
  'deepseek-r1': {
    calls: (calls) =>
      ds.SB + calls.map((call) => `${ds.CB}function${ds.SEP}${call.name}\n\`\`\`json\n${JSON.stringify(call.arguments)}\n\`\`\`${ds.CE}`).join('\n') + ds.SE,
    reasoning: (text) => ({ prefix: '<think>\n', text: `${text}\n</think>\n\n` }),
    plainPrefix: '<think>\n\n</think>\n\n',
  },
  'kimi-k2': {
    kimiIds: true,
    calls: (calls, first) =>
      '<|tool_calls_section_begin|>' +
      calls
        .map((call, i) => `<|tool_call_begin|>functions.${call.name}:${first + i}<|tool_call_argument_begin|>${JSON.stringify(call.arguments)}<|tool_call_end|>`)
        .join('') +
      '<|tool_calls_section_end|>',
    reasoning: (text) => ({ text: `<think>${text}</think>` }),
  },
  'gpt-oss': {
    pieceSeparator: '\n\n',
    text: (text) => `<|start|>assistant<|channel|>final<|message|>${text}<|end|>`,
    calls: (calls) =>
      calls
        .map((call) => `<|start|>assistant<|channel|>commentary to=functions.${call.name} <|constrain|>json<|message|>${JSON.stringify(call.arguments)}<|call|>`)
        .join(''),
    reasoning: (text) => ({ text: `<|start|>assistant<|channel|>analysis<|message|>${text}<|end|>` }),
  },
  'glm-4.5': {
    xmlValues: 'bare',
    calls: (calls) =>
      calls
        .map((call) => {
          const args = Object.entries(call.arguments).map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v as string}</arg_value>\n`);
          return `<tool_call>${call.name}${args.length ? '\n' : ''}${args.join('')}</tool_call>`;
        })
        .join('\n'),
    reasoning: (text) => ({ text: `\n<think>${text}</think>\n` }),
  },
  'deepseek-v3.2': {
    // Values are verbatim (nothing strips an edge newline), so they fit like padded ones.
    xmlValues: 'padded',
    calls: (calls) =>
      '<｜DSML｜function_calls>\n' +
      calls
        .map((call) => `<｜DSML｜invoke name="${call.name}">\n${Object.entries(call.arguments).map(([k, v]) => `<｜DSML｜parameter name="${k}" string="true">${v as string}</｜DSML｜parameter>\n`).join('')}</｜DSML｜invoke>\n`)
        .join('') +
      '</｜DSML｜function_calls>',
    reasoning: (text) => ({ prefix: '<think>', text: `${text}</think>` }),
    plainPrefix: '</think>',
  },
  'minimax-m2': {
    xmlValues: 'bare',
    calls: (calls) =>
      '<minimax:tool_call>\n' +
      calls
        .map((call) => `<invoke name="${call.name}">\n${Object.entries(call.arguments).map(([k, v]) => `<parameter name="${k}">${v as string}</parameter>\n`).join('')}</invoke>\n`)
        .join('') +
      '</minimax:tool_call>',
    reasoning: (text) => ({ prefix: '<think>\n', text: `${text}\n</think>\n\n` }),
    plainPrefix: '',
  },
  'llama-3': {
    // Calls after prose need the tag; separators vary over the forms peers accept.
    calls: (calls, first) =>
      '<|python_tag|>' + calls.map((call, i) => (i > 0 ? ['; ', ';\n', '\n', ';'][(first + i) % 4] : '') + `{"name": "${call.name}", "parameters": ${JSON.stringify(call.arguments)}}`).join(''),
    prose: (text) => `Then:${text}`,
  },
  mistral: {
    // v11+ (one opener per call) for groups starting at an even index, the v3/v7 JSON list for the others.
    calls: (calls, firstIndex) =>
      firstIndex % 2 === 0
        ? calls.map((call) => `[TOOL_CALLS]${call.name}[ARGS]${JSON.stringify(call.arguments)}`).join('')
        : `[TOOL_CALLS] [${calls.map((call) => JSON.stringify({ arguments: call.arguments, name: call.name })).join(', ')}]`,
    reasoning: (text) => ({ text: `[THINK]${text}[/THINK]` }),
  },
  'gemma-4': {
    // Values are strings written between <|"|> delimiters: raw, nothing escaped (no generated value holds <|"|>).
    calls: (calls) =>
      calls.map((call) => `<|tool_call>call:${call.name}{${Object.entries(call.arguments).map(([k, v]) => `${k}:<|"|>${v as string}<|"|>`).join(',')}}<tool_call|>`).join(''),
    reasoning: (text) => ({ text: `<|channel>thought\n${text}<channel|>` }),
  },
  'seed-oss': {
    xmlValues: 'bare',
    calls: (calls) => calls.map((call) => `<seed:tool_call>\n<function=${call.name}>\n${xmlParams(call, '')}</function>\n</seed:tool_call>`).join('\n'),
    reasoning: (text) => ({ text: `<seed:think>${text}</seed:think>\n` }),
  },
};

/** Can this value be written raw in the family's XML syntax and read back unchanged? */
export function valueFits(family: string, value: unknown): boolean {
  const mode = wireFamilies[family]?.xmlValues;
  if (!mode || typeof value !== 'string') return true;
  if (value.includes('</') || value.includes('<parameter') || value.includes('<arg_') || value.includes('<function')) return false;
  // Exactly one edge newline is stripped; without template padding an edge newline would be eaten.
  return mode === 'padded' || (!value.startsWith('\n') && !value.endsWith('\n'));
}

/** The completion for `message` in `family`, with the result a correct parser returns. */
export function writeWire(family: string, message: WireMessage): WireCase {
  const writer = wireFamilies[family]!;
  let completion = '';
  let prefix: string | undefined;
  let reasoning: string | null = null;
  if (message.reasoning !== undefined && writer.reasoning) {
    const written = writer.reasoning(message.reasoning);
    prefix = written.prefix;
    completion += written.text;
    reasoning = message.reasoning.trim() || null;
  } else if (writer.plainPrefix !== undefined) {
    // The template opens reasoning in the prompt; start in content explicitly.
    prefix = writer.plainPrefix;
  }
  const pieces: string[] = [];
  const calls: WireCase['calls'] = [];
  let textSinceCall = false;
  for (const part of message.parts) {
    if ('text' in part) {
      const prose = writer.prose ? writer.prose(part.text) : part.text;
      completion += writer.text ? writer.text(prose) : prose;
      pieces.push(prose.trim());
      textSinceCall = true;
    } else {
      // Prose must be separated from a following call by whitespace or a boundary only; add a newline like the templates.
      if (textSinceCall && !writer.text) completion += '\n';
      completion += writer.calls(part.calls, calls.length);
      for (const call of part.calls) {
        calls.push({ ...call, ...(writer.kimiIds ? { id: `functions.${call.name}:${calls.length}` } : { id: `call_${calls.length}` }) });
      }
      if (!writer.text) completion += '\n';
      textSinceCall = false;
    }
  }
  // Trimmed pieces, no separator: the cross-family content convention (FORMATS §0.8); harmony messages stay apart.
  const content = pieces.join(writer.pieceSeparator ?? '');
  return {
    completion,
    ...(prefix !== undefined ? { prefix } : {}),
    tools: wireTools,
    content: content === '' ? null : content,
    reasoning,
    calls,
  };
}
