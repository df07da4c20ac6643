import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accumulateDeltas, ChatfmtError, createStreamParser, parse, toOpenAIMessage, type Delta, type Tool } from '../../src/index.js';
import { codePointChunks } from '../helpers/chunkings.js';
import { hasShared, sharedDir } from '../helpers/shared.js';

// transformers' recorded parses (../shared/response-templates) through chatfmt's own entry points: parse() and
// createStreamParser() with {responseTemplate}, in dict mode (must equal transformers) and in OpenAI mode (must never
// throw on model output, and stream = batch).

interface Vector {
  id: string;
  template: string;
  input: string;
  prefix?: string | null;
  tools?: Tool[];
  expected: Record<string, unknown> | null;
  expected_error?: { type: string; raised_by: 'load' | 'feed' | 'finalize' };
  streaming?: { chunks: string[] };
}

const root = join(sharedDir, 'response-templates');
const vectors: Vector[] = hasShared && existsSync(join(root, 'vectors.jsonl'))
  ? readFileSync(join(root, 'vectors.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Vector)
  : [];
const templateOf = (name: string) => JSON.parse(readFileSync(join(root, 'templates', `${name}.json`), 'utf8')) as Record<string, unknown>;
const idGenerator = ({ index }: { index: number }) => `call_${index}`;

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe.skipIf(vectors.length === 0)('response-template vectors through parse({responseTemplate})', () => {
  it.each(vectors.map((v) => [v.id, v] as const))('%s', (_id, vector) => {
    const responseTemplate = templateOf(vector.template);
    const options = { responseTemplate, ...(typeof vector.prefix === 'string' ? { prefix: vector.prefix } : {}), tools: vector.tools ?? null };
    // Dict mode: transformers' dict, key order included, or its exception with the Python type.
    const error = thrown(() => parse(vector.input, options));
    if (vector.expected_error) {
      expect(error).toBeInstanceOf(ChatfmtError);
      expect((error as { pythonType?: string }).pythonType).toBe(vector.expected_error.type);
    } else {
      expect(error).toBeUndefined();
      const dict = parse(vector.input, options);
      expect(dict).toEqual(vector.expected);
      expect(JSON.stringify(dict)).toBe(JSON.stringify(vector.expected));
    }

    // OpenAI mode: a template error still throws; the model's output never does.
    if (vector.expected_error?.raised_by === 'load' || vector.prefix === null || vector.prefix === undefined) {
      expect(() => parse(vector.input, { ...options, output: 'openai' })).toThrow(ChatfmtError);
      return;
    }
    const batch = parse(vector.input, { ...options, output: 'openai', idGenerator });
    if (vector.expected_error) expect(batch.diagnostics.map((d) => [d.code, d.severity])).toContainEqual(['PARSE_RESPONSE_TEMPLATE', 'error']);
    else if (batch.diagnostics.length === 0) {
      const mapped = toOpenAIMessage(vector.expected!, idGenerator);
      expect(batch).toEqual(mapped);
    } else {
      // Only the overwrite note: transformers' dict dropped an earlier region's text that chatfmt keeps.
      expect(batch.diagnostics.map((d) => [d.code, d.severity])).toEqual([['PARSE_RESPONSE_TEMPLATE', 'warning']]);
    }
    for (const chunks of [vector.streaming?.chunks ?? [vector.input], codePointChunks(vector.input)]) {
      const parser = createStreamParser({ ...options, output: 'openai', idGenerator });
      const deltas: Delta[] = [];
      for (const chunk of chunks) deltas.push(...parser.push(chunk));
      deltas.push(...parser.finish());
      expect(accumulateDeltas(deltas)).toEqual(batch);
    }
  });
});
