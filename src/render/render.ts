import type { CompiledTemplate } from '../jinja/index.js';
import type { Conversation, LoadedTemplate, RenderOptions, RenderResult, TemplateNeeds, TemplateSpec } from './types.js';

/** Renders one conversation with a loaded template, as transformers' apply_chat_template would. */
export function renderConversation(template: LoadedTemplate, conversation: Conversation, options: RenderOptions = {}): RenderResult {
  throw new Error(`not implemented yet ${template.name} ${conversation.messages.length} ${JSON.stringify(options)}`);
}

/** Convenience: load (cached) and render in one call. */
export function render(options: TemplateSpec & RenderOptions & Conversation): RenderResult {
  throw new Error(`not implemented yet ${options.messages.length}`);
}

/** Probes what a template needs for arguments and null content. */
export function inspectTemplate(template: CompiledTemplate): TemplateNeeds {
  throw new Error(`not implemented yet ${template.name}`);
}
