// How conversation JSON reaches a template: 1.0 stays a float where chatfmt reads JSON text, and arguments nested too
// deep to read are an error, never an empty parameter list.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { parsePythonJson, render, type Conversation } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir();
const weatherText = '{"messages": [{"role": "user", "content": "t?"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"temp": 1.0, "n": 12345678901234567890}}}]}]}';

describe('numbers in conversation JSON', () => {
  it('the CLI reads the input file with Python semantics: 1.0 and big integers print as written', async () => {
    const file = tmp.write('chat.json', weatherText);
    const io = memoryIO('');
    expect(await run(['render', '--family', 'qwen3', file], io)).toBe(0);
    expect(io.out()).toContain('{"name": "f", "arguments": {"temp": 1.0, "n": 12345678901234567890}}');
  });

  it('a library caller keeps them by reading the text with parsePythonJson (JSON.parse makes 1.0 an int)', () => {
    const python = render({ family: 'qwen3', ...(parsePythonJson(weatherText) as Conversation) });
    expect(python.text).toContain('"temp": 1.0, "n": 12345678901234567890}');
    const plain = render({ family: 'qwen3', ...(JSON.parse(weatherText) as Conversation) });
    expect(plain.text).toContain('"temp": 1, "n": 12345678901234567000}');
  });
});

describe('--args auto and arguments nested past 1,000 levels', () => {
  const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'array' } } } } }];
  const conversation = (args: string): Conversation => ({
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] },
    ],
    tools,
  });
  const nested = (depth: number) => `{"a": ${'['.repeat(depth)}${']'.repeat(depth)}}`;

  it('minimax-m2 renders the parameters of nested arguments it can read', () => {
    expect(render({ family: 'minimax-m2', ...conversation(nested(50)) }).text).toContain('<parameter name="a">');
  });

  it('is an INPUT_INVALID error naming the arguments, not a call rendered with no parameters', () => {
    let caught: unknown;
    try {
      render({ family: 'minimax-m2', ...conversation(nested(1200)) });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'INPUT_INVALID' });
    expect((caught as Error).message).toContain('messages[1].tool_calls[0].function.arguments');
    expect((caught as Error).message).toContain('Nesting too deep');
  });
});
