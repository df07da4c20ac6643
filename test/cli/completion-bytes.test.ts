import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

// Issue 17: batch parse refused a completion cut inside a UTF-8 character while --stream accepted it. Both now decode
// the same way: bytes that are not UTF-8 become U+FFFD (a completion cut at max_tokens can end mid-character).
async function parseBytes(argv: string[], chunks: Buffer[]) {
  const io = memoryIO();
  io.stdin = Readable.from(chunks);
  const code = await run(['parse', '--family', 'qwen3', ...argv], io);
  return { code, out: io.out(), err: io.err() };
}

/** The message a --stream run amounts to: its content and reasoning deltas joined. */
function fromDeltas(out: string): { content: string; reasoning: string } {
  let content = '';
  let reasoning = '';
  for (const line of out.trim().split('\n')) {
    const delta = JSON.parse(line) as { content?: string; reasoning_content?: string };
    content += delta.content ?? '';
    reasoning += delta.reasoning_content ?? '';
  }
  return { content, reasoning };
}

const cases: Array<[string, Buffer[]]> = [
  // "Hi 你" cut after two of its three bytes.
  ['cut at the end', [Buffer.concat([Buffer.from('Hi '), Buffer.from('你').subarray(0, 2)])]],
  // A stray continuation byte in the middle, and a character split across two reads.
  ['bad byte inside, character split across reads', [Buffer.from([0x3c, 0x74, 0x68, 0x69, 0x6e, 0x6b, 0x3e, 0x61, 0x80, 0x62]), Buffer.from('</think>ok '), Buffer.from('é').subarray(0, 1), Buffer.concat([Buffer.from('é').subarray(1), Buffer.from('!')])]],
];

describe('a completion that is not valid UTF-8', () => {
  for (const [name, chunks] of cases) {
    it(`${name}: batch and --stream agree`, async () => {
      const batch = await parseBytes([], chunks);
      expect([batch.code, batch.err]).toEqual([0, '']);
      const message = JSON.parse(batch.out) as { content: string; reasoning_content: string | null };
      const streamed = await parseBytes(['--stream'], chunks);
      expect([streamed.code, streamed.err]).toEqual([0, '']);
      expect(fromDeltas(streamed.out)).toEqual({ content: message.content, reasoning: message.reasoning_content ?? '' });
    });
  }

  it('the cut character becomes one U+FFFD', async () => {
    const batch = await parseBytes([], cases[0]![1]);
    expect(JSON.parse(batch.out).content).toBe('Hi \ufffd');
    const second = JSON.parse((await parseBytes([], cases[1]![1])).out);
    expect([second.reasoning_content, second.content]).toEqual(['a\ufffdb', 'ok é!']);
  });
});
