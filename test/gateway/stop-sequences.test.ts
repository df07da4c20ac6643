// A client's own stop sequence ends the answer: Anthropic clients are told which one (`stop_reason: "stop_sequence"`,
// `stop_sequence`), whole and streamed, when the backend says which string it matched (llama.cpp's `stopping_word`,
// vLLM's `stop_reason`). The family's own end markers are stop strings too, but never reported as the client's.
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { startHarness } from './helpers/harness.js';

const params = {
  model: 'qwen3',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'Count to three, then write END.' }],
  stop_sequences: ['END', '###'],
};

function client(url: string): Anthropic {
  return new Anthropic({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
}

describe.each(['llama.cpp', 'openai'] as const)('stop sequences via %s', async (kind) => {
  const h = await startHarness('qwen3', kind);
  const anthropic = client(h.url);

  it('names the client stop sequence the backend matched, whole and streamed', async () => {
    h.backend.script({ pieces: ['<think>\n\n</think>\n\n', 'One, two, three. '], stopType: 'word', stoppingWord: '###' });
    const whole = await anthropic.messages.create(params);
    expect(h.backend.received.at(-1)!.body.stop).toEqual(expect.arrayContaining(['END', '###']));
    expect(whole.stop_reason).toBe('stop_sequence');
    expect(whole.stop_sequence).toBe('###');
    expect(whole.content).toEqual([expect.objectContaining({ type: 'text', text: 'One, two, three.' })]);

    const events: Anthropic.RawMessageStreamEvent[] = [];
    const stream = anthropic.messages.stream(params).on('streamEvent', (event) => events.push(event));
    const streamed = await stream.finalMessage();
    expect(streamed.stop_reason).toBe('stop_sequence');
    expect(streamed.stop_sequence).toBe('###');
    const delta = events.find((event) => event.type === 'message_delta');
    expect(delta).toMatchObject({ delta: { stop_reason: 'stop_sequence', stop_sequence: '###' } });
  });

  it("a stop at the family's own end marker is an ordinary end of turn", async () => {
    h.backend.script({ pieces: ['<think>\n\n</think>\n\n', 'Done.'], stopType: 'word', stoppingWord: '<|im_end|>' });
    const whole = await anthropic.messages.create(params);
    expect([whole.stop_reason, whole.stop_sequence]).toEqual(['end_turn', null]);
  });

  it('a call made before the stop string still stops for tool_use', async () => {
    const call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
    h.backend.script({ pieces: ['<think>\n\n</think>\n\n', call], stopType: 'word', stoppingWord: 'END' });
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
    const whole = await anthropic.messages.create({ ...params, tools });
    expect([whole.stop_reason, whole.stop_sequence]).toEqual(['tool_use', null]);
  });

  it('OpenAI Chat clients get finish_reason "stop" for the same end', async () => {
    h.backend.script({ pieces: ['<think>\n\n</think>\n\n', 'One, two, three. '], stopType: 'word', stoppingWord: 'END' });
    const completion = await h.openai.chat.completions.create({ model: 'qwen3', messages: [{ role: 'user', content: 'Count.' }], stop: ['END'] });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });
});

describe('stop sequences via ollama', async () => {
  const h = await startHarness('qwen3', 'ollama');

  it('Ollama does not say which string it matched: the answer ends as end_turn, with no stop sequence guessed', async () => {
    h.backend.script({ pieces: ['<think>\n\n</think>\n\n', 'One, two, three. '], stopType: 'word', stoppingWord: 'END' });
    const whole = await client(h.url).messages.create(params);
    expect(h.backend.received.at(-1)!.body).toMatchObject({ options: { stop: expect.arrayContaining(['END', '###']) } });
    expect([whole.stop_reason, whole.stop_sequence]).toEqual(['end_turn', null]);
  });
});

describe('stop sequences in --repair mode', async () => {
  const h = await startHarness('qwen3', 'openai', { repair: 'strict' });

  it('the chat upstream names the stop string it matched (vLLM stop_reason)', async () => {
    h.backend.script({ pieces: ['One, two, three. '], stopType: 'word', stoppingWord: 'END' });
    const whole = await client(h.url).messages.create(params);
    expect([whole.stop_reason, whole.stop_sequence]).toEqual(['stop_sequence', 'END']);
  });
});
