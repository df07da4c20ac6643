import { describe, expect, it } from 'vitest';
import { createResponseParser, parseResponse, type ResponseEvent } from '../../src/index.js';

/** One explicit field `x` between `open` and `close` patterns, plus an implicit `content`. */
function tpl(open: string, close: string, extra: Record<string, unknown> = {}) {
  return { start_anchor: '<start>', fields: { x: { open_pattern: open, close_pattern: close, ...extra }, content: {} } };
}

function events(template: unknown, chunks: string[]): ResponseEvent[] {
  const p = createResponseParser(template, { prefix: '' });
  const out = [...p.initialEvents];
  for (const c of chunks) out.push(...p.feed(c));
  out.push(...p.finalize().events);
  return out;
}

describe('Python regex dialect in delimiters (§11)', () => {
  it('$ also matches before a final newline, not before an inner one', () => {
    expect(parseResponse('<x>hi!\n', tpl('<x>', '!$'), { prefix: '' })).toEqual({ x: 'hi' });
    expect(parseResponse('<x>hi!\nmore', tpl('<x>', '!$'), { prefix: '' })).toEqual({ x: 'hi!\nmore' });
  });

  it('\\Z matches only at the very end', () => {
    expect(parseResponse('<x>hi!\n', tpl('<x>', '!\\Z'), { prefix: '' })).toEqual({ x: 'hi!' });
  });

  it('{,n} is a quantifier (JS would read it literally); a stray { is a literal', () => {
    expect(parseResponse('<aa>v</x>', tpl('<a{,2}>', '</x>'), { prefix: '' })).toEqual({ x: 'v' });
    expect(parseResponse('{v}', tpl('\\{', '}'), { prefix: '' })).toEqual({ x: 'v' });
    expect(parseResponse('a{bv', tpl('a{b', 'c'), { prefix: '' })).toEqual({ x: 'v' });
  });

  it('\\w and \\d are Unicode, (?P<name>) and (?P=name) work', () => {
    const t = tpl('<(?P<tag>\\w+) n=(?P<n>\\d+) q=(?P<q>["\'])(?P<v>.*?)(?P=q)>', '</\\w+>', { transform: { tag: '{tag}', n: '{n}', v: '{v}', body: '{content}' } });
    expect(parseResponse(`<héllo_1 n=٣٤ q="it's">body</héllo_1>`, t, { prefix: '' })).toEqual({ x: { tag: 'héllo_1', n: '٣٤', v: "it's", body: 'body' } });
  });

  it('\\s is the regex module\'s White_Space: U+3000 yes, U+FEFF and \\x1c no', () => {
    expect(parseResponse('<x>v\u3000</x>', tpl('<x>', '\\s+</x>', { content_args: { strip: false } }), { prefix: '' })).toEqual({ x: 'v' });
    expect(parseResponse('<x>v\ufeff</x>', tpl('<x>', '\\s*</x>', { content_args: { strip: false } }), { prefix: '' })).toEqual({ x: 'v\ufeff' });
    expect(parseResponse('<x>v\x1c</x>', tpl('<x>', '\\s*</x>', { content_args: { strip: false } }), { prefix: '' })).toEqual({ x: 'v\x1c' });
  });

  it('accepts what the regex module accepts: a repeated assertion, a group name used twice', () => {
    expect(parseResponse('<x>v</x>', tpl('\\b*<x>', '</x>'), { prefix: '' })).toEqual({ x: 'v' });
    const t = tpl('<(?:a=(?P<n>\\w+)|b=(?P<n>\\d+))>', '</x>', { transform: { n: '{n}' } });
    expect(parseResponse('<b=42>v</x>', t, { prefix: '' })).toEqual({ x: { n: '42' } });
  });

  it('alternation is leftmost-first, not longest', () => {
    expect(parseResponse('<x>v</x>tail', tpl('<x>', '<|</x>'), { prefix: '' })).toEqual({ x: 'v', content: '/x>tail' });
  });

  it('lookbehind and lookahead; ^ matches only at buffer start even after pos moved', () => {
    expect(parseResponse('a<x>v;b</x>', tpl('(?<=a)<x>', '(?=b)'), { prefix: '' })).toEqual({ content: 'b</x>', x: 'v;' });
    expect(parseResponse('v<x>w', tpl('^<x>', '$'), { prefix: '' })).toEqual({ content: 'v<x>w' });
  });
});

