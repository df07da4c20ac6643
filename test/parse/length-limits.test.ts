import { describe, expect, it } from 'vitest';
import { accumulateDeltas, parse } from '../../src/index.js';
import { codePointChunks, splitAt } from '../helpers/chunkings.js';
import { idGenerator, streamDeltas } from '../helpers/stream.js';

// Readers give up on a header, key or name past a length limit (harmony headers 256, tagged keys 512, JSON keys and
// names 4096 characters). Where they give up and how they read on must not depend on the chunking: a batch sees the
// text past the limit at once, a stream one character at a time reaches the limit first. Found by fuzzing mutated
// fixtures: each case below disagreed between batch and a one-character stream.

interface Case {
  name: string;
  family: string;
  completion: string;
}

const cases: Case[] = [];
// gpt-oss: a header over the limit whose channel word is followed by a body only after the limit (batch read the
// body, a stream salvaged the header as text at character 257).
for (const word of [245, 250, 300]) {
  cases.push({ name: `harmony channel word of ${word}, body after the limit`, family: 'gpt-oss', completion: `<|channel|>${'x'.repeat(word)} >` });
}
// GLM: a key whose close tag starts within the limit but ends past it (a stream called it unterminated while the
// close was still arriving).
for (const key of [504, 508, 512]) {
  cases.push({ name: `GLM key of ${key} characters`, family: 'glm-4.5', completion: `<tool_call>get_weather<arg_key>${'k'.repeat(key)}</arg_key>` });
}
cases.push({ name: 'MiniMax-M2 key of 512 characters', family: 'minimax-m2', completion: `<minimax:tool_call>\n<invoke name="f">\n<parameter name="${'k'.repeat(512)}">1</parameter>\n</invoke>\n</minimax:tool_call>` });
// Hermes JSON: an overlong key failed at the end of whatever the buffer held (so the text after it was read again
// from a chunking-dependent place, stop strings in it dropped or kept), a closed one was taken whole in one chunk
// only, and trailing white space moved the failure to the end of the key.
cases.push({ name: 'JSON key of stop strings past the cap', family: 'hermes', completion: `<tool_call>{"${'<|im_end|>'.repeat(1000)}` });
cases.push({ name: 'closed JSON key past the cap', family: 'hermes', completion: `<tool_call>{"${'<|im_end|>'.repeat(1000)}"}</tool_call>` });
cases.push({ name: 'closed JSON name past the cap', family: 'qwen3', completion: `<tool_call>{"name": "${'n'.repeat(5000)}", "arguments": {}}</tool_call>` });
for (const tail of ['\n', '}}\n']) {
  cases.push({ name: `unterminated JSON key past the cap, then ${JSON.stringify(tail)}`, family: 'qwen3', completion: `<tool_call>{"${'a'.repeat(4098)}${tail}` });
}

describe('length limits decide the same whatever the chunking', () => {
  for (const { name, family, completion } of cases) {
    it(name, () => {
      const batch = parse(completion, { family, idGenerator });
      const thirds = splitAt(completion, [Math.floor(completion.length / 3), Math.floor((2 * completion.length) / 3)]);
      for (const chunks of [codePointChunks(completion), thirds]) {
        expect(accumulateDeltas(streamDeltas(chunks, { family }))).toEqual(batch);
      }
    });
  }
});
