import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { render } from '../../src/index.js';

// Issue 10 item 3: error messages repeated their context ("gpt-oss: gpt-oss:", "line 3: line 3:").
describe('error context is said once', () => {
  it('a template that names itself in raise_exception is not named twice', () => {
    expect(() => render({ family: 'hermes', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'set' } } } } }] })).toThrow(
      /^hermes: unsupported JSON-schema type "set"/,
    );
    try {
      render({ family: 'hermes', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'set' } } } } }] });
    } catch (error) {
      expect((error as Error).message).not.toMatch(/hermes: hermes:/);
    }
  });

  it('a bad JSONL line is named once', async () => {
    const io = memoryIO('{"messages": [{"role": "user", "content": "hi"}]}\n{not json\n');
    expect(await run(['render', '--family', 'qwen3', '-'], io)).toBe(1);
    const lines = io.out().trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[1].error).toMatch(/^line 2: not valid JSON/);
    expect(lines[1].error).not.toMatch(/line 2: line 2/);
  });
});
