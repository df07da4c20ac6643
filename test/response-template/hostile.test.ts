import { describe, expect, it } from 'vitest';
import {
  accumulateDeltas,
  compileResponseTemplate,
  createResponseParser,
  createStreamParser,
  exportResponseTemplate,
  parse,
  RESPONSE_TEMPLATE_MEMO_BITS,
  ResponseTemplateError,
  type ResponseParser,
} from '../../src/index.js';
import { OpenAIResponseStream } from '../../src/response-template/openai.js';
import { hasResponseTemplates, loadTemplate } from './data.js';

/** Batch parse; returns the matcher steps spent (the work measure: no timing assertions). */
function steps(template: unknown, text: string): number {
  const p = createResponseParser(template, { prefix: '' });
  p.feed(text);
  try { p.finalize(); } catch (e) { if (!(e instanceof ResponseTemplateError)) throw e; }
  return p.stats.steps;
}

/** `text` fed in `size`-character chunks: the dict, the text the regions released, and the matcher steps spent. */
function streamInChunks(p: ResponseParser, text: string, size: number) {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    for (const e of p.feed(text.slice(i, i + size))) if (e.type === 'region_chunk') chunks.push(e.text);
  }
  const { message, events } = p.finalize();
  for (const e of events) if (e.type === 'region_chunk') chunks.push(e.text);
  return { message, text: chunks.join(''), steps: p.stats.steps };
}

/** Steps at n and 2n characters: linear work doubles (allow slack), quadratic work quadruples. */
function growth(make: (n: number) => [unknown, string]): { small: number; ratio: number } {
  const small = steps(...make(20_000));
  const large = steps(...make(40_000));
  return { small, ratio: large / small };
}

