import { describe, expect, it } from 'vitest';
import { parse, renderConversation, loadTemplate } from '../../src/index.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

const weather = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

describe('OpenAI Chat front-end through the openai client', async () => {
  const h = await startHarness('qwen3');

  it('answers a plain question, streamed and not, with the backend counts', async () => {
    h.backend.script({ pieces: pieces('<think>\nEasy.\n</think>\n\nParis is in France.'), promptTokens: 11, completionTokens: 9 });
    const messages = [{ role: 'user' as const, content: 'Where is Paris?' }];
    const whole = await h.openai.chat.completions.create({ model: 'qwen3', messages });
    expect(whole.choices[0]!.message.content).toBe('Paris is in France.');
    expect((whole.choices[0]!.message as unknown as Record<string, unknown>).reasoning_content).toBe('Easy.');
    expect(whole.choices[0]!.finish_reason).toBe('stop');
    expect(whole.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 });

    const stream = h.openai.chat.completions.stream({ model: 'qwen3', messages, stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Paris is in France.');
    expect(final.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 9 });

    const template = loadTemplate({ family: 'qwen3' });
    const expected = renderConversation(template, { messages }, { addGenerationPrompt: true }).text;
    expect(h.backend.received.at(-1)!.body.prompt).toBe(expected);
  });

  it('turns a call in the model format into an OpenAI tool call', async () => {
    const completion = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    h.backend.script({ pieces: pieces(completion, 2) });
    const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
    const stream = h.openai.chat.completions.stream({ model: 'qwen3', messages, tools: weather });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.content).toBeNull();
    expect(message.tool_calls).toHaveLength(1);
    const call = message.tool_calls![0]! as { function: { name: string; arguments: string } };
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    const batch = parse(completion, { family: 'qwen3', tools: weather });
    expect(call.function.arguments).toBe(batch.tool_calls[0]!.function.arguments);
  });
});
