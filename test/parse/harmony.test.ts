import { describe, expect, it } from 'vitest';
import { accumulateDeltas, ChatfmtError, createStreamParser, parse, type ParsedMessage, type ParseOptions, type Tool } from '../../src/index.js';

// gpt-oss (harmony) through the public API. Expected values are written from FORMATS.md §4 and the
// decisions documented in src/parse/harmony/index.ts, not read back from the parser.

const tool = (name: string): Tool => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });
const WEATHER = [tool('get_weather')];
const ids = (info: { index: number }) => `call_${info.index}`;

function run(text: string, options: Partial<ParseOptions> = {}): ParsedMessage {
  return parse(text, { family: 'gpt-oss', idGenerator: ids, ...options });
}

function streamed(chunks: readonly string[], options: Partial<ParseOptions> = {}): ParsedMessage {
  const parser = createStreamParser({ family: 'gpt-oss', idGenerator: ids, ...options });
  const deltas = chunks.flatMap((chunk) => parser.push(chunk));
  deltas.push(...parser.finish());
  return accumulateDeltas(deltas);
}

const calls = (message: ParsedMessage) => message.tool_calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)]);
const codes = (message: ParsedMessage) => message.diagnostics.map((d) => `${d.code}/${d.severity}`);

// Every input below also goes through the split-invariance test at the end.
const cases: Array<{ text: string; options?: Partial<ParseOptions> }> = [];
function completion(text: string, options?: Partial<ParseOptions>): ParsedMessage {
  cases.push({ text, ...(options ? { options } : {}) });
  return run(text, options);
}

