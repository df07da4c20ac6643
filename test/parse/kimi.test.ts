import { describe, expect, it } from 'vitest';
import { accumulateDeltas, createStreamParser, familyVariants, parse, render, resolveFamilyId } from '../../src/index.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const call = '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>';

// Issue 16 §3: Kimi-K2.5's generation prompt opens <think>, so its completion starts inside reasoning.
describe('kimi-k2.5 variant', () => {
  it('renders the Kimi-K2 prompt with the assistant turn opened by <think>', () => {
    const plain = render({ family: 'kimi-k2', messages, addGenerationPrompt: true }).text;
    expect(plain.endsWith('<|im_assistant|>assistant<|im_middle|>')).toBe(true);
    expect(render({ family: 'kimi-k2.5', messages, addGenerationPrompt: true }).text).toBe(`${plain}<think>`);
    expect(render({ family: 'kimi-k2.5', messages }).text).toBe(render({ family: 'kimi-k2', messages }).text);
    expect(resolveFamilyId('kimi-k2.5')).toBe('kimi-k2');
    expect(familyVariants.find((variant) => variant.id === 'kimi-k2.5')).toMatchObject({ of: 'kimi-k2', prefill: '<think>' });
  });

  it('parses a completion that starts inside reasoning, calls included', () => {
    const message = parse(`The user wants Paris.</think>Checking.${call}`, { family: 'kimi-k2.5', tools });
    expect(message.reasoning_content).toBe('The user wants Paris.');
    expect(message.content).toBe('Checking.');
    expect(message.tool_calls).toMatchObject([{ id: 'functions.get_weather:0', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }]);
    // Thinking switched off: the prompt closed the block itself.
    expect(parse('Sunny.', { family: 'kimi-k2.5', prefix: '<think></think>' })).toMatchObject({ content: 'Sunny.', reasoning_content: null });
  });

  it('is reachable from the CLI', async () => {
    const io = memoryIO('Paris first.</think>Sunny.', process.cwd());
    expect(await run(['parse', '--family', 'kimi-k2.5'], io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ reasoning_content: 'Paris first.', content: 'Sunny.' });
  });
});

// Issue 16 §3: real Kimi-K2-Thinking output writes a whole call section inside its reasoning, then closes it.
describe('a call written inside closed reasoning', () => {
  const completion = `<think>I should look it up: ${call} and then answer.</think>Let me look that up.`;

  it('stays reasoning, is not run, and says so with PARSE_CALL_IN_REASONING', () => {
    const message = parse(completion, { family: 'kimi-k2', tools });
    expect(message.tool_calls).toEqual([]);
    expect(message.reasoning_content).toBe(`I should look it up: ${call} and then answer.`);
    expect(message.content).toBe('Let me look that up.');
    const start = completion.indexOf(call);
    expect(message.diagnostics).toEqual([
      { code: 'PARSE_CALL_IN_REASONING', severity: 'warning', message: expect.stringContaining('reasoning'), span: [start, start + call.length], family: 'kimi-k2' },
    ]);
  });

  it('a call that ends open reasoning is still a call, with no warning', () => {
    const message = parse(`<think>I should look it up.${call}`, { family: 'kimi-k2', tools });
    expect(message.tool_calls).toHaveLength(1);
    expect(message.diagnostics).toEqual([]);
  });
});

// Issue 16 §3: a malformed Kimi call keeps its raw text whole, section markers included; no text is ever lost.
describe('a malformed Kimi call keeps its whole text', () => {
  const bad = '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": Paris}<|tool_call_end|>';
  const good = '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Rome"}<|tool_call_end|>';

  it('a section with no good call is text, markers and spacing included', () => {
    const section = `<|tool_calls_section_begin|>\n${bad}\n<|tool_calls_section_end|>`;
    const message = parse(`Checking.${section}Done.`, { family: 'kimi-k2', tools });
    expect(message.tool_calls).toEqual([]);
    expect(message.content).toBe(`Checking.${section}Done.`);
    expect(message.diagnostics.map((d) => d.code)).toEqual(['PARSE_BAD_ARGS_JSON']);
  });

  it('truncated inside the section: the opener stays with the text', () => {
    const text = 'Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Par';
    expect(parse(text, { family: 'kimi-k2', tools })).toMatchObject({ content: text, tool_calls: [] });
  });

  it('a bad call before a good one: every character is kept, the good call still runs', () => {
    const text = `<|tool_calls_section_begin|>${bad}${good}<|tool_calls_section_end|>`;
    const message = parse(text, { family: 'kimi-k2', tools });
    expect(message.tool_calls.map((call) => call.function.arguments)).toEqual(['{"city": "Rome"}']);
    expect(message.content).toBe(`<|tool_calls_section_begin|>${bad}<|tool_calls_section_end|>`);
  });

  it('after a good call of the same section, the section markers are structure', () => {
    const message = parse(`<|tool_calls_section_begin|>${good}${bad}<|tool_calls_section_end|>`, { family: 'kimi-k2', tools });
    expect(message.tool_calls).toHaveLength(1);
    expect(message.content).toBe(bad);
  });
});

// Found through the Responses API: the openai client refuses a stream with two function calls of one call_id.
describe('a Kimi-K2 id written twice', () => {
  const twice = `${call}\n${call.replace('Paris', 'Rome')}`;

  it('the second call gets a fresh id and a PARSE_DUPLICATE_CALL_ID warning, batch and streamed alike', () => {
    const idGenerator = ({ index }: { index: number }) => `call_${index}`;
    const message = parse(twice, { family: 'kimi-k2', tools, idGenerator });
    expect(message.tool_calls.map((c) => [c.id, c.function.arguments])).toEqual([['functions.get_weather:0', '{"city": "Paris"}'], ['call_1', '{"city": "Rome"}']]);
    expect(message.diagnostics).toEqual([expect.objectContaining({ code: 'PARSE_DUPLICATE_CALL_ID', severity: 'warning' })]);
    const stream = createStreamParser({ family: 'kimi-k2', tools, idGenerator });
    const deltas = [...twice].flatMap((ch) => stream.push(ch));
    expect(accumulateDeltas([...deltas, ...stream.finish()])).toEqual(message);
  });
});
