// The exact request each backend kind receives for one client request: the rendered prompt, the family's stop
// strings followed by the client's, and the sampling settings under each API's own names.
import { describe, expect, it } from 'vitest';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

const schema = { type: 'object', properties: { answer: { type: 'string' } } };
const request = {
  model: 'my-model',
  messages: [{ role: 'user', content: 'Hi' }],
  max_completion_tokens: 64,
  temperature: 0.2,
  top_p: 0.9,
  seed: 7,
  stop: 'END',
  response_format: { type: 'json_schema', json_schema: { name: 'reply', schema } },
};
const stop = ['<|im_end|>', '<|endoftext|>', 'END'];

describe('backend request bodies', async () => {
  const harnesses = {
    'llama.cpp': await startHarness('qwen3', 'llama.cpp'),
    openai: await startHarness('qwen3', 'openai'),
    ollama: await startHarness('qwen3', 'ollama'),
  };

  async function sent(kind: keyof typeof harnesses) {
    const h = harnesses[kind];
    h.backend.script({ pieces: pieces('{"answer": "hi"}') });
    const response = await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(request) });
    expect(response.status).toBe(200);
    return h.backend.received.at(-1)!;
  }

  it('llama.cpp /completion', async () => {
    const { path, body } = await sent('llama.cpp');
    expect(path).toBe('/completion');
    expect(body).toEqual({ prompt: expect.stringContaining('<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n'), stream: true, stop, cache_prompt: true, n_predict: 64, temperature: 0.2, top_p: 0.9, seed: 7, json_schema: schema });
  });

  it('OpenAI-style /v1/completions', async () => {
    const { path, body } = await sent('openai');
    expect(path).toBe('/v1/completions');
    expect(body).toEqual({ model: 'my-model', prompt: expect.any(String), stream: true, stream_options: { include_usage: true }, stop, max_tokens: 64, temperature: 0.2, top_p: 0.9, seed: 7, guided_json: schema });
  });

  it('Ollama /api/generate, raw', async () => {
    const { path, body } = await sent('ollama');
    expect(path).toBe('/api/generate');
    expect(body).toEqual({ model: 'my-model', prompt: expect.any(String), raw: true, stream: true, options: { stop, num_predict: 64, temperature: 0.2, top_p: 0.9, seed: 7 }, format: schema });
  });
});
