// OpenAI Responses request translation (parseRequest), apart from the stream tests: our own bodies, then the
// Codex / Continue / LiteLLM / LM Studio captures under ../shared/wire/clients/openai-responses.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openaiResponsesProtocol } from '../../src/gateway/index.js';
import type { GatewayRequest } from '../../src/gateway/index.js';
import { hasShared } from '../helpers/shared.js';
import { readCapture, recordedBody } from './wire-fixtures.js';

function parsed(body: unknown): GatewayRequest {
  const result = openaiResponsesProtocol.parseRequest(body);
  if (!result.ok) throw new Error(`rejected: ${result.error.message}`);
  return result.value;
}

function rejection(body: unknown) {
  const result = openaiResponsesProtocol.parseRequest(body);
  if (result.ok) throw new Error('accepted');
  return result.error;
}

const weather = { type: 'function', name: 'get_weather', description: 'Weather', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('Responses request translation', () => {
  it('reads input as a string, with instructions as the system message', () => {
    expect(parsed({ model: 'm', input: 'Hi', instructions: 'Be a dog.' }).messages).toEqual([
      { role: 'system', content: 'Be a dog.' },
      { role: 'user', content: 'Hi' },
    ]);
  });

  it('reads message items of every role (developer as system, as the Chat front-end does); text parts join', () => {
    const request = parsed({
      model: 'm',
      input: [
        { role: 'developer', content: 'Rules.' },
        { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'More rules.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }] },
        { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello', annotations: [] }] },
        { role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Rules.' },
      { role: 'system', content: 'More rules.' },
      { role: 'user', content: 'a\nb' },
      { role: 'assistant', content: 'Hello' },
      { role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] },
    ]);
  });

  it('folds reasoning, text and function calls into one assistant turn, then the outputs as tool messages', () => {
    const request = parsed({
      model: 'm',
      input: [
        { role: 'user', content: 'Paris and Rome?' },
        { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'Two calls.' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: { city: 'Rome' } },
        { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'Rain' }] },
        { type: 'reasoning', id: 'rs_2', summary: [{ type: 'summary_text', text: '**Plan**' }, { type: 'summary_text', text: 'Answer.' }], encrypted_content: 'gAAA' },
        { type: 'function_call', call_id: 'call_3', name: 'get_weather', arguments: '{}' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'Paris and Rome?' },
      {
        role: 'assistant', content: 'Checking.', reasoning_content: 'Two calls.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Rain' },
      {
        role: 'assistant', content: null, reasoning_content: '**Plan**\n\nAnswer.',
        tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
    ]);
  });

  it('reads flat function tools (and the Chat form), leaving hosted tools out; tool_choice and parallel_tool_calls', () => {
    const request = parsed({
      model: 'm', input: 'x',
      tools: [weather, { type: 'web_search' }, { type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', name: 'get_weather' }, parallel_tool_calls: false,
    });
    expect(request.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: weather.parameters } },
      { type: 'function', function: { name: 'f', parameters: { type: 'object' } } },
    ]);
    expect(request).toMatchObject({ toolChoice: { type: 'function', name: 'get_weather' }, parallelToolCalls: false });
    expect(parsed({ model: 'm', input: 'x', tool_choice: 'required' }).toolChoice).toBe('required');
    expect(parsed({ model: 'm', input: 'x', tool_choice: 'none' }).toolChoice).toBe('none');
    expect(parsed({ model: 'm', input: 'x' })).toMatchObject({ toolChoice: 'auto', parallelToolCalls: true });
  });

  it("accepts Codex's fields and reads max_output_tokens, sampling, text.format and reasoning effort", () => {
    const request = parsed({
      model: 'gpt-oss', input: 'x', instructions: 'i', stream: true, store: false, include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'k', client_metadata: { a: 'b' }, reasoning: { effort: 'high', summary: 'auto' },
      max_output_tokens: 99, temperature: 0.5, top_p: 0.8, truncation: 'auto', user: 'u', metadata: {},
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    });
    expect(request).toMatchObject({
      model: 'gpt-oss', stream: true, continueFinalMessage: false,
      sampling: { maxTokens: 99, temperature: 0.5, topP: 0.8, responseFormat: { type: 'json_schema', schema: { type: 'object' }, name: 'out' } },
      templateVariables: { reasoning_effort: 'high' },
    });
  });

  it('names the field at fault and refuses what a stateless gateway cannot serve', () => {
    expect(rejection({ model: 'm', input: 'x', previous_response_id: 'resp_1' })).toMatchObject({ code: 'INVALID_REQUEST', param: 'previous_response_id' });
    expect(rejection({ model: 'm', input: [{ type: 'item_reference', id: 'x' }] })).toMatchObject({ param: 'input[0].type' });
    expect(rejection({ model: 'm', input: [{ role: 'tool', content: 'x' }] })).toMatchObject({ param: 'input[0].role' });
    expect(rejection({ model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] })).toMatchObject({ param: 'input[0].call_id' });
    expect(rejection({ model: 'm', input: 'x', max_output_tokens: '9' })).toMatchObject({ param: 'max_output_tokens' });
    expect(rejection({ model: 'm' })).toMatchObject({ param: 'input' });
  });
});

describe.skipIf(!hasShared)('Responses request translation on real client captures', () => {
  const dir = 'clients/openai-responses';

  it('reads the LM Studio agent body: instructions, input_text, store false, truncation, empty tools', () => {
    const request = parsed(recordedBody(join(dir, '05-agent-aiohttp-to-lmstudio-full.json')));
    expect(request.messages).toEqual([
      { role: 'system', content: 'You are a dog. From now on, please respond only using dog barks.' },
      { role: 'user', content: 'Hi!' },
    ]);
    expect(request).toMatchObject({ model: 'qwen3-14b', stream: true, tools: [], parallelToolCalls: true });
  });

  it("reads Codex's pasted-image user item, Continue's developer messages and replayed reasoning, LiteLLM's object arguments", () => {
    const image = readCapture(join(dir, '01-codex-input-item-local-image.json')).input_item;
    expect(parsed({ model: 'm', input: [image] }).messages[0]!.content).toHaveLength(4);
    const continued = readCapture(join(dir, '04-continue-dev-responses-input-with-reasoning.json')).input_fragment as unknown[];
    const fromContinue = parsed({ model: 'm', input: continued }).messages;
    expect(fromContinue.map((m) => m.role)).toEqual(['system', 'system', 'user', 'assistant']);
    expect(fromContinue[3]!.reasoning_content).toMatch(/^\*\*Exploring command options\*\*/);
    const litellm = readCapture(join(dir, '06-litellm-issue-responses-input-reasoning-item.json')).messages_fragment as unknown[];
    const fromLitellm = parsed({ model: 'm', input: litellm }).messages;
    expect(fromLitellm.at(-1)).toEqual({
      role: 'assistant', content: null,
      tool_calls: [{ id: 'call_9HiVF29XuEYHIxx6KP', type: 'function', function: { name: 'test_collect', arguments: '{"query":"Albato founders"}' } }],
    });
  });

  it("reads Codex's flat tools as logged by LM Studio", () => {
    const tools = (readCapture(join(dir, '03-codex-vscode-ext-tools-excerpt-lmstudio-log.json')).tools_fragment as unknown[]).slice(0, 1);
    expect(parsed({ model: 'm', input: 'x', tools }).tools).toMatchObject([{ type: 'function', function: { name: 'update_plan' } }]);
  });
});
