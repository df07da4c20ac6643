import { describe, expect, it } from 'vitest';
import { accumulateDeltas, createStreamParser, isChatfmtError, parse, render, resolveFamilyId, type Delta, type Message } from '../../src/index.js';

// Mistral (FORMATS-NEXT §4): one [TOOL_CALLS] opener for every generation, 9-character ids, [THINK] reasoning.
const tools = [
  { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
];

function stream(chunks: string[]): Delta[] {
  const parser = createStreamParser({ family: 'mistral', tools, idGenerator: ({ index }) => `call_${index}` });
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.finish()];
}

describe('mistral parse', () => {
  it('reads [TOOL_CALLS] split across deltas (FORMATS-NEXT §4 edge case 1) and streams the call as it comes', () => {
    const deltas = stream(['Sure! [TOOL_', 'CALLS]get_weather', '[ARGS]{"city": ', '"Tokyo"}']);
    // No delta carries a piece of the marker as content.
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Sure!');
    const first = deltas.findIndex((d) => d.tool_calls?.[0]?.function?.name === 'get_weather');
    expect(first).toBeGreaterThan(-1);
    expect(deltas.slice(first + 1).some((d) => d.tool_calls?.[0]?.function?.arguments === '"Tokyo"}')).toBe(true);
    const message = accumulateDeltas(deltas);
    expect(message.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([['call_0', 'get_weather', { city: 'Tokyo' }]]);
  });

  it('mints 9-character ids for calls the model wrote none for, and keeps the ones it wrote', () => {
    const message = parse('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[CALL_ID]Zz9Yy8Xx7[ARGS]{"city": "Rome"}', { family: 'mistral' });
    expect(message.tool_calls[0]!.id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(message.tool_calls[1]!.id).toBe('Zz9Yy8Xx7');
  });

  it('takes a list element whose id comes last, after its arguments, with that id', () => {
    const deltas = stream(['[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}', ', "id": "123456789"}]']);
    const starts = deltas.flatMap((d) => d.tool_calls ?? []).filter((part) => part.id !== undefined);
    expect(starts.map((part) => part.id)).toEqual(['123456789']);
  });

  it('names the generations as aliases of the family', () => {
    for (const name of ['mistral-v3', 'mistral-v7', 'mistral-v11', 'mistral-v13', 'devstral', 'magistral', 'ministral-3']) expect(resolveFamilyId(name), name).toBe('mistral');
  });
});

describe('mistral render: call ids', () => {
  const conversation: Message[] = [
    { role: 'user', content: 'Weather in Paris and Rome?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_8f3kD02mXq1LzP0aa9sT7cVb', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
        { id: 'abcDEF123', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_8f3kD02mXq1LzP0aa9sT7cVb', content: '18 C' },
    { role: 'tool', tool_call_id: 'abcDEF123', content: '24 C' },
    { role: 'assistant', content: 'Paris 18 C, Rome 24 C.' },
  ];

  it('maps OpenAI ids to 9-character ids, the same in the call and in its result, and says so', () => {
    const result = render({ family: 'mistral', messages: conversation, tools });
    const ids = [...result.text.matchAll(/\[CALL_ID\]([^[]*)\[ARGS\]/g)].map((m) => m[1]);
    const results = [...result.text.matchAll(/\[TOOL_RESULTS\]([^[]*)\[TOOL_CONTENT\]/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(ids[1]).toBe('abcDEF123');
    expect(results).toEqual(ids);
    expect(result.warnings.filter((w) => w.code === 'CALL_IDS_REWRITTEN').map((w) => w.path)).toEqual(['messages[1].tool_calls[0].id', 'messages[2].tool_call_id']);
  });

  it('maps an id the same way in a conversation and in its prefixes', () => {
    const whole = render({ family: 'mistral', messages: conversation, tools }).text;
    const prefix = render({ family: 'mistral', messages: conversation.slice(0, 3), tools }).text;
    expect(whole.startsWith(prefix)).toBe(true);
  });

  it('leaves ids alone with --args keep, where the template refuses them in one line', () => {
    try {
      render({ family: 'mistral', messages: conversation, tools, args: 'keep' });
      expect.unreachable();
    } catch (error) {
      expect(isChatfmtError(error) && error.message).toMatch(/9 letters or digits/);
    }
  });
});
