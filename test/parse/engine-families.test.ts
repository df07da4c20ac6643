import { describe, expect, it } from 'vitest';
import { accumulateDeltas, createStreamParser, parse, type Delta, type ParseOptions, type Tool } from '../../src/index.js';

const ids = ({ index }: { index: number }) => `call_${index}`;

function tool(name: string, properties: Record<string, unknown> = {}): Tool {
  return { type: 'function', function: { name, parameters: { type: 'object', properties } } };
}

function streamDeltas(text: string, options: ParseOptions, sizes: (i: number) => number): Delta[] {
  const parser = createStreamParser(options);
  const deltas: Delta[] = [];
  for (let i = 0, n = 0; i < text.length; i += n) {
    n = Math.max(1, sizes(i));
    deltas.push(...parser.push(text.slice(i, i + n)));
  }
  deltas.push(...parser.finish());
  return deltas;
}

/** Parses in batch, then streams 1 char at a time and in pseudo-random chunks; all must agree. */
function parseEverywhere(text: string, options: Omit<ParseOptions, 'idGenerator'>) {
  const full = { ...options, idGenerator: ids };
  const batch = parse(text, full);
  let seed = text.length;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) % 9) + 1;
  for (const sizes of [() => 1, random, () => 4]) {
    const deltas = streamDeltas(text, full, sizes);
    checkProtocol(deltas);
    expect(accumulateDeltas(deltas)).toEqual(batch);
  }
  return batch;
}

function checkProtocol(deltas: Delta[]): void {
  const seen = new Set<number>();
  const withdrawn = new Set<number>();
  for (const delta of deltas) {
    for (const index of delta.withdrawn_tool_calls ?? []) withdrawn.add(index);
    for (const part of delta.tool_calls ?? []) {
      expect(withdrawn.has(part.index)).toBe(false);
      if (!seen.has(part.index)) {
        expect(part).toMatchObject({ id: expect.any(String), type: 'function', function: { name: expect.any(String), arguments: '' } });
        seen.add(part.index);
      } else {
        expect(part.id).toBeUndefined();
        expect(part.function?.name).toBeUndefined();
      }
    }
  }
}

const calls = (message: ReturnType<typeof parse>) => message.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);

