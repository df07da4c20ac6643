// Messages that quote untrusted text cut it short. Each cut used to be its own `slice(0, N) + '…'`, and a cut that
// fell between the two halves of a surrogate pair quoted half an emoji: a lone surrogate in a message printed to a
// terminal or a log, or `\ud83d` spelled out where the quote was JSON. They now share one helper that cuts before the
// pair and says how long the whole was. Each case puts an emoji across its site's limit.
import { describe, expect, it } from 'vitest';
import { readNdjson } from '../src/gateway/index.js';
import { importRow, parse, parseResponse, ResponseTemplateError, validateDataset } from '../src/index.js';
import { coerceValue } from '../src/parse/args/index.js';

const EMOJI = '😀';

/** `limit - 1` letters, then an emoji whose first half is the limit-th code unit, then more text. */
function acrossLimit(limit: number): string {
  return `${'a'.repeat(limit - 1)}${EMOJI}${'b'.repeat(limit)}`;
}

/** Fails on half a pair, raw or written as a JSON escape. */
function expectWholeCharacters(message: string): void {
  expect(message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  expect(message).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
}

describe('quotes cut short keep whole characters', () => {
  it('a tool argument of the wrong type (PARSE_ARG_TYPE)', () => {
    const raw = acrossLimit(40);
    const message = coerceValue(raw, { type: 'integer' }).diagnostic?.message ?? '';
    expect(message).toContain(`"${'a'.repeat(39)}"`);
    expect(message).toContain(`(${raw.length} characters)`);
    expectWholeCharacters(message);
  });

  it("an imported row's unknown turn tag", () => {
    const tag = acrossLimit(60);
    const { issues } = importRow({ conversations: [{ from: tag, value: 'hi' }] }, 'sharegpt');
    const message = issues.find((issue) => issue.code === 'IMPORT_UNKNOWN_ROLE')?.message ?? '';
    expect(message).toContain(`(${tag.length} characters)`);
    expectWholeCharacters(message);
  });

  it("a backend's NDJSON line that is not JSON", async () => {
    const line = acrossLimit(80);
    async function* body() {
      yield new TextEncoder().encode(`${line}\n`);
    }
    const read = async () => {
      for await (const _ of readNdjson(body())) void _;
    };
    const error = await read().then(() => undefined, (e: unknown) => e as Error);
    expect(error?.message).toMatch(/^not JSON: "a+"… \(\d+ characters\)$/);
    expectWholeCharacters(error!.message);
  });

  it("a response template's json region that does not parse", () => {
    const body = acrossLimit(200);
    const template = { start_anchor: '<s>', fields: { v: { open: '<v>', close: '</v>', content: 'json' } } };
    let message = '';
    try {
      parseResponse(`<v>${body}</v>`, template, { prefix: '' });
    } catch (e) {
      expect(e).toBeInstanceOf(ResponseTemplateError);
      message = (e as Error).message;
    }
    expect(message).toContain(`'${'a'.repeat(199)}'… (${body.length} characters)`);
    expectWholeCharacters(message);
  });

  it("a model's bare argument word that is not a value (Gemma-4 object notation)", () => {
    const word = acrossLimit(40);
    const parsed = parse(`<|tool_call>call:search{query:${word}}<tool_call|>`, { family: 'gemma-4' });
    const message = parsed.diagnostics.find((d) => d.code === 'PARSE_BAD_ARGS_JSON')?.message ?? '';
    expect(message).toMatch(/^"a{39}"… \(\d+ characters\) is not a number/);
    expectWholeCharacters(message);
    // The completion loses no text: the call stays in the content as the model wrote it.
    expect(parsed.content).toContain(word);
  });

  it("a tool schema's pattern the linear engine cannot run", async () => {
    const pattern = `(?=x)${acrossLimit(80)}`;
    const row = {
      messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: 'ok' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { s: { type: 'string', pattern } } } } }],
    };
    async function* lines() {
      yield JSON.stringify(row);
    }
    const messages: string[] = [];
    for await (const issue of validateDataset(lines())) if (issue.code === 'TOOL_SCHEMA_UNCHECKED') messages.push(issue.message);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(`(${pattern.length} characters)`);
    expectWholeCharacters(messages[0]!);
  });
});
