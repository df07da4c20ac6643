import { describe, expect, it } from 'vitest';
import { accumulateDeltas, createGrammarCore, createStreamParser, parse, type Grammar, type ParserFamily } from '../../src/index.js';
import { callObject } from '../../src/parse/engine/codecs/hermes-json.js';
import { pythonCall } from '../../src/parse/engine/codecs/python-call.js';
import { noHeader } from '../../src/parse/engine/headers.js';

// The pieces Llama 3 brought to the engine, on grammars that are not Llama 3's: they are parameters, not a family.
function family(grammar: Grammar): ParserFamily {
  return { id: grammar.id, createCore: createGrammarCore(grammar), markers: { callOpen: grammar.call.open, callClose: grammar.call.close }, stopStrings: grammar.stopStrings, defaultPrefix: '' };
}

function calls(text: string, parser: ParserFamily) {
  const batch = parse(text, { family: parser, idGenerator: ({ index }) => `call_${index}` });
  const stream = createStreamParser({ family: parser, idGenerator: ({ index }) => `call_${index}` });
  const deltas = [...text].flatMap((ch) => stream.push(ch));
  deltas.push(...stream.finish());
  expect(accumulateDeltas(deltas)).toEqual(batch);
  return { content: batch.content, calls: batch.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]), codes: batch.diagnostics.map((d) => `${d.severity}:${d.code}`) };
}

describe('Python-call codec with no method (Llama 4 style `f(k=v)`)', () => {
  const tagged = family({
    id: 'pythonic-test',
    call: { open: ['<call>'], close: ['</call>'] },
    header: noHeader,
    args: pythonCall({ method: '' }),
    stopStrings: ['<end>'],
    defaultPrefix: '',
  });

  it('reads keyword literals (quotes, None, lists, nested parentheses in strings) and never evaluates', () => {
    expect(calls(`Sure.<call>get_weather(city="San Francisco", days=2, tags=['a', "b)"], unit=None)</call><end>`, tagged)).toEqual({
      content: 'Sure.',
      calls: [['get_weather', { city: 'San Francisco', days: 2, tags: ['a', 'b)'], unit: null }]],
      codes: [],
    });
    expect(calls('<call>get_time()</call>', tagged).calls).toEqual([['get_time', {}]]);
  });

  it('a positional argument or an expression is malformed: the text stays content', () => {
    for (const text of ['<call>f(1)</call>', '<call>f(x=__import__("os"))</call>']) {
      expect(calls(text, tagged)).toEqual({ content: text, calls: [], codes: ['error:PARSE_BAD_ARGS_JSON'] });
    }
  });
});

describe('leading openers and call separators', () => {
  const base = { id: 'leading-test', call: { open: ['<|tag|>'], close: [] }, header: noHeader, leadingOpen: ['{'], callSeparators: [';'], stopStrings: ['<end>'], defaultPrefix: '' };

  it('an object at the start, after the tag or after a separator is a call; elsewhere it is prose', () => {
    const parser = family({ ...base, args: callObject({}) });
    expect(calls('{"name": "a"};\n{"name": "b", "arguments": {"x": 1}} then {"name": "c"}', parser)).toEqual({
      content: 'then {"name": "c"}',
      calls: [['a', {}], ['b', { x: 1 }]],
      codes: [],
    });
    expect(calls('Text <|tag|>{"name": "a"}; ok<end>', parser)).toEqual({ content: 'Text; ok', calls: [['a', {}]], codes: [] });
  });

  it('requireArguments makes a name-only object prose (a warning), where the default reads it as a zero-argument call', () => {
    expect(calls('{"name": "a"}', family({ ...base, args: callObject({ requireArguments: true }) }))).toEqual({
      content: '{"name": "a"}',
      calls: [],
      codes: ['warning:PARSE_BAD_CALL_SYNTAX'],
    });
  });
});