describe('FORMATS.md worked examples', () => {
  it('qwen3: reasoning then parallel calls', () => {
    const r = parseEverywhere(
      '<think>\nTwo cities, two calls.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo", "days": 2}}\n</tool_call>',
      { family: 'qwen3' },
    );
    expect(r).toMatchObject({ content: null, reasoning_content: 'Two cities, two calls.', diagnostics: [] });
    expect(calls(r)).toEqual([['get_weather', { city: 'Paris' }], ['get_weather', { city: 'Tokyo', days: 2 }]]);
    expect(r.tool_calls.map((c) => c.id)).toEqual(['call_0', 'call_1']);
    // The model's own argument text, never re-serialised.
    expect(r.tool_calls[1]!.function.arguments).toBe('{"city": "Tokyo", "days": 2}');
  });

  it('qwen2.5: a JSON string holding </tool_call> does not end the call', () => {
    const r = parseEverywhere('Let me run it.\n<tool_call>\n{"name": "run", "arguments": {"code": "print(\\"</tool_call>\\")"}}\n</tool_call>', { family: 'qwen2.5' });
    expect(r.content).toBe('Let me run it.');
    expect(calls(r)).toEqual([['run', { code: 'print("</tool_call>")' }]]);
  });

  it('qwen3 with a prompt that opened <think>', () => {
    const r = parseEverywhere('The user greets.\n</think>\n\nHello!', { family: 'qwen3', prefix: '<think>\n' });
    expect(r).toMatchObject({ reasoning_content: 'The user greets.', content: 'Hello!' });
  });

  it('qwen3-coder: typed parameters by schema, one wrapping newline stripped', () => {
    const r = parseEverywhere(
      'I\'ll write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\n/srv/a.py\n</parameter>\n<parameter=content>\ndef f():\n    return "<b>"\n</parameter>\n<parameter=overwrite>\ntrue\n</parameter>\n</function>\n</tool_call>',
      { family: 'qwen3-coder', tools: [tool('write_file', { path: { type: 'string' }, content: { type: 'string' }, overwrite: { type: 'boolean' } })] },
    );
    expect(r.content).toBe("I'll write it.");
    expect(calls(r)).toEqual([['write_file', { path: '/srv/a.py', content: 'def f():\n    return "<b>"', overwrite: true }]]);
  });

  it('deepseek-v3.1: parallel calls in one section, exact code points', () => {
    const r = parseEverywhere(
      'Checking both.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"tz": "Europe/Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
      { family: 'deepseek-v3.1' },
    );
    expect(r.content).toBe('Checking both.');
    expect(calls(r)).toEqual([['get_weather', { city: 'Paris' }], ['get_time', { tz: 'Europe/Paris' }]]);
  });

  it('deepseek-v3.1 thinking and deepseek-r1 fenced JSON', () => {
    expect(parseEverywhere('2+2 is basic.</think>It is 4.<｜end▁of▁sentence｜>', { family: 'deepseek-v3.1', prefix: '<think>' })).toMatchObject({
      reasoning_content: '2+2 is basic.',
      content: 'It is 4.',
    });
    const r = parseEverywhere(
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      { family: 'deepseek-r1', prefix: '' },
    );
    expect(calls(r)).toEqual([['get_weather', { city: 'Paris' }]]);
  });

  it('kimi-k2: wire ids pass through verbatim; hyphenated names; reasoning', () => {
    const r = parseEverywhere(
      "<think>Need the file.</think><|tool_calls_section_begin|><|tool_call_begin|>functions.read-file:7<|tool_call_argument_begin|>{\"path\": \"a.txt\"}<|tool_call_end|><|tool_call_begin|> functions.a.b:8 <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|><|im_end|>",
      { family: 'kimi-k2' },
    );
    expect(r.reasoning_content).toBe('Need the file.');
    expect(r.tool_calls.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ['functions.read-file:7', 'read-file', '{"path": "a.txt"}'],
      ['functions.a.b:8', 'a.b', '{}'],
    ]);
  });

  it('glm-4.5: arg-kv values typed by schema; GLM-4.7 zero-argument call', () => {
    const r = parseEverywhere(
      '\n<think>Need weather.</think>\nChecking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call><|observation|>',
      { family: 'glm-4.5', tools: [tool('get_weather', { city: { type: 'string' }, days: { type: 'integer' } }), tool('get_time')] },
    );
    expect(r).toMatchObject({ reasoning_content: 'Need weather.', content: 'Checking.' });
    expect(calls(r)).toEqual([['get_weather', { city: 'Paris', days: 2 }]]);
    const zero = parseEverywhere('<tool_call>get_time</tool_call>', { family: 'glm-4.5' });
    expect(zero.tool_calls[0]!.function.arguments).toBe('{}');
  });

  it('seed-oss: budget reflections stay in reasoning; Python literals for object params', () => {
    const r = parseEverywhere(
      '<seed:think>Call the tool.<seed:cot_budget_reflect>I have used 40 tokens.</seed:cot_budget_reflect></seed:think>\n<seed:tool_call>\n<function=run>\n<parameter=code>x = 1\nprint(x)</parameter>\n<parameter=opts>{\'timeout\': 5}</parameter>\n</function>\n</seed:tool_call><seed:eos>',
      { family: 'seed-oss', tools: [tool('run', { code: { type: 'string' }, opts: { type: 'object' } })] },
    );
    expect(r.reasoning_content).toBe('Call the tool.<seed:cot_budget_reflect>I have used 40 tokens.</seed:cot_budget_reflect>');
    expect(r.content).toBeNull();
    expect(calls(r)).toEqual([['run', { code: 'x = 1\nprint(x)', opts: { timeout: 5 } }]]);
  });

  it('seed-oss: the budget-0 prefill closes reasoning, so calls are calls', () => {
    const prefix = '<seed:think>\n<seed:cot_budget_reflect>The current thinking budget is 0, so I will directly start answering the question.</seed:cot_budget_reflect>\n</seed:think>';
    const r = parseEverywhere('<seed:tool_call>\n<function=f>\n</function>\n</seed:tool_call>', { family: 'seed-oss', prefix });
    expect(r).toMatchObject({ content: null, reasoning_content: null });
    expect(calls(r)).toEqual([['f', {}]]);
  });
});

