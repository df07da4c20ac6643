// Prompt parts a raw completion endpoint cannot take, in the history of a generateText call against the replay
// backend: an assistant's file and a tool result's media are left out of the prompt with an `unsupported` warning
// each, never silently; the text around them is rendered.
import { generateText, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createChatfmt } from '../../src/ai-sdk/index.js';
import { replayBackend } from './helpers.js';

describe('history the template cannot show', async () => {
  const backend = await replayBackend();
  const model = createChatfmt({ baseURL: backend.url, backendKind: 'llama.cpp', family: 'qwen3' })('m');

  it('an assistant file and a tool result image are each left out with a warning', async () => {
    backend.script({ pieces: ['Done.'] });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Draw it, then look it up.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Here it is.' }, { type: 'file', data: 'AAAA', mediaType: 'image/png' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'content', value: [{ type: 'text', text: 'A chart:' }, { type: 'image-data', data: 'AAAA', mediaType: 'image/png' }] } }] },
    ];
    const result = await generateText({ model, messages });
    expect(result.text).toBe('Done.');
    const left = result.warnings?.filter((warning) => warning.type === 'unsupported' && /left out of the prompt/.test(warning.details ?? '')) ?? [];
    expect(left.map((warning) => (warning as { details: string }).details)).toEqual([
      expect.stringContaining('prompt[1].content[1]'),
      expect.stringContaining('prompt[2].content[0].output.value[1]'),
    ]);
    const prompt = String(backend.received.at(-1)!.body.prompt);
    expect(prompt).toContain('Here it is.');
    expect(prompt).toContain('A chart:');
  });
});
