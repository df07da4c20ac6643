import { describe, expect, it } from 'vitest';
import { familyIds, familyInfo, toTrainingRecord, type Conversation } from '../../src/index.js';

// Issue 10 item 7: a training span must cover everything the model generates for its turn, the token it
// stops on included. A stop string that starts exactly where a span ends is a stop the model never learns.
const conversation: Conversation = {
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather for a city.',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ],
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_a1b2c3d4e', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_a1b2c3d4e', content: '{"temperature": 21}' },
    { role: 'assistant', content: 'It is 21 °C in Paris.' },
    { role: 'user', content: 'Thanks!' },
    { role: 'assistant', content: 'You are welcome.' },
  ],
};

/** Adjacent spans are one stretch of generated text. */
function merged(spans: readonly (readonly [number, number])[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const last = out[out.length - 1];
    if (last && last[1] === start) last[1] = end;
    else out.push([start, end]);
  }
  return out;
}

describe('training spans end with the stop token the model writes', () => {
  for (const family of familyIds) {
    it(family, () => {
      const { record, issues } = toTrainingRecord(conversation, { family, checkPrefix: false });
      expect(record, JSON.stringify(issues)).not.toBeNull();
      const { text, spans } = record!;
      expect(spans.length).toBeGreaterThan(0);
      for (const [, end] of merged(spans)) {
        const after = text.slice(end);
        const leftOut = familyInfo[family].stopStrings.find((stop) => after.startsWith(stop));
        expect(leftOut, `${family}: "${leftOut}" right after a span, outside it: …${JSON.stringify(text.slice(end - 30, end + 20))}`).toBeUndefined();
      }
    });
  }
});
