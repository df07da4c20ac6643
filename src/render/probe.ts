import type { ArgumentsForm } from '../families/family.js';
import type { CompiledTemplate } from '../jinja/index.js';
import type { Message } from '../types.js';
import type { TemplateNeeds } from './types.js';

const PROBE_VALUE = 'chatfmt_probe_value';
const PROBE_ARGS = { query: PROBE_VALUE };
const PLAIN_ID = 'call_probe0';
const NINE_CHAR_ID = 'probe0001';
const PROBE_TOOLS = [
  {
    type: 'function',
    function: {
      name: 'chatfmt_probe',
      description: 'probe',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];

const cache = new WeakMap<CompiledTemplate, TemplateNeeds>();

/**
 * Finds what a template needs by rendering a tiny tool conversation in each form, the way a user
 * would find out by trial: which argument form renders without error, without double-encoding and without losing
 * the arguments,
 * and whether `content: null` crashes it or prints "None". The probes see the special tokens the template is rendered
 * with (Mistral's templates fail without eos_token). Cached per compiled template.
 */
export function inspectTemplate(template: CompiledTemplate, specialTokens: Readonly<Record<string, string>> = {}): TemplateNeeds {
  let needs = cache.get(template);
  if (!needs) {
    needs = probe(template, specialTokens);
    cache.set(template, needs);
  }
  return needs;
}

/**
 * Records what inspectTemplate finds for `template` when it is known ahead: the CLI's bundles carry it for each
 * family template, found at build time by this same probing (families/templates-parsed.ts).
 */
export function knownNeeds(template: CompiledTemplate, needs: TemplateNeeds): void {
  if (!cache.has(template)) cache.set(template, needs);
}

function probe(template: CompiledTemplate, tokens: Readonly<Record<string, string>>): TemplateNeeds {
  const plain = probeWith(template, PLAIN_ID, tokens);
  if (plain !== undefined) return plain;
  // Mistral's templates reject any call id that is not 9 characters long.
  const nine = probeWith(template, NINE_CHAR_ID, tokens);
  return nine === undefined ? decided(template, undefined, undefined, PLAIN_ID, tokens) : { ...nine, nineCharCallIds: true };
}

/** What the template needs when its probe calls carry `id`; undefined when it renders in neither argument form. */
function probeWith(template: CompiledTemplate, id: string, tokens: Readonly<Record<string, string>>): TemplateNeeds | undefined {
  const asObject = tryRender(template, probeConversation(PROBE_ARGS, '', id, tokens));
  const asString = tryRender(template, probeConversation(JSON.stringify(PROBE_ARGS), '', id, tokens));
  return asObject === undefined && asString === undefined ? undefined : decided(template, asObject, asString, id, tokens);
}

function decided(template: CompiledTemplate, asObject: string | undefined, asString: string | undefined, id: string, tokens: Readonly<Record<string, string>>): TemplateNeeds {
  const argumentsForm = decideForm(asObject, asString);
  const args = argumentsForm === 'string' ? JSON.stringify(PROBE_ARGS) : PROBE_ARGS;
  const withEmpty = argumentsForm === 'string' ? asString : asObject;
  // TRL-style rows leave `content` out of tool-call turns; treat that like null.
  const nullContentNeedsString =
    withEmpty !== undefined &&
    [null, undefined].some((content) => {
      const text = tryRender(template, probeConversation(args, content, id, tokens));
      return text === undefined || (text.includes('None') && !withEmpty.includes('None'));
    });
  return { argumentsForm, nullContentNeedsString, nineCharCallIds: false };
}

function decideForm(asObject: string | undefined, asString: string | undefined): ArgumentsForm {
  // A form works when the value reaches the text: some templates silently drop arguments of the other form
  // (MiniMax-M2 renders no parameters for a JSON string).
  const objectOk = asObject !== undefined && asObject.includes(PROBE_VALUE) && !asObject.includes('[object ');
  // A JSON string that the template re-serialises shows up with escaped quotes: double encoding.
  const stringOk = asString !== undefined && asString.includes(PROBE_VALUE) && !asString.includes(`\\"${PROBE_VALUE}\\"`);
  if (objectOk && !stringOk) return 'object';
  if (stringOk && !objectOk) return 'string';
  return 'either';
}

function probeConversation(args: unknown, content: string | null | undefined, id: string, tokens: Readonly<Record<string, string>>): Record<string, unknown> {
  const messages: Message[] = [
    { role: 'user', content: 'probe' },
    {
      role: 'assistant',
      ...(content === undefined ? {} : { content }),
      tool_calls: [{ id, type: 'function', function: { name: 'chatfmt_probe', arguments: args as string } }],
    },
    { role: 'tool', tool_call_id: id, name: 'chatfmt_probe', content: 'ok' },
    { role: 'assistant', content: 'done' },
  ];
  return { ...tokens, messages, tools: PROBE_TOOLS, documents: null, add_generation_prompt: false };
}

function tryRender(template: CompiledTemplate, variables: Record<string, unknown>): string | undefined {
  try {
    return template.render(variables).text;
  } catch {
    return undefined;
  }
}
