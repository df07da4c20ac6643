import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { hasShared, once, repoRoot, sharedDir } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 16 §4: validate and convert give one issue set on the same file, and convert writes exactly the rows validate
// accepts. A differential test: both commands on the same inputs, their --report files compared byte for byte.

type Shape = 'openai' | 'sharegpt' | 'hermes-text' | 'xlam' | 'llamafactory';

const fixtureLines = (relative: string) => readFileSync(join(repoRoot, relative), 'utf8').split('\n').filter((line) => line.trim() !== '');

/** Breaks of the kinds real datasets have, applied to one good row each: every variant must get the same verdict. */
function mutations(row: Record<string, unknown>): unknown[] {
  const turns = (row.messages ?? row.conversations) as Array<Record<string, unknown>> | undefined;
  const key = row.messages ? 'messages' : 'conversations';
  const out: unknown[] = [row, [row], 'row', { ...row, [key]: [] }, { ...row, [key]: undefined }, { ...row, chosen: turns, rejected: turns }];
  // Every top-level field broken in turn (xLAM's query/tools/answers, ShareGPT's tools string, system).
  for (const field of Object.keys(row)) out.push({ ...row, [field]: '{"x": ' }, { ...row, [field]: 42 }, { ...row, [field]: 'a\nb' });
  if (!turns) return out;
  turns.forEach((turn, k) => {
    const replace = (changed: unknown) => ({ ...row, [key]: turns.map((t, i) => (i === k ? changed : t)) });
    out.push(replace({ ...turn, role: 'bot', from: 'bot' }));
    out.push(replace({ ...turn, content: 42, value: 42 }));
    out.push(replace({ ...turn, content: 'line one\nline two "quoted"', value: 'line one\n<tool_call>\n{"name": "x\n' }));
    out.push({ ...row, [key]: turns.filter((_, i) => i !== k) });
  });
  out.push({ ...row, tools: '[{"name": '});
  out.push({ ...row, [key]: [...turns].reverse() });
  return out;
}

function corpus(shape: Shape, lines: string[]): string {
  const rows: string[] = [...lines];
  for (const line of lines) {
    try {
      const row = JSON.parse(line) as unknown;
      if (row !== null && typeof row === 'object' && !Array.isArray(row)) rows.push(...mutations(row as Record<string, unknown>).map((m) => JSON.stringify(m) ?? 'null'));
    } catch {
      // Not JSON: kept as it is, a row of its own.
    }
  }
  // Rows of other formats, and text that is no row at all.
  rows.push(
    '{"instruction": "Say hi", "input": "", "output": "hi"}',
    '{"prompt": "Say hi", "completion": "hi", "label": true}',
    '{"query": "q", "tools": "[]", "answers": "[]"}',
    '{"role": "user", "content": "hi"}',
    '{"messages": [{"role": "user", "content": [{"type": "text", "value": "hi"}], "loss_weight": 0.0}]}',
    '{"not json',
    `{"messages": "${shape}"}`,
  );
  return `${rows.join('\n')}\n`;
}

async function reports(file: string, shape: Shape): Promise<{ validate: string; convert: string; exits: [number, number]; written: number }> {
  const tmp = join(file + '.reports');
  const validateIO = memoryIO();
  const validateExit = await run(['validate', file, '--from', shape, '--workers', '1', '--report', `${tmp}.validate`], validateIO);
  const convertIO = memoryIO();
  const convertExit = await run(['convert', file, '--from', shape, '--to', 'openai', '--report', `${tmp}.convert`], convertIO);
  return {
    validate: readFileSync(`${tmp}.validate`, 'utf8'),
    convert: readFileSync(`${tmp}.convert`, 'utf8'),
    exits: [validateExit, convertExit],
    written: convertIO.out().split('\n').filter(Boolean).length,
  };
}

const rowsWithErrors = (report: string) => new Set(report.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { row: number; severity: string }).filter((i) => i.severity === 'error').map((i) => i.row));

describe('validate and convert: one truth', () => {
  const tmp = tempDir();
  const sources: Array<[Shape, string[]]> = [
    ['openai', ['fixtures/datasets/valid/openai.jsonl', 'fixtures/datasets/invalid/openai.jsonl', 'fixtures/convert/openai/rows.jsonl']],
    ['sharegpt', ['fixtures/datasets/valid/sharegpt.jsonl', 'fixtures/datasets/invalid/sharegpt.jsonl', 'fixtures/convert/sharegpt/rows.jsonl', 'fixtures/datasets/glaive-demo/glaive.jsonl']],
    ['hermes-text', ['fixtures/convert/hermes-text/rows.jsonl']],
    ['xlam', ['fixtures/convert/xlam/rows.jsonl']],
    ['llamafactory', ['fixtures/convert/llamafactory/rows.jsonl']],
  ];

  it.each(sources)('%s: the same issues, rows and exit code from both commands over fixtures and their mutations', async (shape, files) => {
    const lines = files.flatMap(fixtureLines);
    const file = tmp.write(`${shape}.jsonl`, corpus(shape, lines));
    const result = await reports(file, shape);
    expect(result.convert).toBe(result.validate);
    expect(result.exits).toEqual([1, 1]);
    const total = readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
    expect(result.written).toBe(total - rowsWithErrors(result.validate).size);
    // Paths are in the row's own shape: a row without "messages" never gets a messages[...] path.
    if (shape !== 'openai' && shape !== 'llamafactory') {
      const inputRows = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const paths = result.validate
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { row: number; path: string })
        .filter((issue) => issue.row > 0 && !inputRows[issue.row - 1]!.includes('"messages"'))
        .map((issue) => issue.path);
      expect(paths.filter((path) => path.startsWith('messages'))).toEqual([]);
    }
    // Near a hundred rows or more, so the comparison covers more than the fixtures' own faults.
    expect(total).toBeGreaterThan(90);
  });

  it('an empty file is the same DATASET_EMPTY error from both', async () => {
    const file = tmp.write('empty.jsonl', '\n\n');
    const result = await reports(file, 'openai');
    expect(result.convert).toBe(result.validate);
    expect(result.validate).toContain('"DATASET_EMPTY"');
    expect(result.exits).toEqual([1, 1]);
  });

  it('a row validate rejects is left out of convert\'s output, reported, and makes convert exit 1', async () => {
    // A call to a tool the row does not declare, whose arguments miss a required parameter.
    const good = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] };
    const bad = {
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: '18C' },
        { role: 'assistant', content: 'warm' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
    };
    const file = tmp.write('schema.jsonl', `${JSON.stringify(good)}\n${JSON.stringify(bad)}\n`);
    const result = await reports(file, 'openai');
    expect(result.exits).toEqual([1, 1]);
    expect(result.written).toBe(1);
    expect(result.convert).toBe(result.validate);
    expect(result.convert).toContain('"ARGS_SCHEMA_MISMATCH"');
  });

  it.skipIf(!hasShared)('the shared conversation inputs get the same verdicts too', async () => {
    const inputs = once(() =>
      readdirSync(join(sharedDir, 'templates', 'inputs'))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => JSON.stringify(JSON.parse(readFileSync(join(sharedDir, 'templates', 'inputs', name), 'utf8')))),
    )();
    const file = tmp.write('shared.jsonl', corpus('openai', inputs));
    const result = await reports(file, 'openai');
    expect(result.convert).toBe(result.validate);
  });
});
