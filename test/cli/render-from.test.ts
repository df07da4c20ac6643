import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliProcess } from '../helpers/cli-process.js';
import { repoRoot } from '../helpers/shared.js';

// Issue 16 §4: `render` given a ShareGPT file said only that "messages" was missing. It now names --from, and takes
// --from as convert does, rendering each row to the text convert writes for it.
const chatfmt = cliProcess();
const sharegpt = join(repoRoot, 'fixtures/datasets/valid/sharegpt.jsonl');

describe('render --from', () => {
  it('without --from, a ShareGPT row is refused with a hint naming --from sharegpt', async () => {
    const { code, out } = await chatfmt(['render', '--family', 'qwen3', sharegpt]);
    expect(code).toBe(1);
    const lines = out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { error: string });
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.error).toContain('use `--from sharegpt`');
  });

  it('a single ShareGPT conversation without --from is one stderr line with the hint, exit 2', async () => {
    const row = '{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}';
    const { code, err } = await chatfmt(['render', '--family', 'qwen3', '-'], { stdin: row });
    expect(code).toBe(2);
    expect(err).toMatch(/^chatfmt: .*use `--from sharegpt`\n$/);
  });

  it('with --from sharegpt, each row renders to the text convert --to writes for it', async () => {
    const rendered = await chatfmt(['render', '--family', 'qwen3', '--from', 'sharegpt', sharegpt]);
    expect(rendered.code).toBe(0);
    const converted = await chatfmt(['convert', sharegpt, '--from', 'sharegpt', '--to', 'qwen3']);
    expect(converted.code).toBe(0);
    const texts = (out: string) => out.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { text: string }).text);
    expect(texts(rendered.out)).toHaveLength(3);
    expect(texts(rendered.out)).toEqual(texts(converted.out));
  });

  it('a turn tag named like an Object.prototype member, a missing tag or one that is not a string is that row\'s error', async () => {
    // "constructor" found Object's constructor in the tag table: the turn vanished and the row rendered without it.
    const row = (turn: object) => JSON.stringify({ conversations: [{ from: 'human', value: 'hi' }, turn, { from: 'gpt', value: 'yo' }] });
    const stdin = [row({ from: 'constructor', value: 'x' }), row({ from: '__proto__', value: 'x' }), row({ value: 'x' }), row({ from: 5, value: 'x' })].join('\n');
    const { code, out } = await chatfmt(['render', '--family', 'qwen3', '--from', 'sharegpt', '-'], { stdin });
    expect(code).toBe(1);
    expect(out.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { error: string }).error)).toEqual([
      'line 1: not a sharegpt row: unknown turn tag "constructor" (at conversations[1].from)',
      'line 2: not a sharegpt row: unknown turn tag "__proto__" (at conversations[1].from)',
      'line 3: not a sharegpt row: a turn needs a "from" tag (at conversations[1].from)',
      'line 4: not a sharegpt row: a turn\'s "from" must be a string, not number (at conversations[1].from)',
    ]);
  });

  it('--input-format is the same option, and a row the importer refuses is that row\'s error', async () => {
    const rows = '{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}\n{"conversations": [{"from": "robot", "value": "hi"}]}\n';
    const { code, out } = await chatfmt(['render', '--family', 'qwen3', '--input-format', 'sharegpt', '-'], { stdin: rows });
    expect(code).toBe(1);
    const [first, second] = out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { text?: string; error?: string });
    expect(first!.text).toContain('<|im_start|>assistant\n');
    expect(second!.error).toMatch(/^line 2: not a sharegpt row: .*robot.* \(at conversations\[0\]\.from\)$/);
  });
});
