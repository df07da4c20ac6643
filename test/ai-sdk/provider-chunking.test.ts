// The provider over recorded model outputs (fixtures/parse/<family>/*) replayed by a loopback backend under seeded
// random chunkings and one character per event: the stream keeps the part lifecycle, and every chunking, streamed or
// generated, reads the same as chatfmt's batch parse of the whole text from the prompt's tail.
import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createChatfmt } from '../../src/ai-sdk/index.js';
import { loadTemplate, parse, renderConversation, type FamilyId, type FunctionTool, type Tool } from '../../src/index.js';
import { promptTail } from '../../src/parse/assistant-headers.js';
import { loadParseFixtures } from '../helpers/parse-fixtures.js';
import { answerOf, expectLifecycle, randomPieces, readAll, replayBackend, type Answer } from './helpers.js';

const FAMILIES = ['hermes', 'qwen3', 'qwen3-coder', 'gpt-oss', 'deepseek-v3.1', 'mistral', 'kimi-k2'];
const SEEDS = 4;
const fixtures = loadParseFixtures().filter((fixture) => FAMILIES.includes(fixture.family));
const kinds = ['llama.cpp', 'openai', 'ollama'] as const;

/** Some templates read `description` unguarded: every tool gets one (as the gateway's fixture replay does). */
function described(tools: Tool[] | undefined): FunctionTool[] {
  return (tools ?? []).map((tool) => ({ ...tool, function: { description: '', ...(tool as FunctionTool).function } })) as FunctionTool[];
}

function asSdkTools(tools: FunctionTool[]): LanguageModelV4FunctionTool[] {
  return tools.map((tool) => ({ type: 'function', name: tool.function.name, description: tool.function.description ?? '', inputSchema: (tool.function.parameters ?? { type: 'object' }) as never }));
}

function batchAnswer(family: string, completion: string, tools: FunctionTool[]): Answer {
  const messages = [{ role: 'user', content: 'Go.' }];
  const rendered = renderConversation(loadTemplate({ family }), { messages, tools }, { addGenerationPrompt: true }).text;
  const parsed = parse(completion, { family, tools, prefix: promptTail(rendered, family as FamilyId) });
  return {
    text: parsed.content ?? '',
    reasoning: parsed.reasoning_content ?? '',
    calls: parsed.tool_calls.map((call) => ({ name: call.function.name, input: JSON.parse(call.function.arguments || '{}') })),
  };
}

describe.each(FAMILIES.map((family, index) => ({ family, kind: kinds[index % kinds.length]! })))('$family recorded outputs via $kind', async ({ family, kind }) => {
  const backend = await replayBackend();
  const model = createChatfmt({ baseURL: kind === 'openai' ? `${backend.url}/v1` : backend.url, backendKind: kind, family })('replayed');
  const cases = fixtures.filter((fixture) => fixture.family === family);

  it(`streams and generates all ${cases.length} cases the same under every chunking`, async () => {
    expect(cases.length).toBeGreaterThan(5);
    for (const fixture of cases) {
      const tools = described(fixture.tools);
      const options: LanguageModelV4CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'Go.' }] }], tools: asSdkTools(tools) };
      const expected = batchAnswer(family, fixture.completion, tools);
      const expectedFinish = expected.calls.length > 0 ? 'tool-calls' : 'stop';
      const chunkings = [Array.from(fixture.completion), ...Array.from({ length: SEEDS }, (_, seed) => randomPieces(fixture.completion, seed * 7919 + fixture.name.length))];
      for (const [at, pieces] of chunkings.entries()) {
        const label = `${fixture.name}, chunking ${at}`;
        backend.script({ pieces });
        const parts = await readAll((await model.doStream(options)).stream);
        expectLifecycle(parts);
        expect(answerOf(parts), label).toEqual(expected);
        const finish = parts.find((part) => part.type === 'finish');
        expect(finish?.type === 'finish' && finish.finishReason.unified, label).toBe(expectedFinish);
      }
      backend.script({ pieces: randomPieces(fixture.completion, 1) });
      const generated = await model.doGenerate(options);
      expect(answerOf(generated.content), `${fixture.name}, generated`).toEqual(expected);
      expect(generated.finishReason.unified).toBe(expectedFinish);
    }
  });
});