describe('partial matching while streaming (§8)', () => {
  it('a complete match anywhere wins over an earlier partial one: `a.*c|b` on "zab!" commits b', () => {
    const t = { start_anchor: 's', fields: { content: { close_pattern: 'a.*c|b' } } };
    const p = createResponseParser(t, { prefix: '' });
    expect(p.feed('zab!')).toEqual([
      { type: 'region_open', field: 'content' }, { type: 'region_chunk', field: 'content', text: 'za', dirty: false },
      { type: 'region_close', field: 'content', value: 'za' },
      { type: 'region_open', field: 'content' }, { type: 'region_chunk', field: 'content', text: '!', dirty: false },
    ]);
    expect(p.finalize().message).toEqual({ content: '!' });
  });

  it('an optional multi-character tail commits early when streamed (transformers does the same)', () => {
    const t = tpl('<x>', '\\)(?:\\]END)?');
    expect(parseResponse('<x>f(a)]END', t, { prefix: '' })).toEqual({ x: 'f(a' });
    const streamed = createResponseParser(t, { prefix: '' });
    for (const ch of '<x>f(a)]END') streamed.feed(ch);
    expect(streamed.finalize().message).toEqual({ x: 'f(a', content: ']END' });
  });

  it('holds a literal prefix at the buffer edge and releases it when the text diverges', () => {
    const ev = events(tpl('<x>', '</x>'), ['hello <', 'y> world']);
    const chunks = ev.filter((e) => e.type === 'region_chunk').map((e) => (e as { text: string }).text);
    expect(chunks).toEqual(['hello ', '<y> world']);
  });

  it('holds a zero-width lookahead open until its condition is decided (Nemotron shape)', () => {
    const t = { start_anchor: 's', fields: { r: { open_pattern: '(?=[\\s\\S]*?</think>)', close_pattern: '</think>\\s*' }, content: {} } };
    const p = createResponseParser(t, { prefix: '' });
    expect(p.feed('plan a')).toEqual([]);
    expect(p.feed('nd b</think>\nok')).toEqual([
      { type: 'region_open', field: 'r' }, { type: 'region_chunk', field: 'r', text: 'plan and b', dirty: false },
      { type: 'region_close', field: 'r', value: 'plan and b' },
    ]);
    // Content after it is held too: another </think> could still open a reasoning region there.
    expect(p.finalize().events).toEqual([
      { type: 'region_open', field: 'content' }, { type: 'region_chunk', field: 'content', text: 'ok', dirty: false },
      { type: 'region_close', field: 'content', value: 'ok' },
    ]);
  });
});

describe('chunks that split a surrogate pair', () => {
  it('an astral delimiter split across chunks still matches', () => {
    const t = { start_anchor: 's', fields: { x: { open: '\u{1F527}', close: '\u{1F51A}' }, content: {} } };
    const p = createResponseParser(t, { prefix: '' });
    for (const unit of 'a\u{1F527}b\u{1F51A}c'.split('')) p.feed(unit);
    expect(p.finalize().message).toEqual({ content: 'c', x: 'b' });
  });
});

describe('long streams (the consumed start of the buffer is dropped)', () => {
  it('streamed in any chunk sizes equals batch, lookbehind and \\b included', () => {
    const t = {
      start_anchor: 's',
      fields: {
        tag: { open_pattern: '(?<=\\bcall )<(?P<n>\\w+)>', close_pattern: '</\\w+>', transform: { n: '{n}', v: '{content}' }, repeats: true },
        content: { content_args: { strip: false } },
      },
    };
    const unit = (k: number) => `${'lorem ipsum '.repeat(k % 7)}call <f${k}>v${k}</f${k}> nocall <g${k}>x `;
    const text = Array.from({ length: 400 }, (_, k) => unit(k)).join('');
    expect(text.length).toBeGreaterThan(20_000);
    const batch = parseResponse(text, t, { prefix: '' });
    expect((batch['tag'] as unknown[]).length).toBe(400);
    for (const size of [1, 7, 64, 1000, 5000]) {
      const p = createResponseParser(t, { prefix: '' });
      for (let i = 0; i < text.length; i += size) p.feed(text.slice(i, i + size));
      expect(p.finalize().message).toEqual(batch);
    }
  });
});
