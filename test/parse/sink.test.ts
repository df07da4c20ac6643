import { describe, expect, it } from 'vitest';
import { accumulateDeltas, ChatfmtError, createStreamParser, exportResponseTemplate, formatTurn, parse } from '../../src/index.js';
import type { Delta } from '../../src/types.js';
import { codePointChunks } from '../helpers/chunkings.js';
import { idGenerator, recordingSink, sinkStreamDeltas, viaSink, writeFileTools } from '../helpers/stream.js';

// The sink delivery (pushTo/finishTo): the stream push returns, without an OpenAI delta per streamed piece of text.
// Every chunking test also runs it (test/helpers/stream.ts); these check what a sink is handed, and the mixes.

const tools = writeFileTools;

function sample(family: string): { text: string; prefix: string } {
  const message = {
    role: 'assistant' as const,
    reasoning_content: 'Plan: write "it" <b>now</b>.',
    content: family === 'gpt-oss' ? '' : 'Writing it.',
    tool_calls: [{ id: 'functions.write_file:0', type: 'function' as const, function: { name: 'write_file', arguments: { path: '/a.py', content: 'print("back\\\\slash")\n' } } }],
  };
  const formatted = formatTurn(message, { family, tools });
  return { text: formatted.completion, prefix: formatted.prompt };
}

describe('StreamParser.pushTo', () => {
  it('hands a lane push its text as a string, no delta: arguments, content and reasoning', () => {
    for (const family of ['hermes', 'qwen3', 'qwen3-coder', 'glm-4.5', 'mistral', 'gemma-4', 'gpt-oss', 'kimi-k2']) {
      const { text, prefix } = sample(family);
      const at = text.lastIndexOf('back');
      const parser = createStreamParser({ family, tools, prefix, idGenerator });
      parser.pushTo(text.slice(0, at), recordingSink());
      const sink = recordingSink();
      parser.pushTo('abcd', sink);
      expect(sink.calls, family).toEqual([['arguments', 0, 'abcd']]);
    }
    const parser = createStreamParser({ family: 'qwen3', tools, prefix: '<|im_start|>assistant\n' });
    const sink = recordingSink();
    for (const chunk of ['<thi', 'nk>', 'Plan', ' it.', '</think>', 'Done', ' now']) parser.pushTo(chunk, sink);
    parser.finishTo(sink);
    expect(sink.calls).toEqual([
      ['reasoning', 'Plan'],
      ['reasoning', ' it.'],
      ['content', 'Done'],
      ['content', ' now'],
    ]);
  });

  it('gives a call its first delta whole (index, id, type, name) and a withdrawal with the raw text as content', () => {
    const sink = recordingSink();
    const parser = createStreamParser({ family: 'hermes', tools, idGenerator });
    for (const chunk of codePointChunks('<tool_call>\n{"name": "write_file", "arguments": {"path": "a"')) parser.pushTo(chunk, sink);
    parser.finishTo(sink);
    const deltas = sink.calls.filter((call) => call[0] === 'delta').map((call) => call[1]);
    expect(deltas[0]).toEqual({ tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'write_file', arguments: '' } }] });
    expect(deltas[1]).toMatchObject({ withdrawn_tool_calls: [0], diagnostics: [{ code: 'PARSE_TRUNCATED_CALL' }] });
    expect(sink.calls.at(-1)).toEqual(['content', '<tool_call>\n{"name": "write_file", "arguments": {"path": "a"']);
    const args = sink.calls.filter((call) => call[0] === 'arguments').map((call) => call[2]);
    expect(args.join('')).toBe('{"path": "a"');
  });

  it('mixes with push on one parser, chunk by chunk, into the batch result', () => {
    for (const family of ['hermes', 'qwen3-coder', 'deepseek-v3.1', 'gpt-oss']) {
      const { text, prefix } = sample(family);
      const batch = parse(text, { family, tools, prefix, idGenerator });
      const parser = createStreamParser({ family, tools, prefix, idGenerator });
      const deltas: Delta[] = [];
      codePointChunks(text).forEach((chunk, i) => {
        if (i % 3 === 0) deltas.push(...parser.push(chunk));
        else deltas.push(...viaSink((sink) => parser.pushTo(chunk, sink)));
      });
      deltas.push(...viaSink((sink) => parser.finishTo(sink)));
      expect(accumulateDeltas(deltas), family).toEqual(batch);
    }
  });

  it('keeps the stream rules: finishTo once, releasing what was held; no push after it', () => {
    const parser = createStreamParser({ family: 'qwen3' });
    const first = recordingSink();
    parser.pushTo('Hello <tool_ca', first);
    expect(first.calls).toEqual([['content', 'Hello']]);
    const sink = recordingSink();
    parser.finishTo(sink);
    expect(sink.calls).toEqual([['content', ' <tool_ca']]);
    const again = recordingSink();
    parser.finishTo(again);
    expect(again.calls).toEqual([]);
    expect(parser.finish()).toEqual([]);
    expect(() => parser.pushTo('x', recordingSink())).toThrow(ChatfmtError);
  });

  it("serves a response template's OpenAI stream too, as its push does", () => {
    const template = exportResponseTemplate('kimi-k2').template;
    const text = '<think>Plan.</think>Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>';
    const batch = parse(text, { responseTemplate: template, output: 'openai', idGenerator });
    const parser = createStreamParser({ responseTemplate: template, output: 'openai', idGenerator });
    const streamed = accumulateDeltas(sinkStreamDeltas(parser, codePointChunks(text)));
    expect(streamed).toEqual(batch);
    expect(batch.tool_calls).toHaveLength(1);
    expect(batch.reasoning_content).toBe('Plan.');
  });
});

describe('accumulateDeltas', () => {
  // The accumulator lists calls in the order a parse numbers them without sorting (message()'s in-order path); deltas
  // from elsewhere may start calls out of order, and must come out by index, withdrawn ones dropped, either way.
  const start = (index: number): Delta => ({ tool_calls: [{ index, id: `id${index}`, type: 'function', function: { name: `f${index}`, arguments: '' } }] });
  const args = (index: number, text: string): Delta => ({ tool_calls: [{ index, function: { arguments: text } }] });

  it('lists calls by index whatever order they started in, and drops withdrawn ones', () => {
    const orders = [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 0, 2, 3], [0, 1, 3, 2]];
    for (const order of orders) {
      for (const withdrawn of [[], [0], [2], [1, 3]]) {
        const deltas: Delta[] = [];
        for (const index of order) deltas.push(start(index), args(index, `{"n":`), args(index, `${index}}`));
        if (withdrawn.length > 0) deltas.push({ withdrawn_tool_calls: withdrawn });
        const expected = [0, 1, 2, 3].filter((index) => !withdrawn.includes(index));
        const message = accumulateDeltas(deltas);
        expect(message.tool_calls.map((call) => call.id), `${order} without ${withdrawn}`).toEqual(expected.map((index) => `id${index}`));
        expect(message.tool_calls.map((call) => call.function.arguments)).toEqual(expected.map((index) => `{"n":${index}}`));
      }
    }
  });
});
