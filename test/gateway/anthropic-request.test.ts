// Anthropic Messages request translation (parseRequest), apart from the stream tests: our own small bodies first,
// then every Claude Code and llama.cpp capture under ../shared/wire/clients/anthropic-messages.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicMessagesProtocol } from '../../src/gateway/index.js';
import type { GatewayRequest } from '../../src/gateway/index.js';
import { hasShared } from '../helpers/shared.js';
import { readCapture, recordedBody, wireDir } from './wire-fixtures.js';

function parsed(body: unknown): GatewayRequest {
  const result = anthropicMessagesProtocol.parseRequest(body);
  if (!result.ok) throw new Error(`rejected: ${result.error.message}`);
  return result.value;
}

function rejection(body: unknown) {
  const result = anthropicMessagesProtocol.parseRequest(body);
  if (result.ok) throw new Error('accepted');
  return result.error;
}

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  cache_control: { type: 'ephemeral' },
};

describe('Anthropic request translation', () => {
  it('reads system as a string or as text blocks, ignoring cache_control and the billing pseudo-header', () => {
    const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    expect(parsed({ ...base, system: 'Be brief.' }).messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    const blocks = parsed({
      ...base,
      system: [
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=1; cch=abc;' },
        { type: 'text', text: 'You are a CLI.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Be brief.' },
      ],
    });
    expect(blocks.messages).toEqual([
      { role: 'system', content: 'You are a CLI.\nBe brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(parsed(base).messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('turns tools with input_schema into OpenAI function tools, leaving Anthropic server tools out', () => {
    const request = parsed({
      model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }],
      tools: [weatherTool, { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    });
    expect(request.tools).toEqual([{
      type: 'function',
      function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherTool.input_schema },
    }]);
  });

  it('folds tool_use into tool_calls and splits tool_result out of the user turn, results first', () => {
    const request = parsed({
      model: 'm', max_tokens: 10,
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two cities.', signature: 'sig' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' }, cache_control: { type: 'ephemeral' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here you go:' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'Rain' }], is_error: false },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        reasoning_content: 'Two cities.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Rain' },
      { role: 'user', content: 'Here you go:' },
    ]);
    expect(request.continueFinalMessage).toBe(false);
  });

  it('says so in the words of a tool result that is_error marks, for string and text-block content', () => {
    const request = parsed({
      model: 'm', max_tokens: 10,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'City not found', is_error: true },
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], is_error: true },
          ],
        },
      ],
    });
    expect(request.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 't1', content: 'Error: City not found' },
      { role: 'tool', tool_call_id: 't1', content: 'Error: a\nb' },
    ]);
    expect(request.messages[1]!.tool_calls![0]!.function.arguments).toBe('{}');
    expect(request.messages[1]!.content).toBeNull(); // calls alone: null content, as an OpenAI client writes it
  });

  it('continues a final assistant text message (prefill) and refuses a prefill holding tool_use', () => {
    const request = parsed({
      model: 'm', max_tokens: 10,
      messages: [{ role: 'user', content: 'JSON please' }, { role: 'assistant', content: [{ type: 'text', text: '{' }] }],
    });
    expect(request.continueFinalMessage).toBe(true);
    expect(request.messages[1]).toEqual({ role: 'assistant', content: '{' });
    const error = rejection({
      model: 'm', max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }],
    });
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', param: 'messages[1]' });
  });

  it('maps tool_choice auto, any, tool and none, and disable_parallel_tool_use', () => {
    const body = (tool_choice: unknown) => ({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }], tools: [weatherTool], tool_choice });
    expect(parsed(body({ type: 'auto' }))).toMatchObject({ toolChoice: 'auto', parallelToolCalls: true });
    expect(parsed(body({ type: 'any', disable_parallel_tool_use: true }))).toMatchObject({ toolChoice: 'required', parallelToolCalls: false });
    expect(parsed(body({ type: 'tool', name: 'get_weather' })).toolChoice).toEqual({ type: 'function', name: 'get_weather' });
    expect(parsed(body({ type: 'none' })).toolChoice).toBe('none');
    expect(parsed(body(undefined)).toolChoice).toBe('auto');
    expect(rejection(body({ type: 'sometimes' }))).toMatchObject({ code: 'INVALID_REQUEST', param: 'tool_choice.type' });
  });

  it('reads sampling fields, thinking and effort, and ignores metadata', () => {
    const request = parsed({
      model: 'claude-x', max_tokens: 512, temperature: 0.2, top_p: 0.9, top_k: 40, stop_sequences: ['END'],
      stream: true, metadata: { user_id: 'u' }, thinking: { type: 'enabled', budget_tokens: 50 },
      output_config: { effort: 'high' }, messages: [{ role: 'user', content: 'x' }],
    });
    expect(request).toMatchObject({
      model: 'claude-x', stream: true,
      sampling: { maxTokens: 512, temperature: 0.2, topP: 0.9, topK: 40, stop: ['END'] },
      templateVariables: { enable_thinking: true, reasoning_effort: 'high' },
    });
    expect(parsed({ model: 'm', max_tokens: 1, thinking: { type: 'disabled' }, messages: [] }).templateVariables).toEqual({ enable_thinking: false });
  });

  it('accepts server-side blocks in assistant history (Anthropic ran those tools) and thinking kinds it does not know', () => {
    const request = parsed({
      model: 'm', max_tokens: 10, thinking: { type: 'interleaved-someday' },
      messages: [
        { role: 'user', content: 'News?' },
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'news' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            { type: 'text', text: 'Nothing new.' },
          ],
        },
        { role: 'user', content: 'Thanks.' },
      ],
    });
    expect(request.messages[1]).toEqual({ role: 'assistant', content: 'Nothing new.' });
    expect(request.templateVariables).toEqual({});
  });

  it('names the field at fault', () => {
    expect(rejection('nope')).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(rejection({ model: 'm', max_tokens: 1 })).toMatchObject({ param: 'messages' });
    expect(rejection({ model: 'm', messages: [{ role: 'system', content: 'x' }] })).toMatchObject({ param: 'messages[0].role' });
    expect(rejection({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 3 }] }] })).toMatchObject({ param: 'messages[0].content[0].text' });
    expect(rejection({ model: 'm', messages: [], max_tokens: 'many' })).toMatchObject({ param: 'max_tokens' });
    expect(rejection({ model: 'm', messages: [], tools: [{ name: 'x' }] })).toMatchObject({ param: 'tools[0].input_schema' });
  });
});

