import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deriveParser, isChatfmtError, loadTemplate, parse, parserForTemplate } from '../../src/index.js';
import { hasShared, sharedDir } from '../helpers/shared.js';

// Issue 9 part 3: parse with a template of unknown family, by its family when it renders like one, else with a
// grammar derived from probe renders, else a clear error.
const fixture = (name: string) => loadTemplate({ template: new URL(`../../fixtures/templates/${name}`, import.meta.url).pathname });
const fixtureAt = (path: string) => loadTemplate({ template: path });
const tools = [
  { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } },
];

describe('parserForTemplate', () => {
  it('names the family (or variant) of a template that renders like one', () => {
    expect(parserForTemplate(fixture('chatml-thinking-prefill.jinja'))).toMatchObject({ family: 'qwen3-thinking', method: 'render-equivalence' });
  });

  it('derives JSON-object calls in unknown tags, with reasoning, and says so in a diagnostic', () => {
    const found = parserForTemplate(fixture('function-call-tags.jinja'));
    expect(found.method).toBe('derived');
    expect(found.evidence.join('\n')).toContain('<function_call> … </function_call>');
    expect(found.diagnostic?.code).toBe('PARSE_GRAMMAR_DERIVED');
    const completion =
      '<reflect>Two days of Paris weather.</reflect>Checking.<function_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}</function_call><|end|>';
    const message = parse(completion, { family: found.family, prefix: found.prefix, tools });
    expect(message.reasoning_content).toBe('Two days of Paris weather.');
    expect(message.content).toBe('Checking.');
    expect(message.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([['get_weather', { city: 'Paris', days: 2 }]]);
  });

  it('derives NAME + separator + JSON calls inside a section, parallel calls included', () => {
    const found = parserForTemplate(fixture('invoke-separator.jinja'));
    expect(found.method).toBe('derived');
    const completion = 'On it.[[calls]][[call]]get_weather::{"city": "Oslo"}[[/call]][[call]]get_weather::{"city": "Rome", "days": 3}[[/call]][[/calls]]';
    const message = parse(completion, { family: found.family, prefix: found.prefix, tools });
    expect(message.content).toBe('On it.');
    expect(message.tool_calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ city: 'Oslo' }, { city: 'Rome', days: 3 }]);
  });

  it('fails with one clear error naming what was tried when a template has no call syntax', () => {
    let error: unknown;
    try {
      parserForTemplate(fixture('plain-chat.jinja'));
    } catch (caught) {
      error = caught;
    }
    expect(isChatfmtError(error) && error.code).toBe('TEMPLATE_NO_PARSER');
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    for (const tried of ['response_template', 'json-object-with-name', 'function-tag-parameters', 'arg-key-value', 'name-then-json-arguments']) expect(message).toContain(tried);
  });
});

describe.skipIf(!hasShared)('deriveParser on official templates', () => {
  // Each of these is also found by render-equivalence; deriving must still find a grammar that parses every probe back.
  const official = [
    ['hermes/NousResearch-Hermes-3-Llama-3.1-70B-tool_use.jinja', 'json-object-with-name'],
    ['qwen2.5/Qwen-Qwen2.5-7B-Instruct.jinja', 'json-object-with-name'],
    ['qwen3/Qwen-Qwen3-0.6B.jinja', 'json-object-with-name'],
    ['qwen3-coder/Qwen-Qwen3-Coder-30B-A3B-Instruct.jinja', 'function-tag-parameters'],
    ['seed-oss/ByteDance-Seed-Seed-OSS-36B-Instruct.jinja', 'function-tag-parameters'],
    ['glm/zai-org-GLM-4.6.jinja', 'arg-key-value'],
    ['deepseek/deepseek-ai-DeepSeek-V3.1.jinja', 'name-then-json-arguments'],
  ] as const;
  for (const [file, codec] of official) {
    it(file, () => {
      const derived = deriveParser(loadTemplate({ template: join(sharedDir, 'templates', 'official', file) }));
      expect('parser' in derived ? derived.codec : derived.tried).toBe(codec);
    });
  }
});

describe.skipIf(!hasShared)('parserForTemplate on every family\'s official template', () => {
  it('gives the family, so `parse --template` needs no --family', async () => {
    const { familyIds, familyInfo } = await import('../../src/index.js');
    for (const id of familyIds) {
      const found = parserForTemplate(loadTemplate({ template: join(sharedDir, 'templates', 'official', familyInfo[id].officialTemplate) }));
      expect(found, id).toMatchObject({ family: id, method: 'render-equivalence' });
    }
  });
});

