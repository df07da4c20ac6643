// `chatfmt render` reads rows that repeat the previous rows' "tools" text without parsing that text again, and hands
// every such row the one frozen value (src/validate/repeated-tools.ts). Nothing about a row may change: each row must
// read as parsePythonJson reads it alone, and render as it renders alone, wherever the text sits in it and whatever
// surrounds it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { families, parsePythonJson, pythonJsonDumps } from '../../src/index.js';
import { repeatedToolsReader } from '../../src/validate/repeated-tools.js';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir();

/** A row as parsePythonJson reads it alone, in a form that keeps key order, `1.0` and big integers: or its error. */
function alone(text: string): string {
  try {
    return pythonJsonDumps(parsePythonJson(text));
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

function readAll(rows: string[]): string[] {
  const read = repeatedToolsReader();
  return rows.map((text) => {
    try {
      return pythonJsonDumps(read(text));
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  });
}

// Tools texts: compact and spaced, brackets and quotes inside strings, an object, and ones only the exact reader reads
// as jinja2 would (1.0, keys that JS objects would reorder), one holding the stand-in's own escape.
const TOOLS = [
  '[{"type":"function","function":{"name":"get","description":"a \\"quoted\\" [x] {y} \\\\","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}}]',
  '[ {"type": "function", "function": {"name": "get", "parameters": {"type": "object", "properties": {}}}} ]',
  '{"name": "solo", "enum": ["[", "]", "{", "}"]}',
  '[{"name": "f", "default": 1.0}]',
  '[{"name": "f", "properties": {"10": 1, "2": 2}}]',
  '[{"name": "nul \\u0000 inside"}]',
  '[]',
];

const SPACES = ['', ' ', '\n', ' \t '];

/** One member of a row: the tools at the top, elsewhere, or inside a string; and members that steer the reader. */
const member = (tools: string) =>
  fc.constantFrom(
    `"tools":${tools}`,
    `"tools" : ${tools}`,
    `"meta":{"tools":${tools}}`,
    `"tools":[${tools}]`,
    `"x":${tools}`,
    `"messages":[{"role":"user","content":${JSON.stringify(tools)}}]`,
    `"messages":[{"role":"user","content":"hi \\"tools\\": ${tools.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"}]`,
    '"messages":[{"role":"user","content":"hi"}]',
    '"n":1.0',
    '"s":"\\u0000"',
    '"tools":"\\u0000"',
    '"10":1,"2":2',
  );

const row = fc
  .tuple(fc.constantFrom(...TOOLS), fc.constantFrom(...TOOLS), fc.constantFrom(...SPACES), fc.integer({ min: 0, max: 9 }))
  .chain(([a, b, space, cut]) =>
    fc.array(fc.oneof(member(a), member(b)), { maxLength: 5 }).map((members) => {
      const text = `{${space}${members.join(`,${space}`)}${space}}`;
      // Now and then a row that is not JSON: cut short where the text is.
      return cut === 0 ? text.slice(0, Math.max(1, text.length >> 1)) : text;
    }),
  );

describe('rows that repeat a tools text read as each reads alone', () => {
  it('whatever the rows around it, a row reads as parsePythonJson reads it alone (random rows)', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 10 }), (rows) => {
        expect(readAll(rows)).toEqual(rows.map(alone));
      }),
      { numRuns: 400 },
    );
  });

  it('rows that carry the same tools get one frozen value; rows that differ get their own', () => {
    const read = repeatedToolsReader();
    const tools = TOOLS[0]!;
    const rows = [0, 1, 2, 3].map((i) => `{"messages":[{"role":"user","content":"q${i}"}],"tools":${tools}}`);
    const other = '{"messages":[],"tools":[{"name":"other"}]}';
    const [a, b, c] = [read(rows[0]!), read(rows[1]!), read(rows[2]!)] as Array<{ tools: unknown }>;
    expect(b.tools).toBe(c.tools);
    expect(Object.isFrozen(b.tools)).toBe(true);
    expect(pythonJsonDumps(a.tools)).toBe(pythonJsonDumps(b.tools));
    const d = read(other) as { tools: unknown };
    expect(d.tools).not.toBe(c.tools);
    expect(Object.isFrozen(d.tools)).toBe(false);
    // The earlier list is still known after another came between.
    expect((read(rows[3]!) as { tools: unknown }).tools).toBe(c.tools);
  });

  it('the tools text found first somewhere else in a row (a message\'s own "tools") does not mislead the next rows', () => {
    const tools = TOOLS[0]!;
    const rows = Array.from({ length: 6 }, (_, i) => `{"messages":[{"role":"user","content":"q${i}","meta":{"tools":${tools}}}],"tools":${i % 2 === 0 ? tools : '[{"name":"b"}]'}}`);
    expect(readAll(rows)).toEqual(rows.map(alone));
  });

  it('duplicate "tools" keys keep the last, as JSON.parse does', () => {
    const tools = TOOLS[0]!;
    const rows = [
      `{"tools":${tools},"messages":[]}`,
      `{"tools":${tools},"messages":[],"tools":[{"name":"later"}]}`,
      `{"tools":[{"name":"earlier"}],"messages":[],"tools":${tools}}`,
      `{"tools":${tools},"messages":[],"tools":${tools}}`,
    ];
    expect(readAll(rows)).toEqual(rows.map(alone));
    expect(readAll(rows)[1]).toContain('later');
  });
});

