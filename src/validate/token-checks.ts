import { loadTokenizer, type ChatTokenizer } from '../convert/tokenizer.js';
import type { RenderResult } from '../render/index.js';
import { isChatfmtError } from '../errors.js';
import { makeIssue, type DatasetIssue } from '../readers/issues.js';

export interface TokenCheck {
  /** `spans` is only called when the row is over the limit (it may need extra renders). */
  check(rendered: RenderResult, spans: () => Array<[number, number]>, line: number): DatasetIssue[];
}

export async function createTokenCheck(dir: string, maxLength: number): Promise<TokenCheck> {
  const tokenizer: ChatTokenizer = await loadTokenizer(dir);
  return {
    check(rendered, spans, line) {
      let offsets: Array<[number, number]>;
      try {
        ({ offsets } = tokenizer.encode(rendered.text));
      } catch (error) {
        if (isChatfmtError(error) && error.code === 'TOKENIZER_TIMEOUT') return [makeIssue(line, 'TOKENS_TIMEOUT', '', error.message)];
        throw error;
      }
      if (offsets.length <= maxLength) return [];
      const issues = [makeIssue(line, 'TOKENS_OVER_LIMIT', '', `${offsets.length} tokens, over --max-length ${maxLength}: trainers truncate the end`)];
      // The first character a trainer drops: the start of token number maxLength.
      const cutAt = offsets[maxLength]![0];
      const cut = spans().filter(([, end]) => end > cutAt);
      if (cut.length > 0) {
        const [start] = cut[0]!;
        const how = start >= cutAt ? 'entirely' : 'partly';
        issues.push(makeIssue(line, 'TOKENS_ASSISTANT_TRUNCATED', '', `${cut.length} assistant span(s) lie past token ${maxLength} and are ${how} cut off: the model trains on ${how === 'entirely' ? 'none' : 'part'} of them`));
      }
      return issues;
    },
  };
}
