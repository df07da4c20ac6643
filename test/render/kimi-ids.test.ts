import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { compileTemplate, render, toTrainingRecord, type Conversation } from '../../src/index.js';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// Kimi-K2 writes call ids into its syntax (`functions.NAME:IDX`): render --family kimi-k2 rewrites OpenAI ids as
// convert does, says so, and --args keep still renders exactly what the template makes of the ids as given.
const tmp = tempDir();
const conversation: Conversation = {
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_abc', content: 'sunny' },
    { role: 'assistant', content: 'Sunny.' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
};
const input = tmp.write('kimi.json', JSON.stringify(conversation));

async function cli(argv: string[]) {
  const io = memoryIO();
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('render --family kimi-k2 and call ids', () => {
  it('rewrites ids (calls and the results pointing at them) to the text convert trains on, with a warning', async () => {
    const result = await cli(['render', '--family', 'kimi-k2', input]);
    expect(result.code).toBe(0);
    expect(result.out).toContain('functions.get_weather:0');
    expect(result.out).not.toContain('call_abc');
    expect(result.out).toBe(toTrainingRecord(conversation, { family: 'kimi-k2', checkPrefix: false }).record!.text);
    expect(result.err).toMatch(/^chatfmt: warning: CALL_IDS_REWRITTEN: at messages\[1\]\.tool_calls\[0\]\.id: kimi-k2 spells call ids into its syntax: id "call_abc" is written as functions\.get_weather:0; --args keep renders the ids as given\n$/);
  });

  it('the library reports the same rewrite', () => {
    const { text, warnings } = render({ family: 'kimi-k2', ...conversation });
    expect(text).toContain('functions.get_weather:0');
    expect(warnings.filter((w) => w.code === 'CALL_IDS_REWRITTEN').map((w) => w.path)).toEqual(['messages[1].tool_calls[0].id']);
  });

  it('--args keep renders byte-identically to the template on the ids as given', async () => {
    const keep = await cli(['render', '--family', 'kimi-k2', '--args', 'keep', input]);
    expect(keep.code).toBe(0);
    expect(keep.err).toBe('');
    expect(keep.out).toContain('call_abc');
    const source = readFileSync(join(repoRoot, 'templates', 'kimi-k2.jinja'), 'utf8');
    const direct = compileTemplate(source).render({ ...conversation, bos_token: '', eos_token: '', add_generation_prompt: false });
    expect(keep.out).toBe(direct.text);
  });

  it('ids already in Kimi form are kept, silently', async () => {
    const kimi = JSON.stringify(conversation).replaceAll('call_abc', 'functions.get_weather:0');
    const result = await cli(['render', '--family', 'kimi-k2', tmp.write('kimi-ids.json', kimi)]);
    expect(result.err).toBe('');
    expect(result.out).toContain('functions.get_weather:0');
  });

  it('a batch says it once, with the count and the first place', async () => {
    const lines = tmp.write('kimi.jsonl', `${JSON.stringify(conversation)}\n${JSON.stringify(conversation)}\n`);
    const result = await cli(['render', '--family', 'kimi-k2', lines]);
    expect(result.code).toBe(0);
    expect(result.err).toMatch(/^chatfmt: warning: CALL_IDS_REWRITTEN: 2 call id\(s\) in 2 conversation\(s\) rewritten \(first: line 1, messages\[1\]\.tool_calls\[0\]\.id: [^\n]+\n$/);
  });
});
