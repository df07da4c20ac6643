import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 17 item 5: numbers in arguments and tools come out exactly as written, as `chatfmt render` prints them.

const big = '1234567890123456789';
const schema = `{"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890},"x":{"type":"number","default":1.0}}}`;
const tools = `[{"type":"function","function":{"name":"f","parameters":${schema}}}]`;
const args = `{"n":${big},"x":1.0,"y":-0.5}`;

const inputs: Record<string, string> = {
  openai: `{"messages":[{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":${args}}}]},{"role":"tool","tool_call_id":"c1","content":"ok"},{"role":"assistant","content":"done"}],"tools":${tools}}`,
  sharegpt: JSON.stringify({
    conversations: [{ from: 'human', value: 'go' }, { from: 'function_call', value: `{"name":"f","arguments":${args}}` }, { from: 'observation', value: 'ok' }, { from: 'gpt', value: 'done' }],
    tools,
  }),
  'hermes-text': JSON.stringify({
    conversations: [
      { from: 'system', value: `<tools>\n${tools}\n</tools>` },
      { from: 'human', value: 'go' },
      { from: 'gpt', value: `<tool_call>\n{"name": "f", "arguments": ${args}}\n</tool_call>` },
      { from: 'tool', value: '<tool_response>\nok\n</tool_response>' },
      { from: 'gpt', value: 'done' },
    ],
  }),
  xlam: JSON.stringify({
    query: 'go',
    tools: `[{"name":"f","description":"d","parameters":{"n":{"type":"int","description":"n","maximum":12345678901234567890},"x":{"type":"float","description":"x","default":1.0}}}]`,
    answers: `[{"name":"f","arguments":${args}}]`,
  }),
};

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO();
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('numbers survive convert exactly', () => {
  const tmp = tempDir();

  it.each(Object.keys(inputs))('%s: --to openai keeps big integers and integral floats; the training text equals chatfmt render', async (shape) => {
    const file = tmp.write(`${shape}.jsonl`, `${inputs[shape]}\n`);
    const canonical = await cli(['convert', file, '--from', shape, '--to', 'openai']);
    expect(canonical.err).toContain('1 converted');
    const line = canonical.out.trim();
    // The arguments string keeps every digit and the float's ".0"; the tool schema keeps its numbers too.
    expect(line).toContain(`\\"n\\": ${big}, \\"x\\": 1.0, \\"y\\": -0.5`);
    expect(line).toContain('"maximum":12345678901234567890');
    expect(line).toContain('"default":1.0');

    const records = await cli(['convert', file, '--from', shape, '--to', 'qwen3']);
    const text = (JSON.parse(records.out) as { text: string }).text;
    expect(text).toContain(`"n": ${big}, "x": 1.0, "y": -0.5`);
    expect(text).toContain('"default": 1.0');
    // The same conversation through render: the canonical line for the importers, the input itself for openai.
    const rendered = await cli(['render', '--family', 'qwen3', tmp.write(`${shape}.render.json`, shape === 'openai' ? inputs.openai! : line)]);
    expect(rendered.code).toBe(0);
    expect(text).toBe(rendered.out);
  });

  it('weight 0.0 (a float) still opts a turn out of training', async () => {
    const row = `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b","weight":0.0},{"role":"user","content":"c"},{"role":"assistant","content":"d","weight":1.0}]}`;
    const out = await cli(['convert', tmp.write('weights.jsonl', `${row}\n`), '--from', 'openai', '--to', 'qwen3']);
    const record = JSON.parse(out.out) as { text: string; spans: Array<[number, number]> };
    expect(record.spans.map(([s, e]) => record.text.slice(s, e))).toEqual([expect.stringContaining('d')]);
  });

  it('integer-like keys keep their order in arguments, and a row or turn holding one is still a row or a turn', async () => {
    const row = `{"1":"extra","messages":[{"role":"user","content":"go","0":"x"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":{"10":1,"2":2}}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`;
    const out = await cli(['convert', tmp.write('keys.jsonl', `${row}\n`), '--from', 'openai', '--to', 'openai']);
    expect(out.err).toContain('1 converted');
    expect(out.out).toContain('"arguments":"{\\"10\\": 1, \\"2\\": 2}"');
  });
});