describe('gpt-oss: FORMATS §4 worked examples', () => {
  it('A: analysis, then a commentary call with <|constrain|>json', () => {
    const result = completion(
      '<|channel|>analysis<|message|>Need weather; call tool.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
      { tools: WEATHER },
    );
    expect(result.reasoning_content).toBe('Need weather; call tool.');
    expect(result.content).toBeNull();
    expect(result.tool_calls).toEqual([{ id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    expect(result.diagnostics).toEqual([]);
  });

  it('B: analysis, then final', () => {
    const result = completion('<|channel|>analysis<|message|>Simple.<|end|><|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>');
    expect(result).toMatchObject({ reasoning_content: 'Simple.', content: '2 + 2 = 4.', tool_calls: [], diagnostics: [] });
  });

  it('C: commentary preamble, then a call on the analysis channel with the recipient first', () => {
    const result = completion(
      '<|channel|>commentary<|message|>Checking now.<|end|><|start|>assistant to=functions.get_weather<|channel|>analysis json<|message|>{"city":"Rome"}<|call|>',
      { tools: WEATHER },
    );
    expect(result.content).toBe('Checking now.');
    expect(result.reasoning_content).toBeNull();
    expect(calls(result)).toEqual([['get_weather', { city: 'Rome' }]]);
    expect(result.diagnostics).toEqual([]);
  });
});

describe('gpt-oss: headers', () => {
  const headers = [
    ' to=functions.get_weather<|channel|>commentary json', // HF template order
    '<|channel|>commentary to=functions.get_weather <|constrain|>json', // usual model order
    '<|channel|>commentary to=functions.get_weather<|constrain|>json', // constrain glued to the recipient
    ' to=functions.get_weather<|channel|>commentary<|constrain|>json', // constrain glued to the channel
    ' to=functions.get_weather<|channel|>commentary <|constrain|>json',
    '<|channel|>analysis to=functions.get_weather', // analysis-channel call, no content type
    ' to=functions.get_weather<|channel|>analysis <|constrain|>json',
  ];
  for (const header of headers) {
    it(`reads a call from ${JSON.stringify(header)}`, () => {
      for (const tools of [WEATHER, undefined]) {
        const result = completion(`${header}<|message|>{"city": "Oslo"}<|call|>`, { tools });
        expect(calls(result)).toEqual([['get_weather', { city: 'Oslo' }]]);
        expect(result.tool_calls[0]!.function.arguments).toBe('{"city": "Oslo"}');
        expect(result).toMatchObject({ content: null, reasoning_content: null, diagnostics: [] });
      }
    });
  }

  it('strips `json` glued to an undeclared name when the stripped name is declared (llama.cpp PR#15158)', () => {
    const result = completion('<|channel|>commentary to=functions.get_weatherjson<|message|>{"city":"Paris"}<|call|>', { tools: WEATHER });
    expect(calls(result)).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/warning']);
  });

  it('keeps a declared name that ends in json', () => {
    const result = completion('<|channel|>commentary to=functions.get_weatherjson<|message|>{}<|call|>', {
      tools: [...WEATHER, tool('get_weatherjson')],
    });
    expect(calls(result)).toEqual([['get_weatherjson', {}]]);
    expect(result.diagnostics).toEqual([]);
  });

  it('without tools, strips a glued `json` only when the header has no content type and the name runs into it', () => {
    expect(calls(completion('<|channel|>commentary to=functions.shelljson<|message|>{"cmd":"ls"}<|call|>'))).toEqual([['shell', { cmd: 'ls' }]]);
    expect(calls(completion('<|channel|>commentary to=functions.shelljson json<|message|>{}<|call|>'))).toEqual([['shelljson', {}]]);
    expect(calls(completion('<|channel|>commentary to=functions.to_json<|message|>{}<|call|>'))).toEqual([['to_json', {}]]);
  });

  it('reads a decorated channel word with a warning (llama.cpp#27720)', () => {
    const result = completion('<|channel|>commentary?<|message|>Let me look.<|end|><|start|>assistant<|channel|>finalx<|message|>Done.');
    expect(result.content).toBe('Let me look.\n\nDone.');
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/warning', 'PARSE_BAD_HEADER/warning']);
  });

  it('keeps the last channel when a header repeats <|channel|> (llama.cpp L5017)', () => {
    const text = '<|channel|>commentary to=assistant<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>final<|message|>Hi.';
    const result = completion(text);
    expect(result).toMatchObject({ reasoning_content: 'Hmm.', content: 'Hi.' });
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/warning']);
    expect(result.diagnostics[0]!.span).toEqual([0, text.indexOf('Hmm.')]);
  });

  it('accepts a completion that starts with <|start|>assistant, and an explicit prefix', () => {
    const body = '<|channel|>final<|message|>Hello.<|return|>';
    expect(completion(`<|start|>assistant${body}`).content).toBe('Hello.');
    expect(completion(body, { prefix: '<|start|>user<|message|>Hi<|end|><|start|>assistant' }).content).toBe('Hello.');
  });

  it('a commentary message without a recipient is user-visible content', () => {
    expect(completion('<|channel|>commentary<|message|>Working on it.<|end|>', { tools: WEATHER }).content).toBe('Working on it.');
  });
});

describe('gpt-oss: messages and whitespace', () => {
  // Issue 16: a commentary preamble and the final answer are two messages, never one glued sentence.
  it('joins messages of one field in order, each trimmed, a blank line apart', () => {
    const result = completion(
      '<|channel|>analysis<|message|> One. <|end|><|start|>assistant<|channel|>commentary<|message|>\nSee below.\n<|end|>' +
        '<|start|>assistant<|channel|>analysis<|message|>Two.<|end|><|start|>assistant<|channel|>final<|message|>  Answer.  <|return|>',
    );
    expect(result.reasoning_content).toBe('One.\n\nTwo.');
    expect(result.content).toBe('See below.\n\nAnswer.');
  });

  it('reads a body marker that cannot start anything as text, and <|channel|> as the next message', () => {
    const result = completion('<|channel|>analysis<|message|>Think ☀️.<|channel|>final<|message|>Use <|message|> and <|constrain|> 🌧.<|return|>');
    expect(result).toMatchObject({ reasoning_content: 'Think ☀️.', content: 'Use <|message|> and <|constrain|> 🌧.' });
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/warning']);
  });

  it('a message may end at the next <|start|> without a terminator', () => {
    expect(completion('<|channel|>final<|message|>A<|start|>assistant<|channel|>final<|message|>B')).toMatchObject({ content: 'A\n\nB', diagnostics: [] });
  });

  it('keeps a final message after a call, in order (peer disagreement #1)', () => {
    const result = completion(
      '<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Rome"}<|call|>' +
        '<|start|>assistant<|channel|>final<|message|>It is sunny.<|end|>',
      { tools: WEATHER },
    );
    expect(result.content).toBe('Checking.\n\nIt is sunny.');
    expect(calls(result)).toEqual([['get_weather', { city: 'Rome' }]]);
  });

  it('reads several calls in one completion', () => {
    const result = completion(
      '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"A"}<|call|>' +
        '<|start|>assistant<|channel|>analysis<|message|>And B.<|end|>' +
        '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"B"}<|call|>',
      { tools: WEATHER },
    );
    expect(calls(result)).toEqual([['get_weather', { city: 'A' }], ['get_weather', { city: 'B' }]]);
    expect(result.tool_calls.map((call) => call.id)).toEqual(['call_0', 'call_1']);
    expect(result.reasoning_content).toBe('And B.');
  });

  it('treats markers inside JSON strings of a call as text', () => {
    const args = '{"text": "<|call|> then <|end|><|start|>assistant<|channel|>final<|message|>", "n": [1, {"x": null}]}';
    const result = completion(`<|channel|>commentary to=functions.note <|constrain|>json<|message|>${args}<|call|>`);
    expect(result.tool_calls[0]!.function.arguments).toBe(args);
    expect(result.content).toBeNull();
  });

  it('a call with an empty body and a terminator has no arguments: {}', () => {
    const result = completion('<|channel|>commentary to=functions.now <|constrain|>json<|message|><|call|>');
    expect(result.tool_calls[0]!.function.arguments).toBe('{}');
  });

  it('starts inside a message when the prompt ends after <|message|>', () => {
    expect(completion('ing more.<|end|><|start|>assistant<|channel|>final<|message|>Ok.', { prefix: '<|start|>assistant<|channel|>analysis<|message|>Think' }))
      .toMatchObject({ reasoning_content: 'ing more.', content: 'Ok.' });
    expect(completion(' world.', { prefix: '<|start|>assistant<|channel|>final<|message|>Hello' }).content).toBe(' world.');
    expect(completion('Fresh.', { prefix: '<|start|>assistant<|channel|>final<|message|>' }).content).toBe('Fresh.');
  });

  it('reads a prompt tail without <|start|> as the end of an assistant header', () => {
    expect(completion('Deep thought.<|end|>', { prefix: '<|channel|>analysis<|message|>' }).reasoning_content).toBe('Deep thought.');
    expect(completion('analysis<|message|>Hmm.<|end|>', { prefix: '<|channel|>' }).reasoning_content).toBe('Hmm.');
    expect(completion(' to=functions.f<|channel|>commentary<|message|>{}<|call|>', { prefix: '<|start|>' }).tool_calls[0]!.function.name).toBe('f');
  });

  it('continues a call whose arguments began in the prompt', () => {
    const result = completion(' "Paris"}<|call|>', { prefix: '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":', tools: WEATHER });
    expect(result.tool_calls[0]!.function.arguments).toBe('{"city": "Paris"}');
  });

  it('starts between messages when the prompt ends after a terminator', () => {
    expect(completion('<|start|>assistant<|channel|>final<|message|>Yes.', { prefix: '<|channel|>analysis<|message|>x<|end|>' }).content).toBe('Yes.');
  });
});

describe('gpt-oss: truncation', () => {
  it('accepts a call whose stop token was stripped when its JSON is complete', () => {
    const result = completion('<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}  ', { tools: WEATHER });
    expect(result.tool_calls[0]!.function.arguments).toBe('{"city": "Paris"}');
    expect(result.diagnostics).toEqual([]);
  });

  it('withdraws a call whose JSON is incomplete at the end, keeping its text as content', () => {
    const text = '<|channel|>analysis<|message|>Go.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Par';
    const result = completion(text, { tools: WEATHER });
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toBe(text.slice(text.indexOf('<|start|>')));
    expect(result.reasoning_content).toBe('Go.');
    expect(result.diagnostics.map((d) => [d.code, d.span])).toEqual([['PARSE_TRUNCATED_CALL', [text.indexOf('<|start|>'), text.length]]]);
  });

  it('streams the withdraw: the call index is withdrawn and its raw text follows as content', () => {
    const parser = createStreamParser({ family: 'gpt-oss', idGenerator: ids });
    const first = parser.push('<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": [1,');
    expect(first.flatMap((d) => d.tool_calls ?? [])).toEqual([
      { index: 0, id: 'call_0', type: 'function', function: { name: 'f', arguments: '' } },
      { index: 0, function: { arguments: '{"a": [1,' } },
    ]);
    const last = parser.finish();
    expect(last.find((d) => d.withdrawn_tool_calls)?.withdrawn_tool_calls).toEqual([0]);
    expect(last.map((d) => d.content ?? '').join('')).toBe('<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": [1,');
  });

  it('keeps a truncated final message silently and a truncated analysis with a warning', () => {
    expect(completion('<|channel|>final<|message|>Half an ans')).toMatchObject({ content: 'Half an ans', diagnostics: [] });
    const result = completion('<|channel|>analysis<|message|>Still thin');
    expect(result.reasoning_content).toBe('Still thin');
    expect(codes(result)).toEqual(['PARSE_UNCLOSED_REASONING/warning']);
  });

  it('drops a header cut off before <|message|> with a warning', () => {
    const result = completion('<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>commentary to=functions.get_wea');
    expect(result).toMatchObject({ reasoning_content: 'Plan.', content: null, tool_calls: [] });
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/warning']);
  });
});

describe('gpt-oss: a header with a channel but no <|message|> (issue 16)', () => {
  it('takes the channel from the header and the rest as the body, as harmony non-strict does', () => {
    const text = '<|channel|>analysis We should check the weather.<|end|><|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>';
    const result = completion(text);
    expect(result).toMatchObject({ reasoning_content: 'We should check the weather.', content: 'It is sunny.' });
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.span])).toEqual([['PARSE_BAD_HEADER', 'warning', [0, 19]]]);
  });

  it('analysis never leaks into content: a long body, a body cut off at the end, a final one', () => {
    const long = 'We should think. '.repeat(40).trim();
    expect(completion(`<|channel|>analysis ${long}<|end|><|start|>assistant<|channel|>final<|message|>Done.`)).toMatchObject({ reasoning_content: long, content: 'Done.' });
    expect(completion('<|channel|>analysis\nStill thinking')).toMatchObject({ reasoning_content: 'Still thinking', content: null });
    expect(completion('<|channel|>final The answer is 4.<|return|>')).toMatchObject({ reasoning_content: null, content: 'The answer is 4.' });
  });

  it('a header cut short (a recipient follows) is still no body', () => {
    const result = completion('<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>commentary to=functions.get_wea');
    expect(result).toMatchObject({ reasoning_content: 'Plan.', content: null });
  });
});

