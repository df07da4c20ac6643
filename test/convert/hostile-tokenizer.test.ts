import { spawnSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { createTokenizer, loadTokenizer, toTrainingRecord, validateDataset } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';
import { collect } from '../validate/helpers.js';
import { tinyChatTokenizerJson } from './tiny-tokenizer.js';

const tmp = tempDir();

// Issue 17 item 3: a tokenizer.json whose pre-tokenizer regex backtracks exponentially on row text.

function hostileTokenizerJson(): object {
  const json = tinyChatTokenizerJson() as Record<string, unknown>;
  // `(a+)+b` on a run of a's with no b doubles its work per character: 2^40 steps on the row below.
  json.pre_tokenizer = {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: '(a+)+b' }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    ],
  };
  return json;
}

const conversation = (content: string) => ({ messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content }] });
const hostileText = `${'a'.repeat(40)}!`;

describe('a hostile tokenizer', () => {
  it('convert: the row whose text makes the regex backtrack is a TOKENS_TIMEOUT issue; the rows around it tokenize', () => {
    const tokenizer = createTokenizer(hostileTokenizerJson(), {}, 'hostile', { budgetMs: 1_000 });
    const results = ['hello world', hostileText, 'hello'].map((content, k) =>
      toTrainingRecord(conversation(content), { family: 'qwen3', tokenizer, line: k + 1, checkPrefix: false }),
    );
    expect(results.map((result) => result.issues.map((issue) => [issue.line, issue.code]))).toEqual([[], [[2, 'TOKENS_TIMEOUT']], []]);
    expect(results[0]!.record?.input_ids?.length).toBeGreaterThan(0);
    expect(results[2]!.record?.input_ids?.length).toBeGreaterThan(0);
    expect(results[1]!.record).toBeNull();
  });

  it('validate --tokenizer: the same row is one TOKENS_TIMEOUT issue under the default budget', async () => {
    tmp.write('tok/tokenizer.json', JSON.stringify(hostileTokenizerJson()));
    const rows = [conversation('hello world'), conversation(hostileText), conversation('hello')].map((row) => JSON.stringify(row));
    async function* lines(): AsyncGenerator<string> {
      yield* rows;
    }
    const issues = await collect(validateDataset(lines(), { family: 'qwen3', tokenizer: `${tmp.path}/tok`, maxLength: 4096, roundTrip: false }));
    expect(issues.map((issue) => [issue.line, issue.code])).toEqual([[2, 'TOKENS_TIMEOUT']]);
  });
});

describe('tokenizer files that are not regular files', () => {
  const hasFifo = spawnSync('mkfifo', ['--version']).status === 0;
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: { code?: string; message: string }) => ({ code: error.code, message: error.message }));

  // Before: readFile waited for a writer forever (the run hung before reading a row).
  it.skipIf(!hasFifo)('a FIFO as tokenizer.json or tokenizer_config.json is refused at once', async () => {
    tmp.write('fifo-tok/.keep', '');
    expect(spawnSync('mkfifo', [`${tmp.path}/fifo-tok/tokenizer.json`]).status).toBe(0);
    expect(await failure(loadTokenizer(`${tmp.path}/fifo-tok`))).toEqual({
      code: 'INPUT_INVALID',
      message: `cannot read ${tmp.path}/fifo-tok/tokenizer.json: not a regular file (a FIFO)`,
    });
    tmp.write('fifo-config/tokenizer.json', JSON.stringify(tinyChatTokenizerJson()));
    expect(spawnSync('mkfifo', [`${tmp.path}/fifo-config/tokenizer_config.json`]).status).toBe(0);
    expect((await failure(loadTokenizer(`${tmp.path}/fifo-config`)))?.message).toBe(`cannot read ${tmp.path}/fifo-config/tokenizer_config.json: not a regular file (a FIFO)`);
  });

  it.skipIf(!hasFifo)('convert --tokenizer with a FIFO is one line and exit 2', async () => {
    const io = memoryIO(JSON.stringify(conversation('hi')) + '\n', tmp.path);
    const code = await run(['convert', '--from', 'openai', '--to', 'qwen3', '--tokenizer', 'fifo-tok', '--no-progress', '-'], io);
    expect([code, io.err()]).toEqual([2, `chatfmt: cannot read ${tmp.path}/fifo-tok/tokenizer.json: not a regular file (a FIFO)\n`]);
  });

  // Before: /dev/zero was read until V8's string limit (~512 MB held) and then "Invalid string length".
  it.skipIf(!existsSync('/dev/zero'))('a symlink to a device is refused without reading it', async () => {
    tmp.write('zero-tok/.keep', '');
    symlinkSync('/dev/zero', `${tmp.path}/zero-tok/tokenizer.json`);
    expect((await failure(loadTokenizer(`${tmp.path}/zero-tok`)))?.message).toBe(`cannot read ${tmp.path}/zero-tok/tokenizer.json: not a regular file (a device)`);
  });
});
