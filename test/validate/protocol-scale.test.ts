import { describe, expect, it } from 'vitest';
import { validateDataset } from '../../src/index.js';
import { collect } from './helpers.js';

// Hostile rows: one assistant turn with a huge number of parallel calls, or thousands of tools.

function parallelRow(n: number, resultOrder: (k: number) => number, name: (k: number) => string = () => 'f'): string {
  const calls = Array.from({ length: n }, (_, k) => ({ id: `c${k}`, type: 'function', function: { name: name(k), arguments: '{}' } }));
  const results = Array.from({ length: n }, (_, k) => ({ role: 'tool', tool_call_id: `c${resultOrder(k)}`, content: 'r' }));
  const tools = [...new Set(calls.map((call) => call.function.name))].map((f) => ({ type: 'function', function: { name: f, parameters: { type: 'object' } } }));
  return JSON.stringify({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', tool_calls: calls }, ...results, { role: 'assistant', content: 'done' }], tools });
}

async function codes(row: string): Promise<string[]> {
  async function* lines(): AsyncGenerator<string> {
    yield row;
  }
  return (await collect(validateDataset(lines(), { workers: 1 }))).map((issue) => issue.code);
}

describe('matching tool results to many parallel calls', () => {
  // Each result scanned the calls from the start (by id, then again for an earlier unanswered call): quadratic, so
  // this row took about 100 s; it is now read in about a second.
  it('120,000 calls answered in order: no issue', async () => {
    expect(await codes(parallelRow(120_000, (k) => k))).toEqual([]);
  });

  it('calls answered in reverse: one TOOL_RESULT_OUT_OF_ORDER', async () => {
    expect(await codes(parallelRow(20_000, (k) => 20_000 - 1 - k))).toEqual(['TOOL_RESULT_OUT_OF_ORDER']);
  });

  it('results without ids are paired by position, and by name when the names say otherwise', async () => {
    const row = JSON.parse(parallelRow(4, (k) => k, (k) => (k % 2 ? 'g' : 'f'))) as { messages: Array<Record<string, unknown>> };
    // The first result names g: the first pending g call (index 1) takes it, which is out of order; the rest follow.
    const names = ['g', 'f', 'f', 'g'];
    row.messages.slice(2, 6).forEach((message, k) => {
      delete message.tool_call_id;
      message.name = names[k];
    });
    for (const call of (row.messages[1]!.tool_calls as Array<{ id?: string }>)) delete call.id;
    expect(await codes(JSON.stringify(row))).toEqual(['TOOL_RESULT_OUT_OF_ORDER']);
  });
});

describe('calls to undeclared tools in a row with thousands of tools', () => {
  // Each TOOL_UNDECLARED message listed every declared name: 2,000 calls × 2,000 tools wrote ~50 MB of messages.
  it('names the first ten declared tools and counts the rest', async () => {
    const tools = Array.from({ length: 2_000 }, (_, k) => ({ type: 'function', function: { name: `t${k}`, parameters: { type: 'object' } } }));
    const calls = Array.from({ length: 2_000 }, (_, k) => ({ id: `c${k}`, type: 'function', function: { name: `missing${k}`, arguments: '{}' } }));
    const results = calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: 'r' }));
    const row = JSON.stringify({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', tool_calls: calls }, ...results, { role: 'assistant', content: 'x' }], tools });
    async function* lines(): AsyncGenerator<string> {
      yield row;
    }
    const issues = await collect(validateDataset(lines(), { workers: 1 }));
    expect(issues).toHaveLength(2_000);
    expect(issues[0]!.message).toBe('call to "missing0", which is not among the declared tools (t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 and 1990 more)');
  });
});
