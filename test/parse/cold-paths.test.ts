import { describe, expect, it } from 'vitest';
import { accumulateDeltas, parse } from '../../src/index.js';
import type { Tool } from '../../src/types.js';
import { splitAt } from '../helpers/chunkings.js';
import { idGenerator, streamDeltas } from '../helpers/stream.js';

// The one-step reads a cold first parse takes (call names and ids by one match, a call object's plain keys and name
// without a JSON scanner, a whole harmony header at once) must read what the step-by-step paths read: the same result
// for the usual text and for text at their edges (white space beyond ASCII, escapes, control characters, limits,
// stray markers), batch and streamed in any two pieces or one character at a time.

function tool(name: string): Tool {
  return { type: 'function', function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
}
const tools = [tool('get_weather')];

function parsed(family: string, text: string, withTools: Tool[] = tools) {
  const batch = parse(text, { family, tools: withTools, idGenerator });
  const splits = [[...text], ...Array.from({ length: text.length - 1 }, (_, at) => splitAt(text, [at + 1]))];
  for (const chunks of splits) expect(accumulateDeltas(streamDeltas(chunks, { family, tools: withTools })), JSON.stringify(chunks)).toEqual(batch);
  return batch;
}

const calls = (message: ReturnType<typeof parse>) => message.tool_calls.map((c) => [c.id, c.function.name, c.function.arguments]);

describe('call names and ids read in one match (Mistral)', () => {
  it('reads NAME[CALL_ID]ID[ARGS] and stops a name at any white space String.prototype.trim knows', () => {
    expect(calls(parsed('mistral', '[TOOL_CALLS]get_weather[CALL_ID]Ab1Cd2Ef3[ARGS]{"city": "Paris"}'))).toEqual([['Ab1Cd2Ef3', 'get_weather', '{"city": "Paris"}']]);
    for (const space of ['\u00a0', '\u2028', '\u3000', '\ufeff']) {
      const message = parsed('mistral', `[TOOL_CALLS]get${space}weather[ARGS]{}`);
      expect(message.tool_calls, JSON.stringify(space)).toEqual([]);
      expect(message.content).toContain('weather[ARGS]{}');
      // The name ended at the space, where no delimiter follows; read on, it would be an undeclared name.
      expect(message.diagnostics.map((d) => d.message).join(' ')).toContain('call name not followed by');
    }
  });

  it('takes a name of 512 characters and refuses one of 513 as overlong', () => {
    const long = 'a'.repeat(512);
    expect(calls(parse(`[TOOL_CALLS]${long}[ARGS]{}`, { family: 'mistral', tools: [tool(long)], idGenerator }))).toEqual([['call_0', long, '{}']]);
    const longer = `${long}a`;
    const message = parse(`[TOOL_CALLS]${longer}[ARGS]{}`, { family: 'mistral', tools: [tool(longer)], idGenerator });
    expect(message.tool_calls).toEqual([]);
    expect(message.diagnostics.map((d) => d.message).join(' ')).toContain('overlong call name');
  });
});

describe("a call object's plain keys and name read without a JSON scanner", () => {
  it('reads plain and escaped keys and names alike', () => {
    for (const object of [
      '{"name": "get_weather", "arguments": {"city": "Paris"}}',
      '{"n\\u0061me": "get_weather", "arguments": {"city": "Paris"}}',
      '{"name": "get\\u005fweather", "arguments": {"city": "Paris"}}',
      '{"arguments": {"city": "Paris"}, "name":"get_weather"}',
    ]) {
      expect(calls(parsed('hermes', `<tool_call>\n${object}\n</tool_call>`)), object).toEqual([['call_0', 'get_weather', '{"city": "Paris"}']]);
    }
  });

  it('refuses a key or name holding a raw control character, as JSON does', () => {
    for (const object of ['{"name": "get\tweather", "arguments": {}}', '{"na\u0001me": "get_weather", "arguments": {}}']) {
      expect(parsed('hermes', `<tool_call>${object}</tool_call>`).tool_calls, JSON.stringify(object)).toEqual([]);
    }
  });

  it("takes Mistral's list ids as written, and mints one for an empty or non-string id", () => {
    const text = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "A"}, "id": "123456789"}, {"id": "", "name": "get_weather", "arguments": {}}, {"id": 5, "name": "get_weather", "arguments": {}}]';
    const message = parsed('mistral', text);
    expect(message.tool_calls.map((c) => c.id)).toEqual(['123456789', 'call_1', 'call_2']);
  });
});

describe('a whole harmony header read at once', () => {
  const call = (header: string) => `<|start|>assistant${header}<|message|>{"city": "Paris"}<|call|>`;

  it('reads the recipient and content type around <|channel|> and <|constrain|>, and a stray < as a word', () => {
    for (const header of ['<|channel|>commentary to=functions.get_weather <|constrain|>json', ' to=functions.get_weather<|channel|>commentary json', '<|channel|>commentary to=functions.get_weather <b>json']) {
      expect(calls(parsed('gpt-oss', call(header))), header).toEqual([['call_0', 'get_weather', '{"city": "Paris"}']]);
    }
  });

  it('leaves a header holding another message marker, or longer than the limit, to the marker loop', () => {
    const cut = parsed('gpt-oss', `<|start|>assistant<|channel|>analysis<|end|>${call('<|channel|>commentary to=functions.get_weather')}`);
    expect(calls(cut)).toEqual([['call_0', 'get_weather', '{"city": "Paris"}']]);
    const long = parsed('gpt-oss', call(`<|channel|>commentary to=functions.get_weather ${'x'.repeat(300)}`));
    expect(long.tool_calls).toEqual([]);
    expect(long.diagnostics.map((d) => d.message).join(' ')).toContain('longer than 256');
  });
});