describe('reasoning and calls', () => {
  const coderDraft =
    "Let's call a tool: <tool_call>\n<function=python>\n<parameter=code>\nprint(1)\n</parameter>\n</function>\n</tool_call>\n</think>\n\n<tool_call>\n<function=python>\n<parameter=code>\nprint(2)\n</parameter>\n</function>\n</tool_call>";

  it('a call inside a closed reasoning block is a draft; the one after it is real', () => {
    const r = parseEverywhere(coderDraft, { family: 'qwen3-coder', prefix: '<think>\n' });
    expect(r.reasoning_content).toContain('<function=python>\n<parameter=code>\nprint(1)');
    expect(calls(r)).toEqual([['python', { code: 'print(2)' }]]);
  });

  it('a call opening inside open reasoning ends the reasoning', () => {
    const r = parseEverywhere(
      '<think>I need two<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
      { family: 'kimi-k2' },
    );
    expect(r).toMatchObject({ reasoning_content: 'I need two', content: null });
    expect(calls(r)).toEqual([['f', { a: 1 }]]);
  });

  it('prose mentioning a call marker inside reasoning stays reasoning', () => {
    const r = parseEverywhere('I might call <tool_call> later.\n</think>\n\nNo tools.', { family: 'qwen3', prefix: '<think>\n' });
    expect(r).toMatchObject({ reasoning_content: 'I might call <tool_call> later.', content: 'No tools.', tool_calls: [] });
  });

  it('a <think> re-emitted after the prompt opened it is absorbed', () => {
    expect(parseEverywhere('<think>\nHmm.</think>Hi', { family: 'deepseek-r1' })).toMatchObject({ reasoning_content: 'Hmm.', content: 'Hi' });
  });
});

