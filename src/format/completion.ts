import { ChatfmtError } from '../errors.js';
import { loadTemplate } from '../render/load.js';
import { renderConversation } from '../render/render.js';
import type { Message, Tool } from '../types.js';

export interface FormatOptions {
  family: string;
  tools?: Tool[] | null;
  /** Template variables such as enable_thinking; they shape the generation prompt too. */
  variables?: Record<string, unknown>;
}

export interface FormattedTurn {
  /** The rendered prompt up to and including the generation prompt: the parser's prefix. */
  prompt: string;
  /** What the model generates for this message, end-of-turn token included. */
  completion: string;
}

const FORMAT_NOW = new Date('2025-01-15T12:00:00Z');
const PLACEHOLDER_USER: Message = { role: 'user', content: 'chatfmt' };

/**
 * Writes an assistant message in the family's completion syntax, exactly as the family template
 * renders that turn: the rendered conversation minus the rendered generation prompt, cut at the
 * end of the turn's generation block. Defined through the template so the two cannot drift apart.
 */
export function formatCompletion(message: Message, options: FormatOptions): string {
  return formatTurn(message, options).completion;
}

export function formatTurn(message: Message, options: FormatOptions, history: Message[] = [PLACEHOLDER_USER]): FormattedTurn {
  const template = loadTemplate({ family: options.family });
  const tools = options.tools ?? null;
  const assistant = withReasoningAliases({ ...message, role: 'assistant' });
  const renderOptions = { now: FORMAT_NOW, variables: options.variables };
  const prompt = renderConversation(template, { messages: history, tools }, { ...renderOptions, addGenerationPrompt: true }).text;
  const full = renderConversation(template, { messages: [...history, assistant], tools }, { ...renderOptions, addGenerationPrompt: false });
  const lastSpan = full.generationSpans[full.generationSpans.length - 1];
  if (!lastSpan) throw new ChatfmtError('TEMPLATE_SOURCE', `${template.name}: the template marks no generation block, so the assistant turn cannot be located`);
  const [spanStart, spanEnd] = lastSpan;
  // The completion starts where the generation prompt ends when the turn extends the prompt;
  // templates whose history turn differs from the prompt (e.g. a think prefill) start at the block.
  const start = full.text.startsWith(prompt) && prompt.length <= spanStart ? prompt.length : spanStart;
  return { prompt: start === prompt.length ? prompt : full.text.slice(0, start), completion: full.text.slice(start, spanEnd) };
}

/** gpt-oss templates read `thinking`; the others read `reasoning_content`. */
function withReasoningAliases(message: Message): Message {
  const reasoning = message.reasoning_content ?? (typeof message.thinking === 'string' ? message.thinking : undefined);
  if (reasoning === undefined || reasoning === null) return message;
  return { ...message, reasoning_content: reasoning, thinking: reasoning };
}
