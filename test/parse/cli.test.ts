import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('chatfmt-parse-cli-').path;
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return name;
};

async function cli(argv: string[], stdin = '') {
  const io = memoryIO(stdin, dir);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

const qwenCall = 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';

describe('chatfmt parse', () => {
  it('parses stdin into a pretty-printed message', async () => {
    const { code, out, err } = await cli(['parse', '--family', 'qwen3'], qwenCall);
    expect([code, err]).toEqual([0, '']);
    expect(out.endsWith('}\n')).toBe(true);
    expect(out).toContain('\n  "content": "Sure.",');
    const message = JSON.parse(out);
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } });
    expect(message.tool_calls[0].id).toMatch(/^call_[A-Za-z0-9]{24}$/);
  });

  it('reads a file, accepts aliases, tools as {tools: [...]} and a prefix', async () => {
    const completion = file('c.txt', 'Hmm.</think>Hi');
    expect(JSON.parse((await cli(['parse', completion, '--family', 'qwq', '--prefix', '<think>\n'])).out)).toMatchObject({ reasoning_content: 'Hmm.', content: 'Hi' });
    const tools = file('tools.json', JSON.stringify({ tools: [{ type: 'function', function: { name: 'other' } }] }));
    const result = await cli(['parse', '--family', 'qwen3', '--tools', tools], qwenCall);
    expect(JSON.parse(result.out)).toMatchObject({ tool_calls: [], diagnostics: [{ code: 'PARSE_UNKNOWN_TOOL' }] });
    expect(result.code).toBe(0);
  });

  it('takes the prefix from a rendered prompt', async () => {
    const prompt = file('prompt.txt', '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n');
    const { out } = await cli(['parse', '--family', 'qwen3', '--prompt', prompt], 'Greeting.</think>Hello');
    expect(JSON.parse(out)).toMatchObject({ reasoning_content: 'Greeting.', content: 'Hello' });
  });

  it('takes a mistral prompt\'s tail after its last [/INST] or [/TOOL_RESULTS], whichever is later', async () => {
    const prompt = file(
      'mistral-prompt.txt',
      '<s>[INST]Check the log.[/INST][TOOL_CALLS]read_log[CALL_ID]a1B2c3D4e[ARGS]{}</s>[TOOL_RESULTS]a1B2c3D4e[TOOL_CONTENT]the log mentions [THINK][/TOOL_RESULTS]',
    );
    const { out } = await cli(['parse', '--family', 'mistral', '--prompt', prompt], 'The log is fine.</s>');
    expect(JSON.parse(out)).toMatchObject({ reasoning_content: null, content: 'The log is fine.' });
  });

  it('--strict exits 1 on an error diagnostic', async () => {
    const { code, err } = await cli(['parse', '--family', 'hermes', '--strict'], '<tool_call>{"name": "f", "arguments": {');
    expect(code).toBe(1);
    expect(err).toMatch(/^chatfmt: PARSE_TRUNCATED_CALL/);
  });

  it('--stream prints one delta per line', async () => {
    const { code, out } = await cli(['parse', '--family', 'kimi-k2', '--stream'], 'Hi<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>');
    expect(code).toBe(0);
    const deltas = out.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(deltas).toEqual([
      { content: 'Hi' },
      { tool_calls: [{ index: 0, id: 'functions.f:0', type: 'function', function: { name: 'f', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
    ]);
  });

  it('usage errors exit 2 with one line', async () => {
    expect(await cli(['parse'], 'x')).toMatchObject({ code: 2, err: expect.stringMatching(/^chatfmt: no family/) });
    expect(await cli(['parse', '--family', 'llama9'], 'x')).toMatchObject({ code: 2, err: expect.stringMatching(/^chatfmt: unknown family "llama9"/) });
    expect(await cli(['parse', 'missing.txt', '--family', 'qwen3'])).toMatchObject({ code: 2, err: 'chatfmt: missing.txt: no such file\n' });
    const bad = file('bad.json', '{');
    expect((await cli(['parse', '--family', 'qwen3', '--tools', bad], 'x')).code).toBe(2);
  });

  it('--help lists the families with an example', async () => {
    const { code, out } = await cli(['parse', '--help']);
    expect(code).toBe(0);
    expect(out).toContain('--family <id>');
    expect(out).toContain('deepseek-v3.1');
    expect(out).toContain('chatfmt parse --family qwen3 completion.txt');
  });
});