describe('failures keep text and say why', () => {
  it('truncated call: raw text stays in content, earlier calls are kept', () => {
    const text = 'A.\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "g", "arguments": {"x": "unfin';
    const r = parseEverywhere(text, { family: 'hermes' });
    expect(calls(r)).toEqual([['f', {}]]);
    expect(r.content).toBe('A.<tool_call>\n{"name": "g", "arguments": {"x": "unfin');
    expect(r.diagnostics.map((d) => [d.code, d.span])).toEqual([['PARSE_TRUNCATED_CALL', [text.indexOf('<tool_call>', 10), text.length]]]);
  });

  it('malformed JSON arguments: withdrawn in the stream, raw text in content', () => {
    const text = '<tool_call>\n{"name": "f", "arguments": {"a": 1,, }}\n</tool_call>\nafter';
    const r = parseEverywhere(text, { family: 'qwen3' });
    expect(r.tool_calls).toEqual([]);
    expect(r.content).toBe('<tool_call>\n{"name": "f", "arguments": {"a": 1,, }}\n</tool_call>\nafter');
    expect(r.diagnostics[0]).toMatchObject({ code: 'PARSE_BAD_ARGS_JSON', severity: 'error', family: 'qwen3' });
    const deltas = streamDeltas(text, { family: 'qwen3' }, () => 1);
    expect(deltas.some((d) => d.withdrawn_tool_calls?.includes(0))).toBe(true);
  });

  it('undeclared name with tools given: not a call, decided before any call delta', () => {
    const text = 'x <tool_call>{"name": "rm", "arguments": {}}</tool_call> y';
    const r = parseEverywhere(text, { family: 'hermes', tools: [tool('ls')] });
    expect(r.tool_calls).toEqual([]);
    expect(r.content).toBe(text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PARSE_UNKNOWN_TOOL']);
    expect(streamDeltas(text, { family: 'hermes', tools: [tool('ls')] }, () => 1).some((d) => d.tool_calls)).toBe(false);
  });

  it('arguments that are not an object', () => {
    const r = parseEverywhere('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>[1, 2]<｜tool▁call▁end｜><｜tool▁calls▁end｜>', { family: 'deepseek-v3.1' });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PARSE_ARGS_NOT_OBJECT']);
    expect(r.content).toContain('[1, 2]');
  });

  it('a complete call whose close tag was cut off is accepted', () => {
    const r = parseEverywhere('<tool_call>\n{"name": "f", "arguments": {"a": [1]}}', { family: 'hermes' });
    expect(calls(r)).toEqual([['f', { a: [1] }]]);
    expect(r.diagnostics).toEqual([]);
  });

  it('strict mode throws PARSE_STRICT with the diagnostics', () => {
    expect(() => parse('<tool_call>{"name": "f", "arguments": {', { family: 'hermes', strict: true })).toThrow(
      expect.objectContaining({ code: 'PARSE_STRICT', diagnostics: [expect.objectContaining({ code: 'PARSE_TRUNCATED_CALL' })] }),
    );
    expect(() => parse('x', { family: 'nope' })).toThrow(expect.objectContaining({ code: 'UNKNOWN_FAMILY' }));
  });

  it('duplicate XML keys keep the first value with a warning', () => {
    const r = parseEverywhere('<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>\n</tool_call>', {
      family: 'qwen3-coder',
      tools: [tool('f', { a: { type: 'string' } })],
    });
    expect(calls(r)).toEqual([['f', { a: '1' }]]);
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toEqual([['PARSE_DUPLICATE_ARG', 'warning']]);
  });
});

describe('streaming', () => {
  it('releases content before the call ends and streams string values as they arrive', () => {
    const parser = createStreamParser({ family: 'qwen3-coder', tools: [tool('w', { body: { type: 'string' } })], idGenerator: ids });
    expect(parser.push('Sure.\n<tool')).toEqual([{ content: 'Sure.' }]);
    expect(parser.push('_call>\n<function=w>\n<parameter=body>\nline 1\n')).toEqual([
      { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'w', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"body":"line 1' } }] },
    ]);
    expect(parser.push('line 2\n</param')).toEqual([{ tool_calls: [{ index: 0, function: { arguments: '\\nline 2' } }] }]);
    expect(parser.push('eter>\n</function>\n</tool_call>')).toEqual([{ tool_calls: [{ index: 0, function: { arguments: '"}' } }] }]);
    expect(parser.finish()).toEqual([]);
  });

  it('splitting inside a surrogate pair does not change escaped string fragments', () => {
    const text = '<tool_call>\n<function=w>\n<parameter=body>\n😀é\n</parameter>\n</function>\n</tool_call>';
    const r = parseEverywhere(text, { family: 'qwen3-coder', tools: [tool('w', { body: { type: 'string' } })] });
    expect(calls(r)).toEqual([['w', { body: '😀é' }]]);
  });

  it('splitting inside a surrogate pair does not change raw code streamed as a string (Llama 3 python_tag)', () => {
    // Found by a marker-soup sweep with pieces cut from real turns: the stream wrote \ud83c\udf89 where the batch wrote 🎉.
    const text = '<|python_tag|>print("é🎉")\n<|eom_id|>';
    const r = parseEverywhere(text, { family: 'llama-3' });
    expect(r.tool_calls.map((c) => c.function.arguments)).toEqual(['{"code":"print(\\"é🎉\\")\\n"}']);
  });

  it('handles begin and end of several calls in one chunk and empty chunks', () => {
    const parser = createStreamParser({ family: 'kimi-k2' });
    const text = '<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>functions.b:1<|tool_call_argument_begin|>{"x":1}<|tool_call_end|><|tool_calls_section_end|>';
    const deltas = [...parser.push(''), ...parser.push(text), ...parser.push(''), ...parser.finish()];
    expect(accumulateDeltas(deltas).tool_calls.map((c) => c.id)).toEqual(['functions.a:0', 'functions.b:1']);
  });

  it('never throws on garbage mixing every family\'s markers', () => {
    const pieces = ['<tool_call>', '</tool_call>', '{"name": "f", "arguments": {', '"', '}', '<think>', '</think>', '<｜tool▁calls▁begin｜>',
      '<｜tool▁call▁begin｜>', '<｜tool▁sep｜>', '<|tool_call_begin|>', '<|tool_call_argument_begin|>', '<arg_key>', '<arg_value>',
      '<function=', '>', '<parameter=', '</parameter>', '\n', 'x', ' ', '<seed:tool_call>', '<|im_end|>', '```'];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (const family of ['hermes', 'qwen3-coder', 'deepseek-v3.1', 'deepseek-r1', 'kimi-k2', 'glm-4.5', 'seed-oss']) {
      for (let round = 0; round < 40; round++) {
        let text = '';
        for (let i = 0; i < 30; i++) text += pieces[next() % pieces.length];
        const batch = parse(text, { family, idGenerator: ids });
        expect(accumulateDeltas(streamDeltas(text, { family, idGenerator: ids }, () => (next() % 5) + 1))).toEqual(batch);
      }
    }
  });
});

describe('section edge cases', () => {
  it('a section opener followed by prose is text, kept verbatim', () => {
    const r = parseEverywhere('Let me look that up.<｜tool▁calls▁begin｜>get_weather', { family: 'deepseek-v3.1' });
    expect(r.content).toBe('Let me look that up.<｜tool▁calls▁begin｜>get_weather');
    const closed = '<｜tool▁calls▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁calls▁end｜>';
    expect(parseEverywhere(closed, { family: 'deepseek-v3.1' }).content).toBe(closed);
  });

  it('noise between a section opener and its first call is content; the markers are not', () => {
    const r = parseEverywhere(
      'Hi. <|tool_calls_section_begin|> noise <|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>',
      { family: 'kimi-k2' },
    );
    expect(r.content).toBe('Hi. noise');
    expect(r.tool_calls.map((c) => c.id)).toEqual(['functions.f:0']);
  });

  it('a Kimi id without a name is not a call', () => {
    const r = parseEverywhere(
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.bad.0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>functions.ok:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>',
      { family: 'kimi-k2' },
    );
    expect(r.tool_calls.map((c) => c.function.name)).toEqual(['ok']);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PARSE_BAD_CALL_SYNTAX']);
    expect(r.content).toContain('functions.bad.0');
  });

  it('calls without a section opener (and the short R1 opener) still parse', () => {
    const r = parseEverywhere('<｜tool▁calls｜>function<｜tool▁sep｜>f\n```json\n{"a": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>', { family: 'deepseek-r1', prefix: '' });
    expect(calls(r)).toEqual([['f', { a: 1 }]]);
    expect(r.content).toBeNull();
  });

  it('a stop string inside a call is a truncation, and stop strings elsewhere vanish', () => {
    const r = parseEverywhere('<tool_call>\n{"name": "f", "arguments": {"a": 1<|im_end|>', { family: 'qwen3' });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PARSE_TRUNCATED_CALL']);
    expect(parseEverywhere('Hello<|im_end|> world<|endoftext|>', { family: 'qwen3' }).content).toBe('Hello world');
  });
});

describe('hermes JSON object shapes', () => {
  it('arguments before the name are buffered; "parameters" is accepted; other keys are ignored', () => {
    const r = parseEverywhere('<tool_call>{"arguments": {"a": [1, {"b": "}"}]}, "id": 7, "name": "f"}</tool_call><tool_call>{"name": "g", "parameters": {}}</tool_call>', {
      family: 'hermes',
    });
    expect(r.tool_calls.map((c) => [c.function.name, c.function.arguments])).toEqual([
      ['f', '{"a": [1, {"b": "}"}]}'],
      ['g', '{}'],
    ]);
  });

  it('arguments serialised as a JSON string are decoded; a name-less object is not a call', () => {
    const r = parseEverywhere('<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>', { family: 'hermes' });
    expect(calls(r)).toEqual([['f', { a: 1 }]]);
    const nameless = parseEverywhere('<tool_call>{"arguments": {}}</tool_call>', { family: 'hermes' });
    expect(nameless.tool_calls).toEqual([]);
    expect(nameless.diagnostics.map((d) => d.code)).toEqual(['PARSE_BAD_CALL_SYNTAX']);
  });

  it('GLM: a name followed by a newline still finds its schema', () => {
    const r = parseEverywhere('<tool_call>add \n<arg_key>n</arg_key><arg_value>2</arg_value></tool_call>', {
      family: 'glm-4.5',
      tools: [tool('add', { n: { type: 'integer' } })],
    });
    expect(r.tool_calls[0]!.function.arguments).toBe('{"n":2}');
  });
});

describe('seed-oss budget reflections', () => {
  it('a reflection written in content goes to reasoning, never content', () => {
    const prefix = '<seed:think>\n<seed:cot_budget_reflect>budget 0</seed:cot_budget_reflect>\n</seed:think>';
    const r = parseEverywhere('<seed:cot_budget_reflect>I have used 3 tokens.</seed:cot_budget_reflect>\nThe answer is 4.', { family: 'seed-oss', prefix });
    expect(r).toMatchObject({ content: 'The answer is 4.', reasoning_content: '<seed:cot_budget_reflect>I have used 3 tokens.</seed:cot_budget_reflect>' });
  });
});
