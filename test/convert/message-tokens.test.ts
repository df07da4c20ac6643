import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatfmtError, createTokenizer, loadTemplate, messageTokenCounts, type Conversation } from '../../src/index.js';
import { repoRoot } from '../helpers/shared.js';

const tokenizer = createTokenizer(JSON.parse(readFileSync(join(repoRoot, 'fixtures/tokenizers/tiny-chatml/tokenizer.json'), 'utf8')) as object);

const conversation: Conversation = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'hello world' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'clear' },
    { role: 'assistant', content: 'It is clear in Oslo.' },
    { role: 'user', content: 'thanks' },
  ],
} as Conversation;

describe('messageTokenCounts', () => {
  it('gives each ChatML turn exactly its own text, and each its own tokens', () => {
    const counts = messageTokenCounts(loadTemplate({ family: 'qwen3' }), conversation, tokenizer, { addGenerationPrompt: true });
    const slices = counts.messages.map((span) => counts.text.slice(span.start, span.end));
    expect(slices[0]).toBe('<|im_start|>system\nYou are terse.<|im_end|>\n');
    expect(slices[1]).toBe('<|im_start|>user\nhello world<|im_end|>\n');
    // Qwen3 writes a final assistant turn with an empty <think> block, the same turn mid-conversation without one: the
    // turn's range is its text in the full render all the same, up to its own end marker.
    expect(slices[2]).toBe('<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call><|im_end|>\n');
    expect(slices[3]).toBe('<|im_start|>user\n<tool_response>\nclear\n</tool_response><|im_end|>\n');
    expect(slices[4]).toBe('<|im_start|>assistant\nIt is clear in Oslo.<|im_end|>\n');
    expect(slices[5]).toBe('<|im_start|>user\nthanks<|im_end|>\n');
    expect(counts.text.slice(counts.generationPrompt!.start, counts.generationPrompt!.end)).toBe('<|im_start|>assistant\n');
    // Every boundary is a special token, so each range tokenizes on its own to the same count.
    for (const span of [...counts.messages, counts.generationPrompt!]) {
      expect(span.tokens).toBe(tokenizer.encode(counts.text.slice(span.start, span.end)).ids.length);
    }
    expect(counts.total).toBe(tokenizer.encode(counts.text).ids.length);
  });

  it('without a generation prompt the last message runs to the end, and the counts add up', () => {
    const counts = messageTokenCounts(loadTemplate({ family: 'qwen3' }), conversation, tokenizer);
    expect(counts.generationPrompt).toBeUndefined();
    expect(counts.messages.at(-1)!.end).toBe(counts.text.length);
    expect(counts.messages.reduce((sum, span) => sum + span.tokens, 0)).toBe(counts.total);
  });

  it('a message the template cannot end a conversation with is counted with the next', () => {
    // Rejects any conversation whose last message is a tool result.
    const source = "{% if messages[-1].role == 'tool' %}{{ raise_exception('no') }}{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}";
    const loaded = loadTemplate({ source });
    const counts = messageTokenCounts(loaded, conversation, tokenizer);
    expect(counts.messages[3]).toMatchObject({ withNext: true, tokens: 0 });
    expect(counts.text.slice(counts.messages[4]!.start, counts.messages[4]!.end)).toBe('<|im_start|>tool\nclear<|im_end|>\n<|im_start|>assistant\nIt is clear in Oslo.<|im_end|>\n');
  });

  it('stops at its budget: each message\'s end is a render of the conversation up to it', () => {
    const long = { messages: Array.from({ length: 400 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` })) } as Conversation;
    const template = loadTemplate({ family: 'qwen3' });
    expect(messageTokenCounts(template, long, tokenizer).messages).toHaveLength(400);
    let thrown: unknown;
    try {
      messageTokenCounts(template, long, tokenizer, { maxPrefixRenderChars: 1_000_000 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ChatfmtError);
    expect((thrown as ChatfmtError).code).toBe('INPUT_TOO_LARGE');
    expect((thrown as ChatfmtError).message).toContain('these 400 messages');
  });
});
