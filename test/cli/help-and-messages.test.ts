import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

async function cli(argv: string[], stdin = '') {
  const io = memoryIO(stdin);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

// Issue 16 §4: transpile --to hermes failed without --tools (the Hermes template insists on a tools list).
describe('transpile --to hermes', () => {
  it('works without --tools', async () => {
    const result = await cli(['transpile', '--from', 'qwen3', '--to', 'hermes', '-'], '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>');
    expect([result.code, result.err]).toEqual([0, '']);
    expect(result.out).toContain('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>');
  });
});

// Issue 16 §4: every exit code a command can end with is listed in its --help.
describe('each command lists its exit codes', () => {
  const commands = ['render', 'parse', 'detect', 'validate', 'convert', 'transpile', 'families'];
  for (const command of commands) {
    it(command, async () => {
      const help = (await cli([command, '--help'])).out.replace(/\n/g, ' ');
      const line = /Exit codes: (.*?)\.(?: |$)/.exec(help)?.[1];
      expect(line, `${command} --help has no "Exit codes:" sentence`).toBeDefined();
      for (const code of [0, 1, 2]) expect(line).toMatch(new RegExp(`(?:^|, )${code} `));
      // Writing the result can fail on every command (-o on a full disk): that is exit 1.
      expect(line).toMatch(/output could not be written/);
    });
  }
});

// Issue 16 §4: error messages stay on one line even when they quote a row.
describe('messages that quote text stay on one line', () => {
  it('a convert summary quoting a tool name with a line break', async () => {
    // The call names a tool the row does not declare: validate's check (which convert shares) quotes the name.
    const tools = [{ type: 'function', function: { name: 'g', parameters: { type: 'object', properties: {} } } }];
    const rows = `${JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f\nx', arguments: '{\n' } }] }], tools })}\n`;
    const result = await cli(['convert', '-', '--from', 'openai', '--to', 'openai'], rows);
    expect(result.code).toBe(1);
    const lines = result.err.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^chatfmt convert: 1 row\(s\)/);
    expect(lines.slice(1).every((line) => line.startsWith('  '))).toBe(true);
    expect(result.err).toContain('f\\nx');
  });

  it('a validate summary quoting a tool name with a line break', async () => {
    const row = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f\nx', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'ok' }, { role: 'assistant', content: 'done' }], tools: [{ type: 'function', function: { name: 'g', parameters: { type: 'object', properties: {} } } }] };
    const result = await cli(['validate', '--workers', '1', '-'], `${JSON.stringify(row)}\n`);
    expect(result.out).toContain('f\\nx');
    expect(result.out.split('\n').filter((line) => line.trim() === 'x')).toEqual([]);
  });

  for (const [quoted, argv, expected] of [
    ['soon\nlater', ['render', '--family', 'qwen3', '--now', 'soon\nlater'], 'chatfmt: --now: "soon\\nlater" is not an ISO date-time (e.g. 2025-01-15T12:00:00)\n'],
    ['qwen\r\n3', ['parse', '--family', 'qwen\r\n3', '-'], /^chatfmt: unknown family "qwen\\r\\n3"; did you mean "qwen3"\? \(known: [^\n]+\)\n$/],
  ] as const) {
    it(`a usage error quoting ${JSON.stringify(quoted)}`, async () => {
      const result = await cli([...argv], '{"messages": [{"role": "user", "content": "hi"}]}');
      expect(result.code).toBe(2);
      if (typeof expected === 'string') expect(result.err).toBe(expected);
      else expect(result.err).toMatch(expected);
    });
  }
});