describe('gpt-oss: malformed output never throws', () => {
  it('rejects invalid JSON at the first bad character and keeps the message text', () => {
    const text = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": Paris}<|call|>';
    const result = completion(text, { tools: WEATHER });
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toBe(text.slice(0, text.indexOf('<|call|>')));
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PARSE_BAD_ARGS_JSON']);
  });

  it('rejects arguments that are not an object', () => {
    const result = completion('<|channel|>commentary to=functions.get_weather json<|message|>["Paris"]<|call|>', { tools: WEATHER });
    expect(result.tool_calls).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PARSE_ARGS_NOT_OBJECT']);
  });

  it('rejects text after the JSON object inside the call body', () => {
    const result = completion('<|channel|>commentary to=functions.f json<|message|>{"a": 1} and more<|call|>');
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toBe('<|channel|>commentary to=functions.f json<|message|>{"a": 1} and more');
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PARSE_BAD_ARGS_JSON']);
  });

  it('an undeclared function is not a call: its raw text is content', () => {
    const text = '<|channel|>commentary to=functions.delete_all <|constrain|>json<|message|>{}<|call|>';
    const result = completion(text, { tools: WEATHER });
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toBe(text.slice(0, -'<|call|>'.length));
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.span])).toEqual([['PARSE_UNKNOWN_TOOL', 'error', [0, text.indexOf('{}')]]]);
  });

  it('a builtin recipient is a call only when declared (peer disagreement #3)', () => {
    const text = '<|channel|>analysis<|message|>Run it.<|end|><|start|>assistant<|channel|>commentary to=python <|constrain|>code<|message|>print(1)';
    const kept = completion(text);
    expect(kept.tool_calls).toEqual([]);
    expect(kept.content).toBe(text.slice(text.indexOf('<|start|>')));
    expect(codes(kept)).toEqual(['PARSE_UNKNOWN_TOOL/warning']);
    const declared = completion('<|channel|>analysis to=python json<|message|>{"code": "print(1)"}<|call|>', { tools: [tool('python')] });
    expect(calls(declared)).toEqual([['python', { code: 'print(1)' }]]);
  });

  it('salvages text written without a header as content (harmony non-strict)', () => {
    const text = "I must refuse<|end|><|start|>assistant<|channel|>analysis<|message|>We must refuse<|end|><|start|>assistant<|channel|>final<|message|>Sorry.<|return|>";
    const result = completion(text);
    expect(result).toMatchObject({ content: 'I must refuse\n\nSorry.', reasoning_content: 'We must refuse' });
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.span])).toEqual([['PARSE_BAD_HEADER', 'error', [0, 13]]]);
  });

  it('tells ` to=` from free text that starts like it', () => {
    const result = completion(' today is fine.<|end|>');
    expect(result.content).toBe('today is fine.');
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/error']);
  });

  it('keeps text after a call that has no header', () => {
    const result = completion('<|channel|>commentary to=functions.f json<|message|>{}<|call|> trailing words');
    expect(result.content).toBe('trailing words');
    expect(calls(result)).toEqual([['f', {}]]);
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/error']);
  });

  it('drops a header-only message without <|message|> and reads on', () => {
    const result = completion('<|channel|>commentary to=assistant<|end|><|start|>assistant<|channel|>final<|message|>Fine.');
    expect(result.content).toBe('Fine.');
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/warning']);
  });

  it('keeps a message from a foreign role as raw content', () => {
    const text = '<|channel|>final<|message|>Asking.<|end|><|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}<|end|>';
    const result = completion(text);
    expect(result.content).toBe('Asking.<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}');
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/error']);
  });

  it('treats an overlong header as text', () => {
    const junk = `<|channel|>${'x'.repeat(300)}`;
    const result = completion(`${junk}<|message|>body<|end|>`);
    expect(result.content).toBe(`${junk}<|message|>body`);
    expect(codes(result)).toEqual(['PARSE_BAD_HEADER/error']);
  });

  it('strict mode throws on errors but not on warnings', () => {
    expect(() => run('I must refuse<|end|>', { strict: true })).toThrow(ChatfmtError);
    expect(run('<|channel|>commentary?<|message|>Hi.', { strict: true }).content).toBe('Hi.');
  });

  it('never throws on arbitrary marker soup', () => {
    const pieces = ['<|start|>', '<|end|>', '<|message|>', '<|channel|>', '<|constrain|>', '<|call|>', '<|return|>', 'assistant', ' to=functions.f', 'final', 'analysis', '{', '}', '"', 'x', ' '];
    let seed = 7;
    for (let n = 0; n < 200; n++) {
      let text = '';
      for (let k = 0; k < 12; k++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        text += pieces[seed % pieces.length];
      }
      const result = run(text);
      expect(streamed([...text])).toEqual(result);
    }
  });
});

