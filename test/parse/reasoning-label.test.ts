// Grammar.reasoningLabel, as Gemma 4 uses it: `<|channel>thought⏎` opens reasoning, and `thought⏎` names the channel.
import { describe, expect, it } from 'vitest';
import { createStreamParser, parse } from '../../src/index.js';
import { reconstruct } from '../helpers/reconstruct.js';
import { idGenerator, streamDeltas } from '../helpers/stream.js';

const family = 'gemma-4';

describe('reasoning channel label', () => {
  it('drops the whole label once; a second one, or a word that starts like it, is reasoning', () => {
    expect(parse('<|channel>thought\nthought\nfoo<channel|>A', { family })).toMatchObject({ reasoning_content: 'thought\nfoo', content: 'A' });
    expect(parse('<|channel>thoughtful<channel|>A', { family })).toMatchObject({ reasoning_content: 'thoughtful', content: 'A' });
    expect(parse('<|channel>thou', { family })).toMatchObject({ reasoning_content: 'thou', content: null });
  });

  it('holds a possible label at a chunk end, and streaming equals batch at every split', () => {
    const text = '<|channel><|channel>thought\nthou shalt<channel|>Yes.';
    const batch = parse(text, { family, idGenerator });
    expect(batch).toMatchObject({ reasoning_content: 'thou shalt', content: 'Yes.' });
    for (let cut = 1; cut < text.length; cut++) {
      expect(reconstruct(streamDeltas([text.slice(0, cut), text.slice(cut)], { family })), `cut at ${cut}`).toEqual(batch);
    }
    const parser = createStreamParser({ family, idGenerator });
    expect(parser.push('<|channel>thou')).toEqual([]);
  });

  it('a model repeating the opener endlessly neither throws nor keeps the markers', () => {
    const text = '<|channel>'.repeat(200_000) + 'x<channel|>y';
    expect(parse(text, { family })).toMatchObject({ reasoning_content: 'x', content: 'y' });
    // One push holding every opener at once.
    expect(reconstruct(streamDeltas([text], { family }))).toMatchObject({ reasoning_content: 'x', content: 'y' });
  });
});
