import { describe, expect, it } from 'vitest';
import { detectFamily, loadTemplate, parse, render } from '../../src/index.js';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';

// Issue 10 item 6: QwQ and Qwen3-Thinking-2507 pre-fill `<think>\n` after the assistant header, so the completion
// starts inside reasoning. As plain qwen3 aliases they parsed reasoning and a literal `</think>` into content.
const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
const completion = 'The user wants Paris.\n</think>\n\nIt is sunny in Paris.';

describe('thinking-prefilled variant (qwen3-thinking, qwq)', () => {
  it('renders the Qwen3 prompt with the assistant turn opened by <think>', () => {
    const plain = render({ family: 'qwen3', messages, addGenerationPrompt: true }).text;
    for (const name of ['qwen3-thinking', 'qwq', 'QwQ-32B']) {
      expect(render({ family: name, messages, addGenerationPrompt: true }).text).toBe(`${plain}<think>\n`);
    }
    // Without a generation prompt there is nothing to pre-fill.
    expect(render({ family: 'qwq', messages }).text).toBe(render({ family: 'qwen3', messages }).text);
  });

  it('parses a completion that starts inside reasoning', () => {
    for (const family of ['qwen3-thinking', 'qwq']) {
      const message = parse(completion, { family });
      expect(message.reasoning_content).toBe('The user wants Paris.');
      expect(message.content).toBe('It is sunny in Paris.');
    }
  });

  it('detects a thinking-prefilled ChatML template as the variant, not as another family', () => {
    const template = loadTemplate({ template: new URL('../../fixtures/templates/chatml-thinking-prefill.jinja', import.meta.url).pathname });
    const [best] = detectFamily(template);
    expect(best).toMatchObject({ family: 'qwen3', variant: 'qwen3-thinking', method: 'render-equivalence' });
  });

  it('is reachable from the CLI by its alias', async () => {
    const io = memoryIO(completion, process.cwd());
    expect(await run(['parse', '--family', 'qwq'], io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ reasoning_content: 'The user wants Paris.', content: 'It is sunny in Paris.' });
  });
});
