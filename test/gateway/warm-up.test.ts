// gateway.warmUp(): the first request's one-time work done at start-up, against stand-ins. What can be asserted
// without timing: the backend and a caller's own fetch see nothing, it never throws, and the gateway serves exactly
// as before afterwards (including a template that rejects the warm-up's conversation).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createGateway, loadGatewayModel } from '../../src/gateway/index.js';
import { repoRoot } from '../helpers/shared.js';
import { pieces, startReplayBackend } from './helpers/replay-backend.js';

const weather = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

describe('gateway.warmUp()', () => {
  it.each(['qwen3', 'gpt-oss', 'kimi-k2', 'mistral'])('%s: contacts no backend, then serves a call as before', async (family) => {
    const backend = await startReplayBackend();
    const gateway = createGateway({ model: loadGatewayModel({ family }).model, backend: { url: backend.url, kind: 'llama.cpp' } });
    const listening = await gateway.listen(0);
    try {
      await gateway.warmUp();
      expect(backend.received).toHaveLength(0);
      backend.script({ pieces: pieces('It is sunny.') });
      const openai = new OpenAI({ baseURL: `${listening.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const answer = await openai.chat.completions.create({ model: family, messages: [{ role: 'user', content: 'Paris?' }], tools: weather });
      expect(answer.choices[0]!.message.content).toBe('It is sunny.');
      expect(backend.received).toHaveLength(1);
    } finally {
      await listening.close();
      await backend.close();
    }
  });

  it('does not call a fetch the caller passed in', async () => {
    let calls = 0;
    const fetchDouble: typeof fetch = async (...args) => {
      calls++;
      return fetch(...args);
    };
    const gateway = createGateway({ model: loadGatewayModel({ family: 'qwen3' }).model, backend: { url: 'http://127.0.0.1:9', kind: 'llama.cpp' }, fetch: fetchDouble });
    await gateway.warmUp();
    expect(calls).toBe(0);
  });

  it('a template that rejects the warm-up conversation: no throw, and the request still gets its one-line error', async () => {
    // A model folder whose template refuses system messages (as Gemma 2's does); the warm-up conversation has one.
    const config = JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'models', 'qwen3-response-template', 'tokenizer_config.json'), 'utf8'));
    config.chat_template = `{% if messages[0].role == 'system' %}{{ raise_exception('this model takes no system prompt') }}{% endif %}${config.chat_template}`;
    const folder = mkdtempSync(join(tmpdir(), 'chatfmt-warm-'));
    writeFileSync(join(folder, 'tokenizer_config.json'), JSON.stringify(config));
    const backend = await startReplayBackend();
    const gateway = createGateway({ model: loadGatewayModel({ template: folder }).model, backend: { url: backend.url, kind: 'llama.cpp' } });
    const listening = await gateway.listen(0);
    try {
      await expect(gateway.warmUp()).resolves.toBeUndefined();
      const openai = new OpenAI({ baseURL: `${listening.url}/v1`, apiKey: 'x', maxRetries: 0 });
      const failure = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).message).toMatch(/this model takes no system prompt/);
      expect(backend.received).toHaveLength(0);
    } finally {
      await listening.close();
      await backend.close();
    }
  });
});
