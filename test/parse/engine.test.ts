import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonObjectScanner } from '../../src/parse/engine/json-object-scan.js';
import { INVALID, JsonValueScanner, NEED_MORE } from '../../src/parse/engine/json-scan.js';
import { MarkerSet } from '../../src/parse/engine/markers.js';
import { StreamTrimmer } from '../../src/parse/engine/trim.js';

/** Feeds `text` to a scanner in chunks of `size` the way the machine does: unconsumed text stays. */
function scanInChunks(text: string, size: number): number {
  const scanner = new JsonValueScanner();
  let consumed = 0;
  let buf = '';
  for (let i = 0; i < text.length; i += size) {
    buf += text.slice(i, i + size);
    const end = scanner.scan(buf, 0, false);
    if (end === INVALID) return INVALID;
    if (end !== NEED_MORE) return consumed + end;
    consumed += buf.length;
    buf = '';
  }
  return NEED_MORE;
}

describe('MarkerSet', () => {
  const markers = new MarkerSet(['<tool_call>', '</tool_call>', '<think>', '<|im_end|>']);

  it('finds the earliest marker, the longest at a tie', () => {
    expect(markers.find('ab<think>c<tool_call>', 0)).toEqual({ at: 2, marker: '<think>' });
    const nested = new MarkerSet(['<a', '<ab>']);
    expect(nested.find('x<ab>', 0)).toEqual({ at: 1, marker: '<ab>' });
    expect(markers.find('a < b <tool <x>', 0)).toBeUndefined();
  });

  it('holds back exactly a tail that could still become a marker, at every split', () => {
    const text = 'Hi <tool_call>';
    for (let cut = 0; cut <= text.length; cut++) {
      const head = text.slice(0, cut);
      const hold = markers.partialStart(head, 0);
      const tail = head.slice(hold);
      // The held tail is a proper prefix of a marker, and everything before it can never be one.
      if (tail.length > 0) expect(markers.markers.some((m) => m.startsWith(tail) && m !== tail)).toBe(true);
      // A complete marker is not held (find() reports it); only a proper prefix is.
      expect(head.slice(0, hold)).toBe(cut <= 3 || cut === text.length ? head : 'Hi ');
    }
    expect(markers.partialStart('a <b', 0)).toBe(4);
    expect(markers.partialStart('x </tool_ca', 0)).toBe(2);
  });

  it('matches DeepSeek code points exactly, never an ASCII look-alike', () => {
    const ds = new MarkerSet(['<｜tool▁sep｜>']);
    expect(ds.find('a<|tool_sep|>b', 0)).toBeUndefined();
    expect(ds.find('a<｜tool▁sep｜>b', 0)?.at).toBe(1);
    expect(ds.couldStartAt('a<｜tool', 1)).toBe(true);
  });

  it('lists its markers once each, longest first (ties in the order given), never the empty string', () => {
    // What the constructor did with a filter, a Set and a sort, written out: it now drops '' after sorting.
    const reference = (list: string[]) => [...new Set(list.filter((m) => m.length > 0))].sort((a, b) => b.length - a.length);
    fc.assert(
      fc.property(fc.array(fc.constantFrom('', '<', '<a', 'b>', '<ab>', '</a>', 'x', '<a', ''), { maxLength: 12 }), (list) => {
        const set = new MarkerSet(list);
        expect(set.markers).toEqual(reference(list));
        expect(set.longest).toBe(reference(list)[0]?.length ?? 0);
      }),
    );
    expect(new MarkerSet(['']).find('abc', 0)).toBeUndefined();
    expect(new MarkerSet(['', 'b>']).markers).toEqual(['b>']);
  });
});

