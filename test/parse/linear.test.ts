import { describe, expect, it } from 'vitest';
import { createStreamParser, familyIds, formatTurn, parse, parserFamilies, type ParseOptions } from '../../src/index.js';
import { parseWork } from '../../src/parse/engine/work.js';
import { MAX_DIAGNOSTICS } from '../../src/parse/stream.js';

// Issue 10 item 1: a model stuck in a loop repeats a marker thousands of times; glm-4.5 took 3.1 s on 320 KB of
// `<tool_call>`. Growth is checked by counting all the characters the engine handles (deterministic; see
// src/parse/engine/work.ts): marker search, the buffer each push searches (text kept across pushes counts again),
// consumed text, scanners, trimmers and the raw text kept for withdraws, on patterns built from each registered
// family's own markers, so families added later are covered too. Issue 16: the count once covered marker search only,
// and a planted quadratic loop in push went unnoticed; planting a push that never drops consumed text, or one that
// re-reads the open call's raw text, now fails this suite (checked when the counter was widened).
const SMALL = 8 * 1024;

function patternsOf(family: (typeof familyIds)[number]): string[] {
  const m = parserFamilies[family].markers;
  const opens = [...m.callOpen, ...(m.sectionOpen ?? [])];
  const patterns = new Set<string>();
  for (const open of opens) {
    patterns.add(open);
    patterns.add(`${open}f`);
    patterns.add(`${open}{"`);
    patterns.add(open.slice(0, Math.max(1, open.length - 1)));
  }
  if (m.sectionOpen?.[0] && m.callOpen[0]) patterns.add(m.sectionOpen[0] + m.callOpen[0]);
  for (const marker of [...(m.reasoningOpen ?? []), ...(m.reasoningClose ?? []), ...m.callClose]) patterns.add(marker);
  patterns.add('{"a": "');
  patterns.add('<');
  return [...patterns].filter((p) => p.length > 0);
}

function work(text: string, family: string, chunked: boolean): number {
  const before = parseWork.chars;
  if (chunked) {
    const stream = createStreamParser({ family });
    for (let i = 0; i < text.length; i += 256) stream.push(text.slice(i, i + 256));
    stream.finish();
  } else parse(text, { family });
  return parseWork.chars - before;
}

describe('parse work grows linearly on adversarial input', () => {
  for (const family of familyIds) {
    it(family, () => {
      const offenders: string[] = [];
      for (const pattern of patternsOf(family)) {
        const small = pattern.repeat(Math.ceil(SMALL / pattern.length));
        const large = small.repeat(10);
        for (const chunked of [false, true]) {
          const a = Math.max(1, work(small, family, chunked));
          const b = work(large, family, chunked);
          const how = chunked ? 'streamed' : 'batch';
          if (b / a > 12) offenders.push(`${JSON.stringify(pattern)} ${how}: ${a} → ${b} chars examined (${(b / a).toFixed(1)}× for 10× input)`);
        }
      }
      expect(offenders).toEqual([]);
    });
  }
});

/** Characters the engine handles streaming `text` in 16-character pushes. */
function streamedWork(text: string, family: string): number {
  const before = parseWork.chars;
  const stream = createStreamParser({ family, prefix: '' });
  for (let i = 0; i < text.length; i += 16) stream.push(text.slice(i, i + 16));
  stream.finish();
  return parseWork.chars - before;
}

describe('white space in a call header stays linear when streamed', () => {
  // Found by fuzzing: header readers skipped the white space after a call opener (and DeepSeek-R1's after the name, and
  // its fence's info line) without a bound, from the call's start on every push until they decided; 100 KB of newlines
  // after `<tool_call>` in 4-character pushes took 4–7 s in ten families. The buffer each push searches is counted.
  for (const family of familyIds) {
    it(family, () => {
      const m = parserFamilies[family].markers;
      const heads = [...m.callOpen, ...(family === 'deepseek-r1' ? [`${m.callOpen[0]}function<｜tool▁sep｜>f`, `${m.callOpen[0]}function<｜tool▁sep｜>f\n\`\`\``] : [])];
      const offenders: string[] = [];
      for (const head of heads) {
        for (const fill of [' ', '\n', 'x']) {
          const a = Math.max(1, streamedWork(head + fill.repeat(SMALL), family));
          const b = streamedWork(head + fill.repeat(10 * SMALL), family);
          if (b / a > 12) offenders.push(`${JSON.stringify(head + fill)}…: ${a} → ${b} chars examined (${(b / a).toFixed(1)}× for 10× input)`);
        }
      }
      expect(offenders).toEqual([]);
    });
  }
});

describe('white space after a tag whose verdict waits on what follows stays linear when streamed', () => {
  // Found by fuzzing, as above: a value's close tag (`</parameter>`, and Gemma's closing `<|"|>` of a string that lost
  // its opening one) is weighed by what follows its white space, looked for again from the tag on every push; 30 KB of
  // newlines after it in 1-character pushes took 2–10 s.
  const cases: [string, string][] = [
    ['qwen3-coder', '<tool_call>\n<function=run>\n<parameter=code>\nprint(1)\n</parameter>'],
    ['seed-oss', '<seed:tool_call>\n<function=get_time>\n<parameter=tz>UTC</parameter>'],
    ['glm-4.5', '<tool_call>run\n<arg_key>code</arg_key>\n<arg_value>print(1)</arg_value>'],
    ['gemma-4', '<|tool_call>call:search{query:weather in Tokyo, Japan<|"|>'],
  ];
  for (const [family, head] of cases) {
    it(family, () => {
      for (const fill of [' ', '\n']) {
        const a = streamedWork(head + fill.repeat(SMALL), family);
        expect(streamedWork(head + fill.repeat(10 * SMALL), family) / a, JSON.stringify(fill)).toBeLessThanOrEqual(12);
      }
    });
  }
});

