import { ChatfmtError } from '../errors.js';
import { adaptConversation } from './adapt.js';
import { cutAfterFinalMessage } from './continue-final.js';
import { loadTemplate } from './load.js';
import { inspectTemplate } from './probe.js';
import { prepareForTemplate } from './family-call-ids.js';
import type { CompiledTemplate } from '../jinja/index.js';
import type { Conversation, LoadedTemplate, RenderOptions, RenderResult, RenderWarning, TemplateSpec } from './types.js';

export { inspectTemplate };

/** Renders one conversation with a loaded template, as transformers' apply_chat_template would. */
export function renderConversation(template: LoadedTemplate, conversation: Conversation, options: RenderOptions = {}): RenderResult {
  checkConversation(conversation);
  const hasTools = Array.isArray(conversation.tools) && conversation.tools.length > 0;
  const compiled = template.select(hasTools);
  const addGenerationPrompt = options.addGenerationPrompt ?? conversation.add_generation_prompt === true;
  if (addGenerationPrompt && options.continueFinalMessage) {
    throw new ChatfmtError('INPUT_INVALID', 'continue_final_message and add_generation_prompt cannot be combined: the first continues the last message, the second starts a new one');
  }
  const { conversation: adapted, warnings } = options.args === 'keep' ? { conversation, warnings: [] } : adaptForTemplate(template, compiled, conversation);
  const variables = templateVariables(template, adapted, addGenerationPrompt, options.variables);
  const rendered = compiled.render(variables, { now: options.now, limits: options.limits, reuse: options.reuse });
  const { generationSpans, readsClock } = rendered;
  const text = addGenerationPrompt && template.prefill ? rendered.text + template.prefill : rendered.text;
  if (!options.continueFinalMessage) return { text, generationSpans, warnings, readsClock };
  const cut = cutAfterFinalMessage(text, adapted.messages, compiled.name);
  return { text: cut, generationSpans: clipSpans(generationSpans, cut.length), warnings, readsClock };
}

/**
 * `args: 'auto'`: the forms the template needs (probed), then the family's call ids (Kimi-K2 spells them into its
 * syntax as `functions.NAME:IDX`), rewritten as convert and validate rewrite them and reported alike.
 */
function adaptForTemplate(template: LoadedTemplate, compiled: CompiledTemplate, conversation: Conversation): { conversation: Conversation; warnings: RenderWarning[] } {
  const adapted = adaptConversation(conversation, inspectTemplate(compiled, template.specialTokens));
  const prepared = prepareForTemplate(adapted.conversation, template.family);
  if (prepared.rewrites.length === 0) return adapted;
  const rewritten = prepared.rewrites.map(({ path, message }): RenderWarning => ({ code: 'CALL_IDS_REWRITTEN', path, message }));
  return { conversation: prepared.conversation, warnings: [...adapted.warnings, ...rewritten] };
}

/** Convenience: load (cached by source) and render in one call. */
export function render(options: TemplateSpec & RenderOptions & Conversation): RenderResult {
  return renderLoadedBy(loadTemplate, options);
}

/** `render` with another loader: Node's reads template files too. */
export function renderLoadedBy(load: (spec: TemplateSpec) => LoadedTemplate, options: TemplateSpec & RenderOptions & Conversation): RenderResult {
  const { family, template, templateName, source, addGenerationPrompt, continueFinalMessage, variables, args, now, limits, reuse, ...conversation } = options;
  const loaded = load({ family, template, templateName, source });
  return renderConversation(loaded, conversation as Conversation, { addGenerationPrompt, continueFinalMessage, variables, args, now, limits, reuse });
}

/**
 * The context transformers builds: special tokens, then messages/tools/documents/add_generation_prompt,
 * then extra variables (conversation keys, then caller options), which override special tokens.
 */
function templateVariables(
  template: LoadedTemplate,
  conversation: Conversation,
  addGenerationPrompt: boolean,
  extra: Record<string, unknown> | undefined,
): Record<string, unknown> {
  // The conversation's keys copied in one call, the four it names then set over them: the same values as adding its
  // other keys one at a time, which cost ~10 µs a row (each a new property through a cold, keyed store).
  const variables: Record<string, unknown> = Object.assign({ ...template.specialTokens }, conversation);
  variables.messages = conversation.messages;
  variables.tools = conversation.tools ?? null;
  variables.documents = conversation.documents ?? null;
  variables.add_generation_prompt = addGenerationPrompt;
  if (extra) Object.assign(variables, extra);
  return variables;
}

function checkConversation(conversation: Conversation): void {
  if (!conversation || typeof conversation !== 'object' || !Array.isArray(conversation.messages)) {
    throw new ChatfmtError('INPUT_INVALID', 'expected an object with a "messages" array');
  }
}

function clipSpans(spans: Array<[number, number]>, length: number): Array<[number, number]> {
  return spans.filter(([start]) => start < length).map(([start, end]) => [start, Math.min(end, length)]);
}