describe('JsonValueScanner', () => {
  const cases = [
    '{"a": 1}',
    '{"code": "mkdir -p test/{a,b}"}',
    '{"s": "</tool_call> \\" } ] {"}',
    '{"u": "\\u00e9\\ud83d\\ude00 é 😀", "n": [1, -2.5e3, true, false, null, {"x": []}]}',
    '{"esc": "a\\\\", "b": "\\\\\\""}',
    '[{"deep": [[[{}]]]}]',
  ];

  it('finds the end of a value at every chunk size, ignoring brackets and markers inside strings', () => {
    for (const value of cases) {
      for (const size of [1, 2, 3, 7, 1000]) expect(scanInChunks(`${value}</tool_call>`, size), `${value} / ${size}`).toBe(value.length);
    }
  });

  it('stops at a marker or a foreign character outside strings', () => {
    const scanner = new JsonValueScanner();
    expect(scanner.scan('{"a": 1<|tool_call_end|>', 0, false)).toBe(INVALID);
    expect(scanner.errorAt).toBe(7);
    expect(new JsonValueScanner().scan("{'a': 1}", 0, false)).toBe(INVALID);
  });

  it('needs more for unfinished values, including a dangling escape', () => {
    expect(new JsonValueScanner().scan('{"a": "x\\', 0, false)).toBe(NEED_MORE);
    expect(scanInChunks('{"a": "x\\"}"}', 1)).toBe(13);
    expect(new JsonValueScanner().scan('{"a": {"b": 1}', 0, true)).toBe(NEED_MORE);
  });

  it('is a strict validator: agrees with JSON.parse on arbitrary JSON-like text', () => {
    const token = fc.constantFrom('{', '}', '[', ']', ':', ',', ' ', '"a"', '"\\u00e9"', '"\\q"', '"\u0001"', '0', '01', '-', '1.5e+3', '1.', 'true', 'tru', 'null', '"x');
    const validByParse = (text: string) => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.array(token, { maxLength: 12 }).map((t) => t.join(''))), (text) => {
        const end = new JsonValueScanner().scan(text, 0, true);
        const byScanner = end >= 0 && /^[ \t\n\r]*$/.test(text.slice(end));
        expect(byScanner).toBe(validByParse(text));
      }),
      { seed: 42, numRuns: 3000 },
    );
  });

  it('rejects what JSON rejects, at the offending character', () => {
    for (const [text, at] of [['{"a": 01}', 7], ['{"a": tru}', 9], ['{"a" 1}', 5], ['{"a": [1,]}', 9], ['{"a": 1,}', 8], ['{"a": [1}', 8], ['{"a": "\\x"}', 8]] as const) {
      const scanner = new JsonValueScanner();
      expect(scanner.scan(text, 0, true), text).toBe(INVALID);
      expect(scanner.errorAt, text).toBe(at);
    }
  });

  it('ends a bare primitive at its delimiter or at the end of output', () => {
    expect(new JsonValueScanner().scan('123, ', 0, false)).toBe(3);
    expect(new JsonValueScanner().scan('123', 0, false)).toBe(NEED_MORE);
    expect(new JsonValueScanner().scan('123', 0, true)).toBe(3);
    expect(new JsonValueScanner().scan('"a\\"b" x', 0, false)).toBe(6);
  });

  it('validates long strings (the native fast path) exactly, split anywhere', () => {
    // A JSON string body with an escape every few characters, like code arguments.
    const body = JSON.stringify('def f():\n    return g("<b>x</b>", {"k": [1, 2]})  # é \\ done\t\u0001'.repeat(8)).slice(1, -1);
    const good = `{"path": "/a.py", "content": "${body}", "n": 1}`;
    for (const size of [1, 3, 5, 16, 17, 40, 1000]) expect(scanInChunks(`${good}<|x|>`, size), `size ${size}`).toBe(good.length);
    // A bad escape, a raw control character or a broken \u escape deep inside a long string.
    for (const [bad, offset] of [['\\q', 1], ['\u0001', 0], ['\\u12G4', 4], ['\n', 0]] as const) {
      const text = `{"content": "${body}${bad}${body}"}`;
      const scanner = new JsonValueScanner();
      expect(scanner.scan(text, 0, true), bad).toBe(INVALID);
      expect(scanner.errorAt, bad).toBe(13 + body.length + offset);
      for (const size of [1, 7, 33]) expect(scanInChunks(text, size), `${bad} / ${size}`).toBe(INVALID);
    }
  });
});

describe('JsonObjectScanner (call bodies that end at a marker)', () => {
  const scanAll = (text: string) => new JsonObjectScanner().scan(text, 0, text.length);

  it('finds the object inside surrounding (Unicode) whitespace and reports a `<` outside strings', () => {
    const scanner = new JsonObjectScanner();
    const text = '\u00a0 {"a": "x<|call|>y"} \u3000<|call|>';
    expect(scanner.scan(text, 0, text.length)).toEqual({ stop: 'angle', at: text.indexOf('<|call|>', 20) });
    expect([scanner.startAt, scanner.endAt, scanner.done]).toEqual([2, 21, true]);
    expect(scanAll('{"a": 1<|call|>')).toEqual({ stop: 'angle', at: 7 });
    expect(scanAll('{"a": [1, 2] <')).toEqual({ stop: 'angle', at: 13 });
  });

  it('tells a non-object and JSON errors apart from markers', () => {
    expect(scanAll(' [1]')).toEqual({ stop: 'not-object', at: 1 });
    expect(scanAll('<|call|>')).toEqual({ stop: 'angle', at: 0 });
    // Inside a string, a number or a literal, `<` cannot be a marker: it is an error.
    expect(scanAll('{"a": "\\<"}')).toEqual({ stop: 'error', at: 8 });
    expect(scanAll('{"a": -<')).toEqual({ stop: 'error', at: 7 });
    expect(scanAll('{"a": tr<')).toEqual({ stop: 'error', at: 8 });
    expect(scanAll('{"a": 1} x')).toEqual({ stop: 'error', at: 9 });
  });

  it('resumes where it stopped, across chunks', () => {
    const scanner = new JsonObjectScanner();
    expect(scanner.scan('{"a": "b', 0, 8)).toEqual({ stop: 'end', at: 8 });
    expect(scanner.started && !scanner.done).toBe(true);
    expect(scanner.scan('c"}', 0, 3)).toEqual({ stop: 'end', at: 3 });
    expect([scanner.startAt, scanner.endAt, scanner.done]).toEqual([-1, 3, true]);
  });
});

describe('StreamTrimmer', () => {
  function run(pieces: (string | 'BOUNDARY')[]): string {
    const trimmer = new StreamTrimmer();
    let out = '';
    for (const piece of pieces) {
      if (piece === 'BOUNDARY') trimmer.boundary();
      else out += trimmer.push(piece);
    }
    trimmer.boundary();
    return out;
  }

  it('drops whitespace at both ends and at boundaries, keeps inner whitespace', () => {
    expect(run(['  \n a  b \n '])).toBe('a  b');
    expect(run([' a', ' ', ' ', 'b ', 'BOUNDARY', '\n c'])).toBe('a  bc');
    expect(run(['\n', '\n', 'x'])).toBe('x');
  });

  it('gives the same text for every split', () => {
    const text = ' \n Hello,\n\n world \t ';
    for (let cut = 0; cut <= text.length; cut++) expect(run([text.slice(0, cut), text.slice(cut)])).toBe('Hello,\n\n world');
  });

  it('never takes back released text: held whitespace is returned only when text follows', () => {
    const trimmer = new StreamTrimmer();
    expect(trimmer.push('a \n')).toBe('a');
    expect(trimmer.takeHeld()).toBe(' \n');
    expect(trimmer.push('b')).toBe('b');
  });
});