describe('hostile templates and completions stay bounded', () => {
  const nested = (open: string, close: string) => ({ start_anchor: 's', fields: { x: { open_pattern: open, close_pattern: close }, content: {} } });

  it.each([
    ['(a+)+b', 'a'], ['(a|aa)*c', 'a'], ['(x+x+)+y', 'x'], ['(?:a*)*b', 'a'], ['(.*?,){10}z', 'a,'],
  ])('nested quantifier %s on a long run of %j: linear work (memoised states), no error', (pattern, unit) => {
    const { small, ratio } = growth((n) => [nested('<x>', pattern), `<x>${unit.repeat(n / unit.length)}`]);
    expect(ratio).toBeLessThan(2.5);
    expect(small).toBeLessThan(20_000 * 400);
  });

  // 59 literal alternatives, none of which occurs in the text (issue 17 item 4).
  const words = Array.from({ length: 59 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + ((i * 7) % 26))}x${i}`);
  const limitError = (template: unknown, text: string) => {
    const p = createResponseParser(template, { prefix: '' });
    let caught: unknown;
    try { p.feed(text); p.finalize(); } catch (e) { caught = e; }
    return { p, err: caught as ResponseTemplateError };
  };

  it('a 59-branch alternation on a long text: the memo holds a few pages whatever the text size, work stays linear', () => {
    const run = (n: number) => {
      const p = createResponseParser(nested(`(?:${words.join('|')})`, '</x>'), { prefix: '' });
      p.feed('wa'.repeat(n / 2));
      p.finalize();
      return p.stats;
    };
    const small = run(100_000), large = run(400_000);
    // Before: one table sized to the remaining text (59 columns × every position), then a Set that dies at 1 MB.
    expect(large.memoPeak).toBeLessThanOrEqual(small.memoPeak);
    expect(large.memoPeak).toBeLessThan(1 << 20);
    // Before: ~90 steps a character (the branches tried at every position); the literals are now found by indexOf.
    expect(large.steps).toBeLessThan(400_000);
  });

  it('an alternation under a lazy star that runs to the end stops at the memo cap: one-line RESPONSE_TEMPLATE_LIMIT', () => {
    const { p, err } = limitError(nested('<x>', `(?:${words.join('|')}|.)*?</y>`), `<x>${'wa'.repeat(350_000)}`);
    expect(err).toBeInstanceOf(ResponseTemplateError);
    expect([err.code, err.pythonType, err.phase]).toEqual(['RESPONSE_TEMPLATE_LIMIT', 'RuntimeError', 'feed']);
    expect(err.message).toMatch(/memo/);
    expect(err.message).not.toContain('\n');
    expect(p.stats.memoPeak).toBeLessThanOrEqual(RESPONSE_TEMPLATE_MEMO_BITS);
  }, 60_000);

  it('a backreference pattern fails after a budget that grows with the text, not with the pattern', () => {
    const n = 20_000;
    const { p, err } = limitError(nested('<x>', '(a*)*\\1b'), `<x>${'a'.repeat(n)}!`);
    expect(err.code).toBe('RESPONSE_TEMPLATE_LIMIT');
    // Before: 32 steps per instruction per character (about 6.6 million here, 11 s per MB).
    expect(p.stats.steps).toBeLessThan(200_000 + 20 * n);
  });

  it('an exponential backreference pattern hits the step budget: a one-line RuntimeError, not a hang', () => {
    const p = createResponseParser(nested('<x>', '(a*)*\\1b'), { prefix: '' });
    let caught: unknown;
    try { p.feed(`<x>${'a'.repeat(5000)}!`); } catch (e) { caught = e; }
    expect(caught).toBeInstanceOf(ResponseTemplateError);
    const err = caught as ResponseTemplateError;
    expect([err.pythonType, err.code, err.phase]).toEqual(['RuntimeError', 'RESPONSE_TEMPLATE_LIMIT', 'feed']);
    expect(err.message).not.toContain('\n');
    expect(p.stats.steps).toBeLessThan(1e8);
  });

  // Found by fuzzing: the pattern parser recursed once per group level, so 100,000 `(` threw V8's RangeError out of
  // createResponseParser instead of a load error.
  it.each([['(', ')'], ['(?:', ')'], ['(?!', ')'], ['(?<=', ')']])('%s nested 100,000 deep: a load error, not a stack overflow', (open, close) => {
    const pattern = `${open.repeat(100_000)}a${close.repeat(100_000)}`;
    let caught: unknown;
    try { createResponseParser(nested(pattern, '</x>'), { prefix: '' }); } catch (e) { caught = e; }
    expect(caught).toBeInstanceOf(ResponseTemplateError);
    expect((caught as ResponseTemplateError).code).toBe('RESPONSE_TEMPLATE_INVALID');
    expect((caught as ResponseTemplateError).message).toMatch(/nested deeper than 256 levels/);
  });

  it('256 nested groups, lookarounds among them, still load and match', () => {
    const p = createResponseParser(nested(`${'(?:'.repeat(255)}(?!<y>)<x>${')'.repeat(255)}`, '</x>'), { prefix: '' });
    p.feed('say <x>hi</x>');
    expect(p.finalize().message).toEqual({ content: 'say', x: 'hi' });
  });

  // Found by fuzzing: each `{` (a possible {m,n}) and each `\g<` counted the pattern's code points up to it and copied
  // the rest, so 100,000 braces took 38 s to refuse; 400,000 would take ten minutes.
  it.each([['a{', 200_000], ['\\g<1>', 80_000]])('%s repeated %i times is parsed in linear time', (unit, n) => {
    const pattern = `(a)${unit.repeat(n)}`;
    expect(() => createResponseParser(nested(pattern, '</x>'), { prefix: '' })).toThrow(/pattern too large/);
  });

  // Found by fuzzing: the load error quoted the whole pattern, a megabyte of message.
  it('a megabyte pattern that does not compile is quoted in its first 200 characters, with its length', () => {
    const pattern = `${'a'.repeat(1_000_000)}(`;
    let caught: unknown;
    try { createResponseParser(nested(pattern, '</x>'), { prefix: '' }); } catch (e) { caught = e; }
    const err = caught as ResponseTemplateError;
    expect(err.code).toBe('RESPONSE_TEMPLATE_INVALID');
    expect(err.message).toContain(`'${'a'.repeat(200)}'… (1000001 characters)`);
    expect(err.message.length).toBeLessThan(400);
  });

  // Every pair of literals was compared before the pattern was compiled: minutes for 100,000 of them.
  it('a list of 100,000 literal delimiters is refused as too large without comparing every pair', () => {
    const open = Array.from({ length: 100_000 }, (_, i) => `<x${i}>`);
    const template = { start_anchor: 's', fields: { x: { open, close: '</x>' }, content: {} } };
    expect(() => createResponseParser(template, { prefix: '' })).toThrow(/pattern too large/);
  });

  it('a list of 1,000 literal delimiters loads, and one that begins another still waits for the longer', () => {
    const open = Array.from({ length: 1_000 }, (_, i) => `<x${i}>`);
    const template = { start_anchor: 's', fields: { x: { open: [...open, '<x1'], close: '</x>' }, content: {} } };
    const p = createResponseParser(template, { prefix: '' });
    // `<x1` alone is a delimiter, yet `<x12>` is a longer one: the parser must not commit on the prefix.
    p.feed('say <x1');
    p.feed('2>hi</x>');
    expect(p.finalize().message).toEqual({ content: 'say', x: 'hi' });
  });

  it('a long lookbehind is refused at load rather than tried at every width', () => {
    expect(() => createResponseParser(nested('(?<=a{1,5000})<x>', '</x>'), { prefix: '' })).toThrow(/lookbehind/);
  });

  it.skipIf(!hasResponseTemplates)('many regions: delimiters that never occur are not rescanned after every commit', () => {
    const call = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>\n';
    const { ratio } = growth((n) => [loadTemplate('serve-qwen2'), `${call.repeat(Math.ceil(n / call.length))}done<|im_end|>`]);
    expect(ratio).toBeLessThan(2.5);
  });

  it.skipIf(!hasResponseTemplates)('streamed in 256-character chunks: linear work too', () => {
    const call = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>\n';
    const streamed = (n: number) => {
      const text = call.repeat(Math.ceil(n / call.length));
      const p = createResponseParser(loadTemplate('serve-qwen2'), { prefix: '' });
      for (let i = 0; i < text.length; i += 256) p.feed(text.slice(i, i + 256));
      p.finalize();
      return p.stats.steps;
    };
    expect(streamed(40_000) / streamed(20_000)).toBeLessThan(2.5);
  });

  it.skipIf(!hasResponseTemplates)('a delimiter held at an early position (Nemotron\'s lookahead open) does not make each chunk rescan the held text', () => {
    const streamed = (n: number) => {
      const prose = 'The quick brown fox <jumps> over the lazy dog; a < b.\n'.repeat(n / 50);
      const text = `${prose}</think>\n${prose}<|im_end|>`;
      const p = createResponseParser(loadTemplate('trl-nemotron_3'), { prefix: '<|im_start|>assistant\n<think>\n' });
      for (let i = 0; i < text.length; i += 16) p.feed(text.slice(i, i + 16));
      expect(p.finalize().message['reasoning_content']).toBe(prose.trim());
      return p.stats.steps;
    };
    expect(streamed(40_000) / streamed(20_000)).toBeLessThan(2.5);
  });

  it.skipIf(!hasResponseTemplates).each([
    ['serve-qwen2', ' '], ['serve-qwen2', '<tool_call'], ['trl-nemotron_3', '</thin'], ['trl-lfm2_5', ',a('], ['gpt-oss', '<|channel|>commentary to=functions.f'],
  ])('%s on a completion of repeated %j: linear work', (name, unit) => {
    const { ratio } = growth((n) => [loadTemplate(name), unit.repeat(Math.ceil(n / unit.length))]);
    expect(ratio).toBeLessThan(2.5);
  });
});

describe('a partial match held open while the text streams in', () => {
  // DeepSeek-R1's exported call opener is `<｜tool▁calls｜>[^<]*<｜tool▁sep｜>…`: after a bare `<｜tool▁calls｜>` and a
  // long run without `<`, the attempt there reaches the end of every chunk's buffer and is held. Retried on every
  // chunk it re-read the held text each time: 16 KB in 4-character chunks took 6.6 s (258 M matcher steps).
  const template = compileResponseTemplate(exportResponseTemplate('deepseek-r1').template);
  const completion = (n: number) => `Sure.<｜tool▁calls｜>{"name": "f", "arguments": {"a": "${'y'.repeat(n)}"}}`;
  const streamed = (text: string, size: number) => streamInChunks(createResponseParser(template, { prefix: '' }), text, size);

  it('4-character chunks: work grows with the text, not its square', () => {
    const small = streamed(completion(8_000), 4), large = streamed(completion(16_000), 4);
    expect(large.steps / small.steps).toBeLessThan(2.5);
  });

  it('the held text is released whole, and the dict is the one-chunk dict', () => {
    const text = `${completion(3_000)}\nDone.<｜end▁of▁sentence｜>`;
    const batch = streamed(text, text.length);
    for (const size of [1, 4, 64]) {
      const stream = streamed(text, size);
      expect(stream.message).toEqual(batch.message);
      expect(stream.text).toBe(batch.text);
    }
    expect(batch.message['content']).toBe(text.slice(0, -'<｜end▁of▁sentence｜>'.length));
  });
});

describe('a complete match held at the end while the text streams in', () => {
  // `\s*$` over a run of white space matches whole at every chunk, ends at the buffer's end and is held; re-searched on
  // every chunk, the run was re-read each time: 20,000 spaces in 4-character chunks took 11 s.
  const streamed = (closePattern: string, text: string, size: number, holdEndDependent = false) =>
    streamInChunks(createResponseParser({ start_anchor: 'A', fields: { content: { close_pattern: closePattern } } }, { prefix: '', holdEndDependent }), text, size);

  // A lookahead that reads to the end matches before the run and is held only where chatfmt holds what looked at the
  // end (openai output, holdEndDependent); transformers' rules commit it there, a close that changes nothing, and
  // re-search the run on the next chunk (dict mode keeps that).
  it.each([['\\s*$', ' ', false], ['\\s*$', ' ', true], ['<\\|user\\|>\\s*|$', '\n', false], ['(?=\\n*$)', '\n', true]])('%s over a run of %j in 4-character chunks (holdEndDependent %s): work grows with the text, not its square', (pattern, unit, hold) => {
    const small = streamed(pattern, `a${unit.repeat(8_000)}`, 4, hold), large = streamed(pattern, `a${unit.repeat(16_000)}`, 4, hold);
    expect(large.steps / small.steps).toBeLessThan(2.5);
  });

  it('the dict and the released text are those of one chunk', () => {
    const text = `Start.${' '.repeat(3_000)}middle${'\n'.repeat(3_000)}end.\n`;
    const batch = streamed('\\s*$', text, text.length);
    for (const size of [1, 4, 64]) {
      const stream = streamed('\\s*$', text, size);
      expect(stream.message).toEqual(batch.message);
      expect(stream.text).toBe(batch.text);
    }
    expect(batch.message['content']).toBe(text.trim());
  });
});

describe('openai output recovers from a failing chunk in near-linear work', () => {
  // Found by fuzzing: when a feed raises, the chunk is replayed on a fresh parser up to the code point that raised.
  // It was replayed a code point at a time, which costs what one-character pushes cost, quadratic while a region is
  // held open: a batch parse (one chunk) of an 8 KB malformed DeepSeek-R1 call took 8 s in openai mode against 10 ms
  // in dict mode. The replay's work is every parser's matcher steps, counted through the parser factory.
  const template = compileResponseTemplate(exportResponseTemplate('deepseek-r1').template);
  const completion = (n: number) =>
    `Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n\`\`\`"tz${'<｜tool_call_begin｜>'.repeat(n)}": "UTC"}\n\`\`\`<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
  const run = (text: string) => {
    const parsers: ResponseParser[] = [];
    const create = () => {
      const parser = createResponseParser(template, { prefix: '' });
      parsers.push(parser);
      return parser;
    };
    const stream = new OpenAIResponseStream(create, template.source as Record<string, unknown>, () => 'call_0', 'deepseek-r1');
    const message = accumulateDeltas([...stream.push(text), ...stream.finish()]);
    return { message, steps: parsers.reduce((sum, parser) => sum + parser.stats.steps, 0) };
  };

  it('one chunk: the raw text stays content, and the work grows with the text, not its square', () => {
    const small = run(completion(500));
    const large = run(completion(1000));
    expect(large.message.content).toBe(completion(1000));
    expect(large.message.diagnostics.map((d) => [d.code, d.severity])).toEqual([['PARSE_RESPONSE_TEMPLATE', 'error']]);
    expect(large.steps / small.steps).toBeLessThan(2.5);
  });

  it('the same message whatever the chunking', () => {
    const text = completion(200);
    const batch = parse(text, { responseTemplate: template, output: 'openai', idGenerator: () => 'call_0' });
    for (const cut of [1, 60, text.length - 3]) {
      const stream = createStreamParser({ responseTemplate: template, output: 'openai', idGenerator: () => 'call_0' });
      expect(accumulateDeltas([...stream.push(text.slice(0, cut)), ...stream.push(text.slice(cut)), ...stream.finish()])).toEqual(batch);
    }
  });
});