describe('a looping model does not flood the result', () => {
  it('lists the first MAX_DIAGNOSTICS diagnostics, counts the rest, and loses no text', () => {
    const text = '<tool_call>oops</tool_call>'.repeat(3000);
    const message = parse(text, { family: 'qwen3' });
    expect(message.tool_calls).toEqual([]);
    expect(message.content).toBe(text);
    expect(message.diagnostics).toHaveLength(MAX_DIAGNOSTICS + 1);
    expect(message.diagnostics.at(-1)).toMatchObject({ code: 'PARSE_TOO_MANY_DIAGNOSTICS', severity: 'warning', message: `${3000 - MAX_DIAGNOSTICS} more diagnostics are not listed (the first ${MAX_DIAGNOSTICS} are)` });
  });
});

describe('declared string values stay linear', () => {
  // A string parameter runs to its own close structure, weighing every nested opener it meets (issue 10 item 2).
  it('qwen3-coder: a value full of parameter openers', () => {
    const tools = [{ type: 'function' as const, function: { name: 'write_file', parameters: { type: 'object', properties: { content: { type: 'string' } } } } }];
    const head = '<tool_call>\n<function=write_file>\n<parameter=content>\n';
    const cost = (n: number) => {
      const before = parseWork.chars;
      parse(head + '<parameter=x'.repeat(n), { family: 'qwen3-coder', tools });
      return parseWork.chars - before;
    };
    const small = cost(2000);
    expect(cost(20000) / small).toBeLessThanOrEqual(12);
  });

  // A close tag followed by an undeclared key waits for that key's own close (issue 16): the look-ahead resumes where
  // it stopped, so a long value streamed in small pieces, or a value full of such pairs, is not searched again.
  const writeFile = [{ type: 'function' as const, function: { name: 'write_file', parameters: { type: 'object', properties: { content: { type: 'string' } } } } }];
  const streamedCost = (text: string) => {
    const before = parseWork.chars;
    const stream = createStreamParser({ family: 'qwen3-coder', tools: writeFile });
    for (let i = 0; i < text.length; i += 16) stream.push(text.slice(i, i + 16));
    stream.finish();
    return parseWork.chars - before;
  };
  const open = '<tool_call>\n<function=write_file>\n<parameter=content>\nx';
  it('qwen3-coder: a long value after a close tag and an undeclared key, streamed', () => {
    const text = (n: number) => `${open}</parameter>\n<parameter=verbose>\n${'y'.repeat(n)}`;
    expect(streamedCost(text(200_000)) / streamedCost(text(20_000))).toBeLessThanOrEqual(12);
  });
  it('qwen3-coder: a value full of close tags before undeclared keys', () => {
    const text = (n: number) => open + '</parameter>\n<parameter=verbose>\nv\n</parameter> text '.repeat(n);
    expect(streamedCost(text(20_000)) / streamedCost(text(2_000))).toBeLessThanOrEqual(12);
    const batch = (n: number) => {
      const before = parseWork.chars;
      parse(text(n), { family: 'qwen3-coder', tools: writeFile });
      return parseWork.chars - before;
    };
    expect(batch(20_000) / batch(2_000)).toBeLessThanOrEqual(12);
  });
});

describe('streaming in 4-character pushes costs the batch work, within a constant', () => {
  // Issue 18: without a schema, a tagged value's close tag is settled only when the next key's value ends, and the text
  // held until then was re-joined and searched again on every push: at 4-byte pushes qwen3-coder, GLM, Seed, DSML and
  // MiniMax did ~350× the batch work on this 14 KB value (the ratio grew with the value, up to the 16 KB probe limit).
  const tools = [{ type: 'function' as const, function: { name: 'write_file', description: 'Write a file.', parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } } } }];
  const code = 'x = compute("<b>1</b>", {"depth": 2})  # step\n'.repeat(300);
  const work = (text: string, options: ParseOptions, chunk: number) => {
    const before = parseWork.chars;
    const stream = createStreamParser(options);
    for (let i = 0; i < text.length; i += chunk) stream.push(text.slice(i, i + chunk));
    stream.finish();
    return parseWork.chars - before;
  };
  for (const family of familyIds) {
    it(family, () => {
      const call = { id: 'functions.write_file:0', type: 'function' as const, function: { name: 'write_file', arguments: { path: '/srv/a.py', content: code } } };
      const { prompt, completion } = formatTurn({ role: 'assistant', content: 'Writing.', tool_calls: [call] }, { family, tools });
      // No tools given to the parser: nothing says which keys exist, so every close tag waits for the next value.
      const options = { family, prefix: prompt };
      expect(parse(completion, options).tool_calls).toHaveLength(1);
      const batch = work(completion, options, completion.length);
      expect(work(completion, options, 4) / batch).toBeLessThan(8);
    });
  }
});

describe('deep repetition never throws', () => {
  // Recursion per repeated marker overflows the stack only past some thousands of repeats (a Gemma label reader once
  // did at ~6,000 `<|channel>`), more than the growth test above needs; half a megabyte of each pattern goes further.
  const LARGE = 512 * 1024;
  for (const family of familyIds) {
    it(family, () => {
      for (const pattern of patternsOf(family)) {
        const text = pattern.repeat(Math.ceil(LARGE / pattern.length));
        // Repeated structure may be absorbed (a re-emitted <think> after a <think> prefill is no text), never grown.
        const message = parse(text, { family });
        const kept = (message.content ?? '').length + (message.reasoning_content ?? '').length;
        expect(kept, JSON.stringify(pattern)).toBeLessThanOrEqual(text.length);
      }
    });
  }
});