describe.skipIf(!hasShared)('Anthropic request translation on real client captures', () => {
  const dir = 'clients/anthropic-messages';

  it('accepts every full request body Claude Code and llama.cpp sent', () => {
    const files = readdirSync(join(wireDir, dir)).filter((file) => file.endsWith('.json'));
    const bodies = files.map((file) => [file, recordedBody(join(dir, file))] as const).filter(([, body]) => body !== undefined);
    expect(bodies.length).toBeGreaterThanOrEqual(10);
    for (const [file, body] of bodies) {
      const result = anthropicMessagesProtocol.parseRequest(body);
      expect(result.ok, `${file}: ${result.ok ? '' : result.error.message}`).toBe(true);
      if (!result.ok) continue;
      expect(result.value.messages.length, file).toBeGreaterThan(0);
      // every tool_use id the history holds has a result message after it, under the same id
      const calls = result.value.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
      const results = new Set(result.value.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id));
      for (const id of calls) expect(results.has(id), `${file}: ${id}`).toBe(true);
    }
  });

  it('keeps Claude Code tools with their schemas and a system prompt from its blocks', () => {
    const body = recordedBody(join(dir, 'cc-0.2.107-04-main-first-turn-FULL.json'))!;
    const request = parsed(body);
    const tools = body.tools as Array<{ name: string; input_schema: unknown }>;
    expect(request.tools.map((t) => (t as { function: { name: string } }).function.name)).toEqual(tools.map((t) => t.name));
    expect(request.messages[0]!.role).toBe('system');
    expect(request.messages[0]!.content).toContain('You are Claude Code');
    expect(request).toMatchObject({ stream: true, sampling: { temperature: 1 } });
  });

  it('reads Claude Code 2.1 history: thinking, parallel tool_use, tool_result content arrays', () => {
    const fragment = readCapture(join(dir, 'cc-2.1.12-02-history-fragments-thinking-toolresult-array.json'));
    const history = fragment.messages_fragment as Array<{ role: string }>;
    // the excerpt ends on an assistant turn with calls; a request ends on the user turn before it
    const upToLastUser = history.slice(0, history.map((m) => m.role).lastIndexOf('user') + 1);
    const request = parsed({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'start' }, ...upToLastUser] });
    const first = request.messages[1]!;
    expect(first.role).toBe('assistant');
    expect(first.reasoning_content).toMatch(/^The user wants me to update/);
    expect(first.tool_calls!.map((c) => c.function.name)).toEqual(['mcp__claude-in-chrome__tabs_context_mcp', 'Read']);
    const arrayResult = request.messages[2]!;
    expect(arrayResult).toMatchObject({ role: 'tool', tool_call_id: 'toolu_017viwBiQ8hoe3PX8oQ1bFeM' });
    // text blocks join into one string, as the Chat front-end reads text parts
    expect(arrayResult.content).toMatch(/^\{"availableTabs".*\n\n\nTab Context:/s);
  });

  it('drops the billing pseudo-header Claude Code 2.1.37 puts first in system', () => {
    const fragment = readCapture(join(dir, 'cc-2.1.37-03-system-billing-header-fragment.json')).body_fragment as Record<string, unknown>;
    const request = parsed({ model: 'm', max_tokens: 10, ...fragment });
    expect(request.messages[0]!.content).toBe("You are Claude Code, Anthropic's official CLI for Claude.\n...full system prompt...");
  });

  it('reads the prefill, mixed text + tool_result and is_error captures as documented', () => {
    expect(parsed(recordedBody(join(dir, 'cc-2.1.12-01-topic-prefill-haiku45.json'))).continueFinalMessage).toBe(true);
    const mixed = parsed(recordedBody(join(dir, 'llamacpp-test-01-tool_result-mixed-with-text.json')));
    expect(mixed.messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'tool_1', content: 'Sunny, 25°C' },
      { role: 'user', content: 'Here are the results:' },
    ]);
    const failed = parsed(recordedBody(join(dir, 'llamacpp-test-02-tool_result-is_error.json')));
    expect(failed.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'test123', content: 'Error: City not found' });
  });
});