describe.skipIf(!hasShared)('parserForTemplate on the Llama 3 templates', () => {
  // Before llama-3 was a family these derived a JSON-object grammar; now both resolve to the family's parser.
  for (const file of ['meta-llama-Llama-3.3-70B-Instruct.jinja', 'meta-llama-Llama-3.2-3B-Instruct.jinja']) {
    it(file, () => {
      const found = parserForTemplate(loadTemplate({ template: join(sharedDir, 'templates', 'official', 'llama', file) }));
      expect(found).toMatchObject({ family: 'llama-3', method: 'render-equivalence' });
      const completion = '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "days": 2}}<|eom_id|>';
      const message = parse(completion, { family: found.family, prefix: found.prefix ?? '', tools });
      expect(message.content).toBeNull();
      expect(message.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([['get_weather', { city: 'Paris', days: 2 }]]);
    });
  }
});

describe.skipIf(!hasShared)('parserForTemplate on the older Gemma 4 revisions', () => {
  it('verifies gemma-4 by reading the probe renders back, although the template writes the probe keys sorted', () => {
    for (const revision of ['launch', '2026-04']) {
      const found = parserForTemplate(loadTemplate({ template: join(sharedDir, 'templates', 'official', 'gemma-4', `google-gemma-4-31B-it.${revision}.jinja`) }));
      expect(found, revision).toMatchObject({ family: 'gemma-4', method: 'render-equivalence' });
      expect(found.evidence, revision).toContain('the gemma-4 parser reads the probe renders back');
    }
  });
});

describe.skipIf(!hasShared)('parserForTemplate on weak evidence', () => {
  // These render like their family on few probes only: one needs a parameter description the probe tool lacks
  // (gpt-oss launch), one never writes tool calls (Kimi-K2's first template), one is refused by the sandbox on most
  // probes (list.append). Each still belongs to its family; the parse carries a warning saying how weak the evidence is.
  const cases = [
    ['gpt-oss/openai-gpt-oss-20b-initial-2025-08-04.jinja', 'gpt-oss', '<|channel|>final<|message|>Hi.<|return|>', 'Hi.'],
    ['kimi-k2/moonshotai-Kimi-K2-Instruct-initial.jinja', 'kimi-k2', 'Hi.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>', 'Hi.'],
    ['kimi-k2/Kimi-K2-Instruct.ik_llama.jinja', 'kimi-k2', 'Hi.', 'Hi.'],
  ] as const;
  for (const [file, family, completion, content] of cases) {
    it(file, () => {
      const found = parserForTemplate(loadTemplate({ template: join(sharedDir, 'templates', 'official', file) }));
      expect(found).toMatchObject({ family, diagnostic: { code: 'PARSE_FAMILY_UNVERIFIED', severity: 'warning' } });
      expect(found.diagnostic!.message).not.toContain('\n');
      const message = parse(completion, { family: found.family, prefix: found.prefix, tools });
      expect(message.content).toBe(content);
    });
  }
});

describe('parserForTemplate, call shapes of real templates (our own templates in their shapes)', () => {
  it('derives a JSON list of calls inside tags, parallel calls included (Nemotron)', () => {
    const found = parserForTemplate(fixtureAt(new URL('./templates/toolcall-list.jinja', import.meta.url).pathname));
    expect(found.method).toBe('derived');
    expect(found.evidence[0]).toBe('calls are <TOOLCALL> … </TOOLCALL> with json-list-of-calls arguments');
    const completion = 'Two cities.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_weather", "arguments": {"city": "Rome", "days": 3}}]</TOOLCALL>';
    const message = parse(completion, { family: found.family, prefix: found.prefix, tools });
    expect(message.content).toBe('Two cities.');
    expect(message.tool_calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ city: 'Oslo' }, { city: 'Rome', days: 3 }]);
  });

  it('derives a Command-R-style action list of {"tool_name", "parameters"} objects in a fenced block', () => {
    const found = parserForTemplate(fixtureAt(new URL('./templates/action-list.jinja', import.meta.url).pathname));
    expect(found.method).toBe('derived');
    expect(found.evidence[0]).toContain('with json-list-of-calls arguments');
    const completion = 'Action: ```json\n[\n    {"tool_name": "get_weather", "parameters": {"city": "Oslo"}},\n    {"tool_name": "get_weather", "parameters": {"city": "Rome", "days": 3}}\n]\n```<|END_OF_TURN_TOKEN|>';
    const message = parse(completion, { family: found.family, prefix: found.prefix, tools });
    expect(message.content ?? '').toBe('');
    expect(message.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['get_weather', { city: 'Oslo' }],
      ['get_weather', { city: 'Rome', days: 3 }],
    ]);
  });
});
