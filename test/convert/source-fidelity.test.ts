import { describe, expect, it } from 'vitest';
import { importRow, render } from '../../src/index.js';

describe('imported rows keep what the source says', () => {
  // Issue 10 item 8: a parameter with a default is optional, so a call that leaves it out is valid.
  it('xLAM parameters with a default are not required', () => {
    const row = {
      query: 'Sum 1 and 2',
      tools: JSON.stringify([{ name: 'sum', parameters: { a: { type: 'int' }, scale: { type: 'float', default: 1.0 }, tag: { type: 'str, optional' } } }]),
      answers: JSON.stringify([{ name: 'sum', arguments: { a: 3 } }]),
    };
    const { conversation, issues } = importRow(row, 'xlam');
    expect(issues).toEqual([]);
    expect(conversation!.tools[0]!.function.parameters).toMatchObject({ required: ['a'] });
  });

  // Issue 10 item 9: arguments re-serialised compactly made the training text differ from what transformers renders.
  it('object arguments are written as transformers writes a dict, JSON-string arguments keep their text', () => {
    const asObject = importRow({ conversations: [{ from: 'human', value: 'Paris?' }, { from: 'function_call', value: JSON.stringify({ name: 'w', arguments: { city: 'Paris', days: 2 } }) }] }, 'sharegpt');
    expect(asObject.conversation!.messages[1]!.tool_calls![0]!.function.arguments).toBe('{"city": "Paris", "days": 2}');
    const asText = importRow({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'w', arguments: '{"city":"Paris"}' } }] }] }, 'openai');
    expect(asText.conversation!.messages[1]!.tool_calls![0]!.function.arguments).toBe('{"city":"Paris"}');
  });

  it('renders the same text as the source row with dict arguments would', () => {
    const source = { tools: [{ type: 'function' as const, function: { name: 'w', description: 'Weather.', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } }], messages: [{ role: 'user' as const, content: 'Paris?' }, { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'w', arguments: { city: 'Paris', days: 2 } } }] }] };
    const imported = importRow(source, 'openai').conversation!;
    // A template that prints the arguments string as it is (Hermes) now shows the dict's own rendering.
    expect(render({ family: 'hermes', ...imported, args: 'keep' }).text).toBe(render({ family: 'hermes', ...source }).text);
  });
});

describe('training record offsets', () => {
  // Issue 10 item 14: spans for Python users, who slice code points.
  it('codepoint spans select the same text in code points as UTF-16 spans do in JS units', async () => {
    const { toTrainingRecord } = await import('../../src/index.js');
    const conversation = { messages: [{ role: 'user' as const, content: '🎉🎉 hi' }, { role: 'assistant' as const, content: '漢字 🎉 done' }] };
    const utf16 = toTrainingRecord(conversation, { family: 'qwen3' }).record!;
    const points = toTrainingRecord(conversation, { family: 'qwen3', offsets: 'codepoint' }).record!;
    const chars = Array.from(points.text);
    expect(points.spans).not.toEqual(utf16.spans);
    expect(points.spans.map(([s, e]) => chars.slice(s, e).join(''))).toEqual(utf16.spans.map(([s, e]) => utf16.text.slice(s, e)));
  });
});
