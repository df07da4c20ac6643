import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTurn, loadTemplate, parse, renderConversation, type Conversation, type Message } from '../../src/index.js';
import { hasShared, once, sharedDir } from '../helpers/shared.js';

// What the shared inputs do not reach in the llama-3 template: ipython mode (built-in calls, <|eom_id|>), the
// variables Meta's template reads (date_string, tools_in_user_message, custom_tools) and the forms of a tool result.
// Each conversation renders the same as Meta's template (rendered by the same engine), or both fail; and the facts
// of FORMATS-NEXT §5 are asserted directly.
const ours = loadTemplate({ family: 'llama-3' });
const NOW = new Date('2025-01-15T12:00:00Z');
const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const head: Message[] = [
  { role: 'system', content: '  Be brief.  ' },
  { role: 'user', content: ' Weather? ' },
];
/** A tool result of any JSON shape: the template decides how each one is written. */
const result = (content: unknown): Message => ({ role: 'tool', content: content as Message['content'] });
const called = (name: string, args: Record<string, unknown>): Message => ({ role: 'assistant', content: 'dropped', tool_calls: [{ type: 'function', function: { name, arguments: args } }] });

const conversations: Record<string, Conversation> = {
  builtin: {
    messages: [...head, called('brave_search', { query: 'paris weather', n: '3' }), { role: 'ipython', content: 'sunny' }, { role: 'assistant', content: ' It is sunny. ' }],
    tools: [weather],
    builtin_tools: ['brave_search', 'code_interpreter'],
    add_generation_prompt: true,
  },
  codeInterpreter: { messages: [...head, called('code_interpreter', { code: "print('hey')" }), result({ out: 'hey' })], builtin_tools: ['code_interpreter'] },
  customCallInIpythonMode: { messages: [...head, called('get_weather', { city: 'Paris' }), result(['a', 1])], tools: [weather], builtin_tools: ['brave_search'] },
  toolsInSystem: {
    messages: [...head, called('get_weather', { city: 'Paris' }), result(null), result(42)],
    tools: [weather],
    tools_in_user_message: false,
    date_string: '01 Jan 2025',
    add_generation_prompt: true,
  },
  customTools: { messages: [{ role: 'user', content: 'hi' }], custom_tools: [weather], add_generation_prompt: true },
  emptyTools: { messages: [{ role: 'user', content: 'hi' }], tools: [] },
  developerRole: { messages: [{ role: 'developer', content: 'd' }, { role: 'user', content: 'u' }], add_generation_prompt: true },
  toolsWithoutUserMessage: { messages: [{ role: 'system', content: 's' }], tools: [weather] },
  noCalls: { messages: [...head, { role: 'assistant', content: 'x', tool_calls: [] }] },
  nonStringBuiltinArgument: { messages: [...head, called('brave_search', { n: 3 })], builtin_tools: ['brave_search'] },
};

function attempt(template: ReturnType<typeof loadTemplate>, conversation: Conversation): string | Error {
  try {
    return renderConversation(template, conversation, { now: NOW }).text;
  } catch (error) {
    return error as Error;
  }
}

describe.skipIf(!hasShared)('llama-3 template beyond the shared inputs, against Meta\'s', () => {
  const file = join(sharedDir, 'templates', 'official', 'llama', 'meta-llama-Llama-3.3-70B-Instruct.jinja');
  // Loaded inside the tests: vitest runs this body while collecting, even when the suite is skipped.
  const official = once(() => ({ ...loadTemplate({ template: file }), specialTokens: ours.specialTokens }));
  for (const [name, conversation] of Object.entries(conversations)) {
    it(name, () => {
      const theirs = attempt(official(), conversation);
      const mine = attempt(ours, conversation);
      if (theirs instanceof Error) expect(mine, String(theirs)).toBeInstanceOf(Error);
      else expect(mine).toBe(theirs);
    });
  }
});

describe('llama-3 template facts (FORMATS-NEXT §5)', () => {
  const text = (name: string) => renderConversation(ours, conversations[name]!, { now: NOW }).text;

  it('writes a built-in call as TOOL.call(K="V") after <|python_tag|>, ends ipython-mode calls with <|eom_id|>, lists built-ins but code_interpreter', () => {
    const out = text('builtin');
    expect(out).toContain('Environment: ipython\nTools: brave_search\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nBe brief.<|eot_id|>');
    expect(out).toContain('<|start_header_id|>assistant<|end_header_id|>\n\n<|python_tag|>brave_search.call(query="paris weather", n="3")<|eom_id|>');
    expect(out).not.toContain('dropped');
  });

  it('JSON-quotes a plain-string tool result, and writes a custom call as {"name", "parameters"}', () => {
    expect(text('builtin')).toContain('<|start_header_id|>ipython<|end_header_id|>\n\n"sunny"<|eot_id|>');
    expect(text('customCallInIpythonMode')).toContain('{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>');
  });

  it('honours date_string and tools_in_user_message=false (tools in the system turn)', () => {
    const out = text('toolsInSystem');
    expect(out).toContain('Today Date: 01 Jan 2025\n\nYou have access to the following functions.');
    expect(out).toContain('<|start_header_id|>user<|end_header_id|>\n\nWeather?<|eot_id|>');
    expect(out).toContain('{"name": "get_weather", "parameters": {"city": "Paris"}}<|eot_id|>');
  });

  it('refuses several calls in one message, as Meta\'s template does', () => {
    const parallel = { messages: [...head, { role: 'assistant', content: '', tool_calls: [called('a', {}).tool_calls![0]!, called('b', {}).tool_calls![0]!] }] };
    expect(() => renderConversation(ours, parallel)).toThrow(/single tool-calls/);
  });
});

// Meta's template writes built-in values raw between double quotes, so only values without `"`, `\` or a line break
// can come back (a Python string cannot hold them unescaped).
describe('llama-3 built-in calls round-trip: render → parse', () => {
  for (const [name, args] of [['brave_search', { query: 'weather in Menlo Park, CA (today)', count: '3' }], ['code_interpreter', { code: "print('hey', {'a': [1, 2]})" }]] as const) {
    it(name, () => {
      const message: Message = { role: 'assistant', content: '', tool_calls: [{ type: 'function', function: { name, arguments: args } }] };
      const { prompt, completion } = formatTurn(message, { family: 'llama-3', variables: { builtin_tools: ['brave_search', 'code_interpreter'] } });
      expect(completion.startsWith(`<|python_tag|>${name}.call(`)).toBe(true);
      expect(completion.endsWith('<|eom_id|>')).toBe(true);
      const parsed = parse(completion, { family: 'llama-3', prefix: prompt });
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.content).toBeNull();
      expect(parsed.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([[name, args]]);
    });
  }
});