describe('gpt-oss: streaming', () => {
  it('releases body text as it arrives, holding back only a possible marker', () => {
    const parser = createStreamParser({ family: 'gpt-oss' });
    expect(parser.push('<|channel|>fin')).toEqual([]);
    expect(parser.push('al<|message|>Hello')).toEqual([{ content: 'Hello' }]);
    expect(parser.push(', world <|en')).toEqual([{ content: ', world' }]);
    expect(parser.push('d|>')).toEqual([]);
    expect(parser.finish()).toEqual([]);
  });

  it('names the call in its first delta as soon as the header is complete', () => {
    const parser = createStreamParser({ family: 'gpt-oss', tools: WEATHER, idGenerator: ids });
    expect(parser.push('<|channel|>commentary to=functions.get_weather <|constrain|>json<|mess')).toEqual([]);
    expect(parser.push('age|>{"ci')).toEqual([
      { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] },
    ]);
  });

  it('gives the batch result for every 1-char and every 2-chunk split of every input above', () => {
    expect(cases.length).toBeGreaterThan(40);
    for (const { text, options } of cases) {
      const batch = run(text, options);
      expect(streamed([...text], options)).toEqual(batch);
      for (let cut = 0; cut <= text.length; cut++) {
        expect(streamed([text.slice(0, cut), text.slice(cut)], options)).toEqual(batch);
      }
    }
  });
});
