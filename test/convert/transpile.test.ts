import { describe, expect, it } from 'vitest';
import { familyIds, parse, transpile, type ParsedToolCall, type Tool } from '../../src/index.js';

const tools: Tool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather forecast for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'set_alarm',
      description: 'Set an alarm',
      parameters: {
        type: 'object',
        properties: { hour: { type: 'integer' }, loud: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } }, note: { type: 'string' } },
      },
    },
  },
];

// GLM-4.5 writes raw argument values; the schema types them (integer, boolean, array, and a string that looks like a number).
const glmCompletion =
  '<think>Two things to do.</think>\n' +
  '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n' +
  '<tool_call>set_alarm\n<arg_key>hour</arg_key>\n<arg_value>7</arg_value>\n<arg_key>loud</arg_key>\n<arg_value>true</arg_value>\n' +
  '<arg_key>tags</arg_key>\n<arg_value>["work", "early"]</arg_value>\n<arg_key>note</arg_key>\n<arg_value>42</arg_value>\n</tool_call>';

const expectedCalls = [
  { name: 'get_weather', arguments: { city: 'Paris', days: 3 } },
  { name: 'set_alarm', arguments: { hour: 7, loud: true, tags: ['work', 'early'], note: '42' } },
];

const asObjects = (calls: ParsedToolCall[]) => calls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) as unknown }));

describe('transpile a GLM-4.5 completion with two typed calls', () => {
  it('reads the source calls with their schema types', () => {
    const { message } = transpile(glmCompletion, { from: 'glm-4.5', to: 'qwen3', tools });
    expect(asObjects(message.tool_calls)).toEqual(expectedCalls);
    expect(message.reasoning_content).toBe('Two things to do.');
  });

  it.each(familyIds.filter((id) => id !== 'glm-4.5'))('to %s parses back to the same calls', (to) => {
    const result = transpile(glmCompletion, { from: 'glm-4.5', to, tools });
    // Parsed independently here, with the target's own default prefix, not the one transpile used.
    expect(asObjects(parse(result.text, { family: to, tools }).tool_calls)).toEqual(expectedCalls);
    expect(result.warnings.map((w) => w.code)).not.toContain('TRANSPILE_CALLS_CHANGED');
  });

  it('says so when the target drops the reasoning (hermes and qwen2.5 have none) and not when it keeps it', () => {
    for (const to of ['hermes', 'qwen2.5']) {
      const result = transpile(glmCompletion, { from: 'glm-4.5', to, tools });
      expect(result.warnings.map((w) => w.code)).toContain('TRANSPILE_REASONING_DROPPED');
      expect(result.text).not.toContain('Two things to do.');
    }
    const kept = transpile(glmCompletion, { from: 'glm-4.5', to: 'qwen3', tools });
    expect(kept.warnings).toEqual([]);
    expect(parse(kept.text, { family: 'qwen3', tools }).reasoning_content).toBe('Two things to do.');
  });

  it('chains llama-3 calls with "; " (its template writes one call per turn), and says so', () => {
    const result = transpile(glmCompletion, { from: 'glm-4.5', to: 'llama-3', tools });
    expect(result.warnings.map((w) => w.code)).toContain('TRANSPILE_CALLS_JOINED');
    expect(result.warnings.map((w) => w.code)).not.toContain('TRANSPILE_CALLS_CHANGED');
    expect(result.text).toMatch(/^\{"name": "[^"]+", "parameters": .*\}; \{"name": .*\}<\|eot_id\|>$/s);
    expect(result.text.match(/<\|eot_id\|>/g)).toHaveLength(1);
  });

  it('writes gpt-oss calls as consecutive messages, one call each, and says so', () => {
    const result = transpile(glmCompletion, { from: 'glm-4.5', to: 'gpt-oss', tools });
    expect(result.warnings.map((w) => w.code)).toEqual(['TRANSPILE_CALLS_SPLIT']);
    expect(result.text.split('<|call|>').filter(Boolean)).toHaveLength(2);
    expect(result.text).toContain('<|call|><|start|>assistant');
  });

  it('gives kimi-k2 calls its own id form', () => {
    const result = transpile(glmCompletion, { from: 'glm-4.5', to: 'kimi-k2', tools });
    expect(parse(result.text, { family: 'kimi-k2', tools }).tool_calls.map((c) => c.id)).toEqual(['functions.get_weather:0', 'functions.set_alarm:1']);
  });

  it('passes source diagnostics on as warnings', () => {
    const broken = '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris';
    const result = transpile(broken, { from: 'glm-4.5', to: 'qwen3', tools });
    expect(result.warnings.map((w) => w.code)).toContain('TRANSPILE_SOURCE_DIAGNOSTIC');
  });

  it('an empty or reasoning-only completion transpiles to every family', () => {
    // Hermes, Qwen2.5 and Mistral add to the content and raised on None; Seed-OSS writes nothing for an empty answer.
    for (const to of familyIds) {
      const empty = transpile('', { from: 'glm-4.5', to, tools });
      const back = parse(empty.text, { family: to, tools });
      expect(back.content ?? '', to).toBe('');
      expect(back.tool_calls, to).toEqual([]);
      const thought = transpile('<think>Nothing to add.</think>', { from: 'glm-4.5', to, tools });
      const dropped = thought.warnings.some((w) => w.code === 'TRANSPILE_REASONING_DROPPED');
      expect(thought.text.includes('Nothing to add.'), to).toBe(!dropped);
      expect(thought.warnings.filter((w) => w.code !== 'TRANSPILE_REASONING_DROPPED'), to).toEqual([]);
    }
  });

  it('rejects unknown families', () => {
    expect(() => transpile('x', { from: 'glm-4.5', to: 'llama-9' })).toThrow(/unknown family/);
  });
});
