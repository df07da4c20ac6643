// `POST /v1/messages/count_tokens` through @anthropic-ai/sdk: the request is rendered exactly as /v1/messages renders
// it and counted by the backend's own tokenizer endpoint (llama.cpp and vLLM `POST /tokenize`); a backend without
// one, --repair mode and bad requests answer in Anthropic's error shape. The replay backend counts a token per code
// point, so the expected count is the rendered prompt's length.
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { loadTemplate, renderConversation, type Tool } from '../../src/index.js';
import { startHarness } from './helpers/harness.js';

const tools: Tool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];
const params: Anthropic.MessageCountTokensParams = {
  model: 'qwen3',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'Sunny, 21 °C' }] },
  ],
  tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
};
const prompt = renderConversation(loadTemplate({ family: 'qwen3' }), {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21 °C' },
  ],
  tools,
}, { addGenerationPrompt: true }).text;

function client(url: string): Anthropic {
  return new Anthropic({ baseURL: url, apiKey: 'unused', maxRetries: 0 });
}

describe('count_tokens via llama.cpp', async () => {
  const h = await startHarness('qwen3', 'llama.cpp');

  it("counts the prompt /v1/messages would send, with the backend's tokenizer", async () => {
    const counted = await client(h.url).messages.countTokens(params);
    expect(counted).toEqual({ input_tokens: Array.from(prompt).length });
    const asked = h.backend.received.at(-1)!;
    expect(asked.path).toBe('/tokenize');
    expect(asked.body).toEqual({ content: prompt, add_special: true, parse_special: true });
  });

  it('Claude Code asks through the beta path (`?beta=true`): the same count', async () => {
    const counted = await client(h.url).beta.messages.countTokens(params as Anthropic.Beta.MessageCountTokensParams);
    expect(counted.input_tokens).toBe(Array.from(prompt).length);
  });

  it('a request the Messages API would refuse is a 400 invalid_request_error naming the field', async () => {
    const bad = client(h.url).messages.countTokens({ ...params, messages: [{ role: 'robot', content: 'hi' }] } as unknown as Anthropic.MessageCountTokensParams);
    await expect(bad).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(bad).rejects.toMatchObject({ error: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages[0].role') } } });
  });

  it("the backend's HTTP error is a 500 api_error with its message", async () => {
    h.backend.script({ pieces: [], fault: { kind: 'http-error', status: 404, body: { error: { message: 'File Not Found' } } } });
    const failed = client(h.url).messages.countTokens(params);
    await expect(failed).rejects.toMatchObject({ status: 500, error: { error: { type: 'api_error', message: expect.stringContaining('File Not Found') } } });
    h.backend.script({ pieces: ['Hello.'] });
  });

  it('an answer that breaks off while it is read is a 500 api_error saying so', async () => {
    h.backend.script({ pieces: [], fault: { kind: 'reset', after: 0 } });
    const failed = client(h.url).messages.countTokens(params);
    await expect(failed).rejects.toMatchObject({ status: 500, error: { error: { type: 'api_error', message: expect.stringContaining('broke while it answered') } } });
    h.backend.script({ pieces: ['Hello.'] });
  });
});

describe('count_tokens via an OpenAI-style server (vLLM)', async () => {
  const h = await startHarness('qwen3', 'openai');

  it('asks /tokenize beside /v1, with the model name, and reads its count', async () => {
    const counted = await client(h.url).messages.countTokens(params);
    expect(counted.input_tokens).toBe(Array.from(prompt).length);
    const asked = h.backend.received.at(-1)!;
    expect(asked.path).toBe('/tokenize');
    expect(asked.body).toEqual({ model: 'qwen3', prompt, add_special_tokens: true });
  });
});

describe('count_tokens where no tokenizer can be asked', async () => {
  const ollama = await startHarness('qwen3', 'ollama');
  const repair = await startHarness('qwen3', 'openai', { repair: 'strict' });

  it('Ollama has no tokenizer endpoint: 404 not_found_error, and the backend is not called', async () => {
    const before = ollama.backend.received.length;
    const failed = client(ollama.url).messages.countTokens(params);
    await expect(failed).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    await expect(failed).rejects.toMatchObject({ error: { error: { type: 'not_found_error', message: expect.stringContaining('tokenizer endpoint') } } });
    expect(ollama.backend.received.length).toBe(before);
  });

  it('--repair mode does not render the prompt: 404 not_found_error', async () => {
    await expect(client(repair.url).messages.countTokens(params)).rejects.toMatchObject({ status: 404, error: { error: { type: 'not_found_error' } } });
  });
});
