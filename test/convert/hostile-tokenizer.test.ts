import { describe, expect, it } from 'vitest';
import { createTokenizer, toTrainingRecord, validateDataset } from '../../src/index.js';
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
