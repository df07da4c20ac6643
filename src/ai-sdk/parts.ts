// GatewayEvents → AI SDK stream parts, and stream parts → doGenerate content. The provider and the middleware both
// write through these, so a streamed answer and a generated one are the same parts folded two ways.
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import { randomToken } from '../parse/ids.js';
import type { Diagnostic } from '../types.js';
import { GatewayFailure } from '../gateway/core/failure.js';
import type { GatewayEvent, Usage } from '../gateway/core/types.js';

/**
 * Maps one response's events. Call ids are the ones the parser gives (the model's own where it writes them, as Kimi
 * and Mistral do, so the next turn's template gets them back); an id that is empty or already used in this response
 * is replaced by a fresh one, because the AI SDK pairs results with calls by id.
 */
export class PartMapper {
  private readonly callIds = new Map<string, string>();
  private readonly usedIds = new Set<string>();
  readonly diagnostics: Diagnostic[] = [];

  /** Ids of blocks the mapper did not write (a wrapped model's own), so that ours never collide with them. */
  reserve(id: string): void {
    this.usedIds.add(id);
  }

  map(event: GatewayEvent): LanguageModelV4StreamPart[] {
    switch (event.type) {
      case 'start':
        return [{ type: 'response-metadata', id: event.responseId, modelId: event.model, timestamp: new Date(event.created * 1000) }];
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
        return [{ type: event.type, id: event.id }];
      case 'text-delta':
      case 'reasoning-delta':
        return [{ type: event.type, id: event.id, delta: event.delta }];
      case 'tool-call-start':
        return [{ type: 'tool-input-start', id: this.callId(event.id, event.callId), toolName: event.name }];
      case 'tool-call-delta':
        return [{ type: 'tool-input-delta', id: this.callIds.get(event.id)!, delta: event.delta }];
      case 'tool-call-end': {
        const id = this.callIds.get(event.id)!;
        // A call with no arguments at all still needs JSON input.
        const input = event.arguments === '' ? '{}' : event.arguments;
        // The model's own argument text rides along, so the next turn can write it back byte for byte (see prompt.ts).
        return [{ type: 'tool-input-end', id }, { type: 'tool-call', toolCallId: id, toolName: event.name, input, providerMetadata: { chatfmt: { arguments: input } } }];
      }
      case 'diagnostic':
        this.diagnostics.push(event.diagnostic);
        return [];
      case 'finish':
        return [{ type: 'finish', finishReason: { unified: event.reason, raw: event.rawReason }, usage: usageOf(event.usage), ...this.metadata() }];
      case 'error':
        return [{ type: 'error', error: new GatewayFailure(event.error) }];
    }
  }

  /** Parser diagnostics (malformed or unknown calls, repairs) travel in `providerMetadata.chatfmt.diagnostics`. */
  metadata(): { providerMetadata?: SharedV4ProviderMetadata } {
    if (this.diagnostics.length === 0) return {};
    return { providerMetadata: { chatfmt: { diagnostics: JSON.parse(JSON.stringify(this.diagnostics)) } } };
  }

  private callId(blockId: string, wanted: string): string {
    let id = wanted;
    while (id === '' || this.usedIds.has(id)) id = `call_${randomToken()}`;
    this.usedIds.add(id);
    this.callIds.set(blockId, id);
    return id;
  }
}

export function usageOf(usage: Usage | undefined): LanguageModelV4Usage {
  return {
    inputTokens: { total: usage?.promptTokens, noCache: usage?.promptTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: usage?.completionTokens, text: undefined, reasoning: undefined },
    ...(usage ? { raw: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens } } : {}),
  };
}

/** What doGenerate returns, folded from the parts doStream would have sent. */
export interface FoldedParts {
  content: LanguageModelV4Content[];
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
  providerMetadata?: SharedV4ProviderMetadata;
}

/**
 * Stream parts → generate content: each text or reasoning block becomes one part (empty ones dropped), calls and the
 * other content parts keep their place. An `error` part is thrown: doGenerate has no partial result.
 */
export function foldParts(parts: Iterable<LanguageModelV4StreamPart>): FoldedParts {
  const content: LanguageModelV4Content[] = [];
  const open = new Map<string, { type: 'text' | 'reasoning'; text: string }>();
  let finish: Extract<LanguageModelV4StreamPart, { type: 'finish' }> | undefined;
  for (const part of parts) {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const block = { type: part.type === 'text-start' ? ('text' as const) : ('reasoning' as const), text: '' };
        open.set(part.id, block);
        content.push(block);
        break;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const block = open.get(part.id);
        if (block) block.text += part.delta;
        else content.push({ type: part.type === 'text-delta' ? 'text' : 'reasoning', text: part.delta });
        break;
      }
      case 'text-end':
      case 'reasoning-end':
        open.delete(part.id);
        break;
      case 'finish':
        finish = part;
        break;
      case 'error':
        throw part.error;
      case 'tool-call':
      case 'tool-result':
      case 'tool-approval-request':
      case 'source':
      case 'file':
      case 'reasoning-file':
      case 'custom':
        content.push(part);
        break;
      default:
        break;
    }
  }
  return {
    content: content.filter((part) => !((part.type === 'text' || part.type === 'reasoning') && part.text === '')),
    finishReason: finish?.finishReason ?? { unified: 'other', raw: undefined },
    usage: finish?.usage ?? usageOf(undefined),
    ...(finish?.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
  };
}
