import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { detectFamily, detectVerdict, loadTemplate } from '../../src/index.js';

// Issue 16 §5: detect says when it does not know, and parse --template does not then guess silently.
const template = (name: string) => new URL(`./templates/${name}`, import.meta.url).pathname;

describe('detect verdicts', () => {
  it('calls a ChatML template that shares only the generation prompt with three families ambiguous', async () => {
    const verdict = detectVerdict(detectFamily(loadTemplate({ template: template('chatml-tie.jinja') })));
    expect(verdict.status).toBe('ambiguous');
    // The ChatML families whose generation prompt is exactly `<|im_start|>assistant\n` after this history.
    expect(verdict.tied.map((match) => match.family).sort()).toEqual(['qwen2.5', 'qwen3', 'qwen3-coder']);
    for (const match of verdict.tied) expect(match.differs).toEqual(['chat', 'tool-loop', 'reasoning']);
    const io = memoryIO();
    expect(await run(['detect', template('chatml-tie.jinja')], io)).toBe(3);
    expect(io.out()).toMatch(/^ambiguous: qwen3, [^\n]*tie at 0\.25/);
    expect(io.out()).toContain('differs on chat, tool-loop, reasoning');
  });

  it('calls a match on markers only unknown, naming the guess', async () => {
    const verdict = detectVerdict(detectFamily(loadTemplate({ template: template('llama-headers-function-tags.jinja') })));
    expect(verdict).toMatchObject({ status: 'unknown', best: { family: 'llama-3', method: 'markers' } });
    const io = memoryIO();
    expect(await run(['detect', '--json', template('llama-headers-function-tags.jinja')], io)).toBe(3);
    expect(JSON.parse(io.out()).verdict.status).toBe('unknown');
  });

  it('documents exit code 3 in detect --help', async () => {
    const io = memoryIO();
    await run(['detect', '--help'], io);
    expect(io.out()).toMatch(/\n3 ambiguous or unknown/);
  });

  it('still exits 0 for a template that renders like one family', async () => {
    const io = memoryIO();
    expect(await run(['detect', 'fixtures/templates/chatml-thinking-prefill.jinja'], io)).toBe(0);
  });
});

describe('parse --template with an ambiguous or unknown family', () => {
  it('fails clearly on a tie instead of parsing with the first family and finding no calls', async () => {
    const io = memoryIO('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>');
    expect(await run(['parse', '--template', template('chatml-tie.jinja'), '-'], io)).toBe(2);
    expect(io.err()).toMatch(/^chatfmt: cannot tell how [^\n]* its family is ambiguous: qwen3, [^\n]*tie at 0\.25[^\n]*--family[^\n]*\n$/);
  });

  it('derives the `<function=NAME>{json}</function>` calls of a Functionary-shaped template instead of using llama-3', async () => {
    // The call turn ends `<|eom_id|>` where an answer ends `<|eot_id|>`, as in Llama 3.1 and Functionary v3.1.
    const completion = 'Checking.<function=get_weather>{"city": "Paris"}</function><function=get_weather>{"city": "Rome", "days": 2}</function><|eom_id|>';
    const io = memoryIO(completion);
    expect(await run(['parse', '--template', template('llama-headers-function-tags.jinja'), '-'], io)).toBe(0);
    const message = JSON.parse(io.out()) as { content: string; tool_calls: Array<{ function: { name: string; arguments: string } }>; diagnostics: Array<{ code: string }> };
    expect(message.content).toBe('Checking.');
    expect(message.tool_calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Rome', days: 2 }],
    ]);
    expect(message.diagnostics.map((d) => d.code)).toEqual(['PARSE_GRAMMAR_DERIVED']);
  });

  it('fails clearly when only markers point at a family whose parser cannot read the calls the template writes', async () => {
    const io = memoryIO('[get_weather(city=Paris)]');
    expect(await run(['parse', '--template', template('llama-headers-pythonic.jinja'), '-'], io)).toBe(2);
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/^chatfmt: cannot tell how [^\n]* its family is unknown: [^\n]*only template markers point at llama-3[^\n]*\n$/);
  });
});

describe('a Hub id given as a template', () => {
  it('gets a hint to download the template files, on detect and parse', async () => {
    for (const argv of [['detect', 'Qwen/Qwen3-8B'], ['parse', '--template', 'Qwen/Qwen3-8B', '-']]) {
      const io = memoryIO('Hi');
      expect(await run(argv, io), argv[0]).toBe(2);
      expect(io.err()).toMatch(/^chatfmt: Qwen\/Qwen3-8B: no such file or folder; [^\n]*huggingface-cli download Qwen\/Qwen3-8B --include '\*\.json' '\*\.jinja'[^\n]*\n$/);
    }
  });

  it('is not hinted for a missing path that cannot be a Hub id', async () => {
    const io = memoryIO();
    expect(await run(['detect', 'no/such/dir/template.jinja'], io)).toBe(2);
    expect(io.err()).not.toContain('huggingface-cli');
  });
});
