// Repair mode, in front of a chat endpoint: native calls pass through; a call or reasoning the server left in the
// text is re-parsed into what it is; `lenient` also takes a whole-answer bare JSON call to a declared tool.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fromCompletion, fromStream, type Answer } from './helpers/answers.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { pieces, type Replay } from './helpers/replay-backend.js';

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
];
const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
const leakedCall = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
const bareCall = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

/** The same replay, streamed and not: both answers must agree. */
async function both(h: Harness, replay: Replay): Promise<Answer> {
  h.backend.script(replay);
  const whole = fromCompletion(await h.openai.chat.completions.create({ model: 'qwen3:8b', messages, tools }));
  h.backend.script(replay);
  const { chunks: _, ...streamed } = await fromStream(await h.openai.chat.completions.create({ model: 'qwen3:8b', messages, tools, stream: true }));
  expect(streamed).toEqual(whole);
  return whole;
}

describe('--repair', async () => {
  const h = await startHarness('qwen3', 'openai', { repair: 'strict' });

  it('forwards the chat request to <backend>/chat/completions, streamed', async () => {
    await both(h, { pieces: ['Hi.'] });
    const sent = h.backend.received.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body).toMatchObject({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, stream: true });
  });

  it('turns a call the server left in content into a call', async () => {
    const answer = await both(h, { pieces: pieces(`Let me check.\n${leakedCall}`, 3) });
    expect(answer).toMatchObject({ content: 'Let me check.', finish: 'tool_calls', calls: [{ name: 'get_weather', arguments: '{"city": "Paris"}' }] });
  });

  it('splits reasoning the server left in content, and finds a call inside reasoning', async () => {
    expect(await both(h, { pieces: pieces('<think>\nHmm.\n</think>\n\nSunny.', 2) })).toMatchObject({ content: 'Sunny.', reasoning: 'Hmm.' });
    const inReasoning = await both(h, { pieces: [], deltas: [{ reasoning_content: 'I will call.\n' }, ...pieces(leakedCall, 5).map((text) => ({ reasoning_content: text }))] });
    expect(inReasoning).toMatchObject({ reasoning: 'I will call.', calls: [{ name: 'get_weather' }], finish: 'tool_calls' });
  });

  it('passes native calls through with their ids', async () => {
    const deltas = [
      { role: 'assistant', content: 'On it.' },
      { tool_calls: [{ index: 0, id: 'call_native1', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
    ];
    h.backend.script({ pieces: [], deltas });
    const body = await h.openai.chat.completions.create({ model: 'm', messages, tools });
    expect(fromCompletion(body, true)).toMatchObject({ content: 'On it.', calls: [{ name: 'get_weather', arguments: '{"city": "Paris"}', id: 'call_native1' }], finish: 'tool_calls' });
  });

  it('gives every call its own id: a repeated or missing native id gets a fresh one, streamed and not', async () => {
    const deltas = [
      { tool_calls: [{ index: 0, id: 'call_same', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
      { tool_calls: [{ index: 1, id: 'call_same', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } }] },
      { tool_calls: [{ index: 2, type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }] },
    ];
    for (const stream of [false, true]) {
      h.backend.script({ pieces: [], deltas });
      const answer = stream
        ? await fromStream(await h.openai.chat.completions.create({ model: 'm', messages, tools, stream: true }), true)
        : fromCompletion(await h.openai.chat.completions.create({ model: 'm', messages, tools }), true);
      const ids = answer.calls.map((call) => call.id);
      expect(ids[0]).toBe('call_same');
      expect(new Set(ids).size).toBe(3);
      expect(ids.every((id) => typeof id === 'string' && id !== '')).toBe(true);
      expect(answer.diagnostics).toEqual(['PARSE_DUPLICATE_CALL_ID']);
    }
  });

  it('takes a native call\'s name from a later part when its first part has only the id', async () => {
    const deltas = [
      { tool_calls: [{ index: 0, id: 'call_native2', type: 'function', function: { arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { name: 'get_weather' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": "Paris"}' } }] },
    ];
    h.backend.script({ pieces: [], deltas });
    const body = await h.openai.chat.completions.create({ model: 'm', messages, tools });
    expect(fromCompletion(body, true)).toMatchObject({ calls: [{ name: 'get_weather', arguments: '{"city": "Paris"}', id: 'call_native2' }], finish: 'tool_calls' });
  });

  it('drops a native call that never gets a name, with a diagnostic quoting its arguments', async () => {
    const deltas = [{ content: 'Checking.' }, { tool_calls: [{ index: 0, id: 'call_x', type: 'function', function: { arguments: '{"city": "Paris"}' } }] }];
    const answer = await both(h, { pieces: [], deltas });
    expect(answer).toMatchObject({ content: 'Checking.', calls: [], finish: 'stop', diagnostics: ['PARSE_BAD_HEADER'] });
    h.backend.script({ pieces: [], deltas });
    const response = await h.openai.chat.completions.create({ model: 'm', messages, tools }).withResponse();
    expect(response.response.headers.get('x-chatfmt-diagnostics')).toBe('PARSE_BAD_HEADER');
    const extension = (response.data as unknown as { chatfmt_diagnostics: Array<{ message: string }> }).chatfmt_diagnostics;
    expect(extension[0]!.message).toBe('the backend sent a tool call "call_x" with no name, dropped; its arguments: "{\\"city\\": \\"Paris\\"}"');
  });

  it('quotes a long nameless call\'s arguments in their first 2,000 characters, never half an emoji', async () => {
    // 1,999 characters then a surrogate pair: a cut at 2,000 would leave a lone high surrogate in the message.
    const args = `${'x'.repeat(1999)}😀${'y'.repeat(100)}`;
    h.backend.script({ pieces: [], deltas: [{ tool_calls: [{ index: 0, id: 'call_y', type: 'function', function: { arguments: args } }] }] });
    const response = await h.openai.chat.completions.create({ model: 'm', messages, tools });
    const [diagnostic] = (response as unknown as { chatfmt_diagnostics: Array<{ message: string }> }).chatfmt_diagnostics;
    expect(diagnostic!.message).toBe(`the backend sent a tool call "call_y" with no name, dropped; its arguments: "${'x'.repeat(1999)}"… (${args.length} characters)`);
  });

  it('leaves a bare JSON answer as text without lenient', async () => {
    expect(await both(h, { pieces: pieces(bareCall, 4) })).toMatchObject({ content: bareCall, calls: [] });
  });
});

describe('--repair lenient', async () => {
  const h = await startHarness('qwen3', 'openai', { repair: 'lenient' });

  it('takes a bare or fenced JSON call to a declared tool as a call, with a diagnostic', async () => {
    for (const text of [bareCall, `\`\`\`json\n${bareCall}\n\`\`\``, `[${bareCall}]`]) {
      const answer = await both(h, { pieces: pieces(text, 3) });
      expect(answer, text).toMatchObject({ content: null, finish: 'tool_calls', calls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }], diagnostics: ['PARSE_CALL_RECOVERED'] });
    }
  });

  it('keeps JSON that names no declared tool, and prose, as text', async () => {
    const other = '{"name": "launch_rockets", "arguments": {}}';
    expect(await both(h, { pieces: pieces(other, 3) })).toMatchObject({ content: other, calls: [], diagnostics: [] });
    expect(await both(h, { pieces: pieces('It is sunny.', 3) })).toMatchObject({ content: 'It is sunny.', calls: [] });
  });
});
