import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 9 part 3: `chatfmt parse --template` for a template of unknown family.
const fixture = (name: string) => new URL(`../../fixtures/templates/${name}`, import.meta.url).pathname;

async function cli(argv: string[], stdin: string) {
  const io = memoryIO(stdin);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('chatfmt parse --template', () => {
  it('parses with the family a template renders like (here the qwen3-thinking variant)', async () => {
    const { code, out } = await cli(['parse', '--template', fixture('chatml-thinking-prefill.jinja')], 'Paris it is.\n</think>\n\nSunny.');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ reasoning_content: 'Paris it is.', content: 'Sunny.', diagnostics: [] });
  });

  it('derives the grammar of an unknown format and says so', async () => {
    const completion = 'Sure.<function_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</function_call><|end|>';
    const { code, out } = await cli(['parse', '--template', fixture('function-call-tags.jinja')], completion);
    expect(code).toBe(0);
    const message = JSON.parse(out);
    expect(message.content).toBe('Sure.');
    expect(message.tool_calls[0].function).toEqual({ name: 'get_weather', arguments: '{"city": "Paris"}' });
    expect(message.diagnostics[0]).toMatchObject({ code: 'PARSE_GRAMMAR_DERIVED', severity: 'warning' });
  });

  it('streams with a derived grammar, the diagnostic first', async () => {
    const completion = 'Sure.<function_call>{"name": "f", "arguments": {}}</function_call>';
    const { code, out } = await cli(['parse', '--stream', '--template', fixture('function-call-tags.jinja')], completion);
    expect(code).toBe(0);
    const lines = out.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[0].diagnostics[0].code).toBe('PARSE_GRAMMAR_DERIVED');
    expect(lines.some((delta) => delta.tool_calls?.[0]?.function?.name === 'f')).toBe(true);
  });

  it('fails in one line naming what it tried when the template has no call syntax', async () => {
    const { code, out, err } = await cli(['parse', '--template', fixture('plain-chat.jinja')], 'hello');
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(/^chatfmt: cannot tell how .*plain-chat\.jinja writes its output: it has no response_template, .*name-then-json-arguments[^\n]*\n$/);
  });

  it('needs a family or a template', async () => {
    const { code, err } = await cli(['parse'], 'x');
    expect(code).toBe(2);
    expect(err).toMatch(/^chatfmt: no family: give --family <id> .* or --template <model folder>\n$/);
  });

  const outputs = tempDir('chatfmt-o-');
  it('-o writes the result to a file', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const file = join(outputs.path, 'out.json');
    const { code, out } = await cli(['parse', '--family', 'qwen3', '-o', file], 'Hello.');
    expect([code, out]).toEqual([0, '']);
    expect(JSON.parse(readFileSync(file, 'utf8')).content).toBe('Hello.');
  });
});