describe('chatfmt render over rows that share their tools', () => {
  const fixtures = readdirSync(join(repoRoot, 'fixtures', 'conversations'))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'conversations', name), 'utf8')) as Record<string, unknown>);
  const shared = fixtures.find((f) => Array.isArray(f.tools) && JSON.stringify(f.tools).length > 1000)!.tools;
  // Most rows carry one tool list (written compactly, as JSON.stringify writes it), every third its own (written as
  // json.dumps writes it); then the list spelt json.dumps's way, the list inside a message too, and rows only the
  // exact reader reads as jinja2 would (`1.0`, integers past 2^53): one with the list, one as its fixture file spells it.
  const rows = fixtures.map((fixture, i) => (i % 3 === 2 ? pythonJsonDumps(fixture) : JSON.stringify({ ...fixture, tools: shared })));
  rows.push(pythonJsonDumps(parsePythonJson(JSON.stringify({ messages: [{ role: 'user', content: 'spaced' }], tools: shared }))));
  rows.push(JSON.stringify({ messages: [{ role: 'user', content: 'nested', meta: { tools: shared } }], tools: shared }));
  rows.push(JSON.stringify({ messages: [{ role: 'user', content: 'last' }], tools: shared }));
  // The list with a number only the exact reader keeps (`1.0` reaches the template as a float).
  rows.push(JSON.stringify({ messages: [{ role: 'user', content: 'exact' }], tools: shared }).replace(/\}$/, ',"temperature":1.0}'));
  const numbers = readFileSync(join(repoRoot, 'fixtures', 'conversations', 'numbers_floats_bigints.json'), 'utf8');
  rows.push(numbers.replace(/\s*\n\s*/g, ' '));
  const file = tmp.write('shared-tools.jsonl', `${rows.join('\n')}\n`);

  async function render(args: string[]): Promise<{ code: number; lines: string[]; err: string }> {
    const output = join(tmp.path, `${Math.random().toString(36).slice(2)}.out.jsonl`);
    const io = memoryIO('', repoRoot);
    const code = await run(['render', '--now', '2025-01-15T12:00:00', '-o', output, ...args], io);
    return { code, lines: readFileSync(output, 'utf8').trimEnd().split('\n'), err: io.err() };
  }

  for (const family of Object.keys(families)) {
    it(`${family}: every row renders as it renders alone (--args auto and keep)`, async () => {
      for (const mode of ['auto', 'keep']) {
        const all = await render(['--family', family, '--args', mode, '--workers', '1', file]);
        const alone: string[] = [];
        for (const [i, text] of rows.entries()) {
          const one = await render(['--family', family, '--args', mode, tmp.write(`row-${family}-${mode}-${i}.jsonl`, `${text}\n`)]);
          alone.push(...one.lines);
        }
        // A row alone is on line 1: its error line names that line.
        const unplaced = (lines: string[]) => lines.map((line) => line.replace(/^\{"error":"line \d+: /, '{"error":"'));
        expect(unplaced(all.lines)).toEqual(unplaced(alone));
        expect(all.lines.filter((line) => line.startsWith('{"text":')).length).toBeGreaterThan(3);
      }
    });
  }
});
