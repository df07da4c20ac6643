// What the page shows, computed with the library's own functions and nothing of its own: the render, its spans, the
// generation prompt, detect's verdict, the parser the template gets, and the per-message token counts.
import { commonPrefixLength } from '../../render/render-prefixes.js';
import { detectFamily, detectVerdict, type DetectVerdict } from '../../detect/detect.js';
import { parserForTemplate } from '../../detect/template-parser.js';
import { familyInfo, resolveFamilyId } from '../../families/info.js';
import type { ParserFamily } from '../../registry/index.js';
import { loadTemplate } from '../../render/load.js';
import { renderConversation } from '../../render/render.js';
import type { LoadedTemplate, RenderWarning } from '../../render/types.js';
import type { Conversation, Diagnostic, Tool } from '../../types.js';
import { loadFolder } from './folder.js';
import type { TemplateChoice } from './state.js';

export type Outcome<T> = { ok: T } | { error: string };

export function attempt<T>(work: () => T): Outcome<T> {
  try {
    return { ok: work() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

export function loadChoice(choice: TemplateChoice): LoadedTemplate {
  if (choice.kind === 'family') return loadTemplate({ family: choice.family });
  if (choice.kind === 'folder') return loadFolder(choice.files);
  const loaded = loadTemplate({ source: choice.text });
  const id = resolveFamilyId(choice.tokensOf);
  // A bare template brings no special tokens; it renders with the family's, as detect probes a bare .jinja.
  return id ? { ...loaded, specialTokens: { ...familyInfo[id].specialTokens } } : loaded;
}

/** The conversation from the editors: messages must be a JSON array; tools an array, or nothing. */
export function readConversation(messages: string, tools: string): Conversation {
  const parsedMessages = parseField(messages, 'messages');
  if (!Array.isArray(parsedMessages)) throw new Error('messages: expected a JSON array of messages');
  const conversation: Conversation = { messages: parsedMessages };
  if (tools.trim() !== '') {
    const parsedTools = parseField(tools, 'tools');
    if (!Array.isArray(parsedTools)) throw new Error('tools: expected a JSON array of tools');
    conversation.tools = parsedTools as Tool[];
  }
  return conversation;
}

function parseField(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}

export interface Prompt {
  text: string;
  /** `{% generation %}` blocks: the assistant's own output. */
  generationSpans: Array<[number, number]>;
  /** What add_generation_prompt appends: the text after the render without it. */
  generationPrompt?: [number, number];
  warnings: RenderWarning[];
}

export function renderPrompt(loaded: LoadedTemplate, conversation: Conversation, addGenerationPrompt: boolean): Prompt {
  const rendered = renderConversation(loaded, conversation, { addGenerationPrompt });
  const prompt: Prompt = { text: rendered.text, generationSpans: rendered.generationSpans, warnings: rendered.warnings };
  if (addGenerationPrompt) {
    const without = renderConversation(loaded, conversation, { addGenerationPrompt: false }).text;
    prompt.generationPrompt = [commonPrefixLength(without, rendered.text), rendered.text.length];
  }
  return prompt;
}

export interface TemplateFacts {
  verdict: Outcome<DetectVerdict>;
  parser: Outcome<{ family: string | ParserFamily; label: string; prefix?: string; diagnostic?: Diagnostic }>;
}

/** Detect's verdict and the parser for completions; for a family choice, that family's own parser. */
export function templateFacts(loaded: LoadedTemplate, choice: TemplateChoice): TemplateFacts {
  const verdict = attempt(() => detectVerdict(detectFamily(loaded)));
  if (choice.kind === 'family') return { verdict, parser: { ok: { family: choice.family, label: choice.family } } };
  const parser = attempt(() => {
    const found = parserForTemplate(loaded);
    const label = typeof found.family === 'string' ? found.family : `${found.family.id} (derived from the template)`;
    return { family: found.family, label, ...(found.prefix !== undefined ? { prefix: found.prefix } : {}), ...(found.diagnostic ? { diagnostic: found.diagnostic } : {}) };
  });
  return { verdict, parser };
}

/** Strings to mark as special tokens in the prompt: the template's, its family's markers, the tokenizer's added tokens. */
export function specialStrings(loaded: LoadedTemplate, familyHint: string | undefined, addedTokens: readonly string[]): string[] {
  const found = new Set<string>(Object.values(loaded.specialTokens));
  const id = loaded.family ?? (familyHint !== undefined ? resolveFamilyId(familyHint) : undefined);
  if (id) {
    for (const token of Object.values(familyInfo[id].specialTokens)) found.add(token);
    for (const stop of familyInfo[id].stopStrings) found.add(stop);
  }
  for (const token of addedTokens) found.add(token);
  found.delete('');
  return [...found];
}
