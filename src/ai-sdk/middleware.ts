// `chatfmtMiddleware`: for chat models whose server leaves the model's native call and reasoning markup in the text
// (Ollama, LM Studio, OpenRouter, vLLM without a tool parser). The text goes through the family's stream parser and
// comes out as reasoning and tool-call parts; the request is sent unchanged (the server renders its own template).
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';
import { BlockWriter } from '../gateway/core/blocks.js';
import type { GatewayEvent } from '../gateway/core/types.js';
import { randomToken } from '../parse/ids.js';
import { createStreamParser } from '../parse/stream.js';
import { resolveModel, type ModelSource } from './model.js';
import { foldParts, PartMapper } from './parts.js';
import { functionTools } from './prompt.js';

export type ChatfmtMiddlewareSettings = ModelSource & {
  /**
   * The parser's starting state, when the server's prompt ends inside the model's turn in a way the family's default
   * does not assume (`'<think>'` for a template that opens reasoning). Default: the family's (or variant's) own.
   */
  prefix?: string;
};

export function chatfmtMiddleware(settings: ChatfmtMiddlewareSettings): LanguageModelV4Middleware {
  const { model } = resolveModel(settings);
  const prefix = settings.prefix ?? model.defaultPrefix;
  const rewriter = (params: LanguageModelV4CallOptions) => new MarkupRewriter(model.parser, functionTools(params), prefix);
  return {
    specificationVersion: 'v4',
    async wrapStream({ doStream, params }) {
      const result = await doStream();
      return { ...result, stream: rewritten(result.stream, rewriter(params)) };
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const rewrite = rewriter(params);
      const parts: LanguageModelV4StreamPart[] = [];
      for (const part of contentAsParts(result.content)) parts.push(...rewrite.push(part));
      parts.push(...rewrite.end());
      const folded = foldParts(parts);
      const calls = folded.content.some((part) => part.type === 'tool-call');
      return {
        ...result,
        content: folded.content,
        finishReason: calls && result.finishReason.unified === 'stop' ? { ...result.finishReason, unified: 'tool-calls' } : result.finishReason,
        ...mergedMetadata(result.providerMetadata, folded.providerMetadata),
      };
    },
  };
}

/**
 * The wrapped stream's parts through the rewriter. Not a TransformStream: when the wrapped stream fails (the network
 * dropped, the call was aborted), the text the parser still holds back as a possible marker is the model's text too,
 * and goes out first; the failure follows on the next read, since erroring a stream discards what is queued in it.
 */
function rewritten(source: ReadableStream<LanguageModelV4StreamPart>, rewrite: MarkupRewriter): ReadableStream<LanguageModelV4StreamPart> {
  const reader = source.getReader();
  let failure: { error: unknown } | undefined;
  return new ReadableStream<LanguageModelV4StreamPart>({
    // Reads until there is a part to hand out: a pull that enqueues nothing is not called again.
    async pull(controller) {
      if (failure) return controller.error(failure.error);
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          failure = { error };
          const held = rewrite.end();
          for (const out of held) controller.enqueue(out);
          if (held.length === 0) controller.error(error);
          return;
        }
        if (next.done) {
          for (const out of rewrite.end()) controller.enqueue(out);
          return controller.close();
        }
        const out = rewrite.push(next.value);
        for (const part of out) controller.enqueue(part);
        if (out.length > 0) return;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * One response's parts in, the same parts out with text-delta run through the family's parser. All text blocks are
 * one completion to the parser (a marker may straddle two). A part that is not text (server-parsed reasoning or calls)
 * closes the text block before it; text the parser still holds back as a possible marker follows once resolved, and
 * `finish` releases the rest, so nothing is lost.
 */
class MarkupRewriter {
  private readonly parser;
  private readonly blocks = new BlockWriter(randomToken(8));
  /** Block events not yet mapped to parts; the parser writes into them through its sink (no delta per token). */
  private readonly pending: GatewayEvent[] = [];
  private readonly sink = this.blocks.sinkInto(this.pending);
  private readonly mapper = new PartMapper();
  private finished = false;

  constructor(family: Parameters<typeof createStreamParser>[0]['family'], tools: ReturnType<typeof functionTools>, prefix: string | undefined) {
    this.parser = createStreamParser({ family, tools, reportCallEnds: true, ...(prefix !== undefined ? { prefix } : {}) });
  }

  push(part: LanguageModelV4StreamPart): LanguageModelV4StreamPart[] {
    // The parser is done once `finish` went out; a server that still sends parts has them passed on as they are.
    if (this.finished) return [part];
    switch (part.type) {
      case 'text-start':
      case 'text-end':
        return [];
      case 'text-delta':
        this.parser.pushTo(part.delta, this.sink);
        return this.mapped();
      case 'finish': {
        const out = this.drain();
        const calls = this.blocks.callCount > 0 && part.finishReason.unified === 'stop';
        const metadata = mergedMetadata(part.providerMetadata, this.mapper.metadata().providerMetadata);
        out.push({ ...part, ...(calls ? { finishReason: { ...part.finishReason, unified: 'tool-calls' } } : {}), ...metadata });
        return out;
      }
      case 'stream-start':
      case 'response-metadata':
      case 'raw':
      case 'ping':
        return [part];
      default: {
        // Anything else (server-parsed reasoning or calls, sources, errors) takes its place after the text before it.
        const out = this.drain(false);
        if ('id' in part && typeof part.id === 'string') this.mapper.reserve(part.id);
        if (part.type === 'tool-call') this.mapper.reserve(part.toolCallId);
        out.push(part);
        return out;
      }
    }
  }

  /** After the wrapped stream ended: what the parser still held, when no `finish` came. */
  end(): LanguageModelV4StreamPart[] {
    return this.drain();
  }

  /** `final`: the completion is over (the parser releases its tail); otherwise only the open block is closed. */
  private drain(final = true): LanguageModelV4StreamPart[] {
    if (this.finished) return [];
    if (final) {
      this.finished = true;
      this.parser.finishTo(this.sink);
      this.blocks.flush(this.pending);
    } else this.blocks.close(this.pending);
    return this.mapped();
  }

  private mapped(): LanguageModelV4StreamPart[] {
    if (this.pending.length === 0) return [];
    return this.pending.splice(0, this.pending.length).flatMap((event) => this.mapper.map(event));
  }
}

function contentAsParts(content: LanguageModelV4Content[]): LanguageModelV4StreamPart[] {
  return content.flatMap((part): LanguageModelV4StreamPart[] => {
    if (part.type === 'text') return [{ type: 'text-delta', id: 'text', delta: part.text }];
    if (part.type === 'reasoning') {
      const id = `reasoning_${randomToken(8)}`;
      return [{ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: part.text }, { type: 'reasoning-end', id }];
    }
    return [part];
  });
}

function mergedMetadata(...all: Array<SharedV4ProviderMetadata | undefined>): { providerMetadata?: SharedV4ProviderMetadata } {
  const merged: SharedV4ProviderMetadata = Object.assign({}, ...all.filter(Boolean));
  return Object.keys(merged).length > 0 ? { providerMetadata: merged } : {};
}
