// One shape for "what the client got", from an OpenAI stream, an OpenAI body, or chatfmt's parse, so the three can
// be compared with toEqual.
import type OpenAI from 'openai';
import type { ParsedMessage } from '../../../src/index.js';

export interface Answer {
  content: string | null;
  reasoning: string | null;
  calls: Array<{ name: string; arguments: string; id?: string }>;
  diagnostics: string[];
  finish?: string | null;
}

const orNull = (text: string) => (text === '' ? null : text);

/** Reads a raw OpenAI chat stream (every chunk, extension fields included). */
export async function fromStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>, withIds = false): Promise<Answer & { chunks: number }> {
  let content = '';
  let reasoning = '';
  const calls = new Map<number, { name: string; arguments: string; id: string }>();
  const diagnostics: string[] = [];
  let finish: string | null = null;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    const extension = (chunk as unknown as { chatfmt_diagnostics?: Array<{ code: string }> }).chatfmt_diagnostics;
    for (const diagnostic of extension ?? []) diagnostics.push(diagnostic.code);
    const choice = chunk.choices[0];
    if (!choice) continue;
    const delta = choice.delta as typeof choice.delta & { reasoning_content?: string | null };
    if (delta.content) content += delta.content;
    if (delta.reasoning_content) reasoning += delta.reasoning_content;
    for (const part of delta.tool_calls ?? []) {
      let call = calls.get(part.index);
      if (!call) calls.set(part.index, (call = { name: part.function?.name ?? '', arguments: '', id: part.id ?? '' }));
      call.arguments += part.function?.arguments ?? '';
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => (withIds ? call : { name: call.name, arguments: call.arguments }));
  return { content: orNull(content), reasoning: orNull(reasoning), calls: ordered, diagnostics, finish, chunks };
}

export function fromCompletion(body: OpenAI.Chat.Completions.ChatCompletion, withIds = false): Answer {
  const choice = body.choices[0]!;
  const message = choice.message as typeof choice.message & { reasoning_content?: string | null };
  const extension = (body as unknown as { chatfmt_diagnostics?: Array<{ code: string }> }).chatfmt_diagnostics ?? [];
  return {
    content: message.content ?? null,
    reasoning: message.reasoning_content ?? null,
    calls: (message.tool_calls ?? []).map((call) => {
      const fn = (call as { id: string; function: { name: string; arguments: string } });
      return withIds ? { name: fn.function.name, arguments: fn.function.arguments, id: fn.id } : { name: fn.function.name, arguments: fn.function.arguments };
    }),
    diagnostics: extension.map((diagnostic) => diagnostic.code),
    finish: choice.finish_reason,
  };
}

export function fromParse(message: ParsedMessage, withIds = false): Answer {
  return {
    content: message.content,
    reasoning: message.reasoning_content,
    calls: message.tool_calls.map((call) => (withIds ? { name: call.function.name, arguments: call.function.arguments, id: call.id } : { name: call.function.name, arguments: call.function.arguments })),
    diagnostics: message.diagnostics.map((diagnostic) => diagnostic.code),
  };
}
