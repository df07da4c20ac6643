// Every family's parse fixtures (fixtures/parse/<family>/*), replayed a few characters per event through the gateway
// and the openai client: streamed = non-streamed = chatfmt's parse of the same text from the prompt's tail. The
// fixtures hold the hard cases: markers inside strings, malformed and truncated calls, unknown tools, open reasoning.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { familyIds, loadTemplate, parse, renderConversation, type Tool } from '../../src/index.js';
import { promptTail } from '../../src/parse/assistant-headers.js';
import { loadParseFixtures } from '../helpers/parse-fixtures.js';
import { fromCompletion, fromParse, fromStream } from './helpers/answers.js';
import { startHarness } from './helpers/harness.js';
import { pieces } from './helpers/replay-backend.js';

const fixtures = loadParseFixtures();
const kinds = ['llama.cpp', 'openai', 'ollama'] as const;
const messages = [{ role: 'user' as const, content: 'Go.' }];

/**
 * Some templates read `description` unguarded, and Hermes' tool-use template wants a list even when empty: fixtures
 * without tools are sent `tools: []`, which the gateway renders as sent.
 */
const described = (tools: Tool[] | undefined) => (tools ?? []).map((tool) => ({ ...tool, function: { description: '', ...(tool.function as object) } })) as Tool[];

describe.each(familyIds.map((family, index) => ({ family, kind: kinds[(index + 1) % kinds.length]! })))('$family fixtures via $kind', async ({ family, kind }) => {
  const h = await startHarness(family, kind);
  const template = loadTemplate({ family });
  const cases = fixtures.filter((fixture) => fixture.family === family);

  it(`replays all ${cases.length} cases`, async () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const fixture of cases) {
      const tools = described(fixture.tools);
      const params = { model: family, messages, tools: tools as OpenAI.Chat.Completions.ChatCompletionTool[] };
      h.backend.script({ pieces: pieces(fixture.completion, 3) });
      const whole = fromCompletion(await h.openai.chat.completions.create(params));
      h.backend.script({ pieces: pieces(fixture.completion, 1) });
      const { chunks: _, ...streamed } = await fromStream(await h.openai.chat.completions.create({ ...params, stream: true }));
      const rendered = renderConversation(template, { messages, tools }, { addGenerationPrompt: true }).text;
      expect(h.backend.received.at(-1)!.body.prompt).toBe(rendered);
      const expected = fromParse(parse(fixture.completion, { family, tools, prefix: promptTail(rendered, family) }));
      const finish = expected.calls.length > 0 ? 'tool_calls' : 'stop';
      expect(whole, fixture.name).toEqual({ ...expected, finish });
      expect(streamed, fixture.name).toEqual({ ...expected, finish });
    }
  });
});
