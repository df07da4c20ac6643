import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { importDataset, toTrainingRecord, type Conversation } from '../../src/index.js';
import { repoRoot } from '../helpers/shared.js';

// Issue 17: nothing one row holds may end a convert run.

const plain = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] };

function nestedSchemaRow(depth: number): string {
  const schema = `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;
  return JSON.stringify({ ...plain, tools: [{ type: 'function', function: { name: 'f', parameters: '@' } }] }).replace('"@"', schema);
}

async function convert(input: string, ...args: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const io = memoryIO(input);
  const code = await run(['convert', '-', '--from', 'openai', ...args], io);
  return { code, out: io.out().split('\n').filter(Boolean), err: io.err() };
}

describe('convert survives hostile rows', () => {
  it.each([['openai'], ['qwen3']])('a 5,000-level nested schema is one ROW_TOO_DEEP issue; later rows still come out (--to %s)', async (to) => {
    const input = [JSON.stringify(plain), nestedSchemaRow(5000), JSON.stringify(plain)].join('\n');
    const { code, out, err } = await convert(input, '--to', to);
    expect(code).toBe(1);
    expect(out).toHaveLength(2);
    expect(err).toContain('3 row(s), 2 converted, 1 not converted');
    expect(err).toMatch(/ROW_TOO_DEEP +1 error\n/);
    expect(err).toMatch(/✖ JSON nests deeper than 256 levels.*line 2/);
  });

  it('importDataset reports the deep row with its row number and goes on', async () => {
    async function* lines() {
      yield JSON.stringify(plain);
      yield nestedSchemaRow(5000);
      yield JSON.stringify(plain);
    }
    const rows = [];
    for await (const row of importDataset(lines(), { from: 'openai' })) rows.push(row);
    expect(rows.map((row) => [row.row, row.conversation === null, row.issues.map((issue) => issue.code)])).toEqual([
      [1, false, []],
      [2, true, ['ROW_TOO_DEEP']],
      [3, false, []],
    ]);
  });

  it('toTrainingRecord turns a throw inside one conversation into an issue on that row', () => {
    // A getter that throws stands for any failure deep inside rendering: the caller gets an issue, not an exception.
    const hostile = { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', get content(): string { throw new RangeError('Maximum call stack size exceeded'); } }] };
    const result = toTrainingRecord(hostile as unknown as Conversation, { family: 'qwen3', line: 7 });
    expect(result.record).toBeNull();
    expect(result.issues.map((issue) => [issue.line, issue.code])).toEqual([[7, 'INTERNAL_ERROR']]);
    expect(result.issues[0]!.message).toContain('Maximum call stack size exceeded');
  });
});

describe('integers past 2^53 where a string or a weight belongs', () => {
  // Importers read rows in render's number model (bigints); JSON.stringify threw on them while quoting the value, so the
  // row was an INTERNAL_ERROR ("Do not know how to serialize a BigInt") instead of the importer's own issue.
  const lf = (second: string) => `{"messages":[{"role":"user","content":[{"type":"text","value":"Hi"}]},${second}]}`;
  it.each([
    ['role', lf('{"role":9007199254740993,"content":[{"type":"text","value":"Hello"}]}'), 'IMPORT_UNKNOWN_ROLE', 'unknown role 9007199254740993'],
    ['loss_weight', lf('{"role":"assistant","content":[{"type":"text","value":"Hello"}],"loss_weight":18446744073709551616}'), 'IMPORT_LOSS_WEIGHT', 'loss_weight 18446744073709551616 on'],
  ])('a LLaMA-Factory %s is quoted as written, in validate and convert alike', async (_, row, code, message) => {
    const input = `${row}\n${JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', value: 'a' }] }, { role: 'assistant', content: [{ type: 'text', value: 'b' }] }] })}\n`;
    for (const argv of [['validate', '-', '--from', 'llamafactory', '--format', 'json'], ['convert', '-', '--from', 'llamafactory', '--to', 'openai']]) {
      const io = memoryIO(input);
      await run([...argv, '--no-progress'], io);
      const said = io.out() + io.err();
      expect(said).not.toContain('INTERNAL_ERROR');
      expect(said).toContain(code);
      expect(said).toContain(message);
    }
  });
});

describe('a turn of 300,000 parallel calls, in a chatfmt process', () => {
  // list.push(...calls) passed every call as an argument: past ~120,000, V8's RangeError on the main thread's stack made
  // the row an INTERNAL_ERROR (vitest's worker threads have a larger stack, hence a real process). Pairing results then
  // took each call off the front of an array (shift): quadratic, 9 s for this row, now about 1 s.
  const built = existsSync(join(repoRoot, 'dist', 'bin'));
  const chatfmt = (args: string[], input: string) => spawnSync(process.execPath, [join(repoRoot, 'bin', 'chatfmt.js'), ...args, '--no-progress', '--workers', '1', '-'], { input, encoding: 'utf8', maxBuffer: 1 << 26 });
  it.skipIf(!built)('is read, converted and reported like a small one (validate and convert --from sharegpt)', () => {
    const calls = JSON.stringify(Array.from({ length: 300_000 }, () => ({ name: 'f', arguments: {} })));
    const tools = JSON.stringify([{ name: 'f', parameters: { type: 'object', properties: {} } }]);
    const row = JSON.stringify({ conversations: [{ from: 'human', value: 'q' }, { from: 'function_call', value: calls }, { from: 'observation', value: 'r' }, { from: 'gpt', value: 'x' }], tools });
    const validated = chatfmt(['validate', '--from', 'sharegpt', '--format', 'json'], row);
    expect(validated.status).toBe(0);
    expect(JSON.parse(validated.stdout)).toMatchObject({ errors: 0, warnings: 1, byCode: { IMPORT_RESULT_COUNT: { severity: 'warning', count: 1 } } });
    const converted = chatfmt(['convert', '--from', 'sharegpt', '--to', 'openai'], row);
    expect(converted.status).toBe(0);
    expect(converted.stderr).toContain('299999 call(s) got no result');
    expect((JSON.parse(converted.stdout) as { messages: Array<{ tool_calls?: unknown[] }> }).messages[1]!.tool_calls).toHaveLength(300_000);
  });

  // row.ts collected each check's issues with issues.push(...list): the row was one INTERNAL_ERROR instead.
  it.skipIf(!built)('150,000 calls to an undeclared tool are 150,000 TOOL_UNDECLARED issues', () => {
    const calls = Array.from({ length: 150_000 }, (_, k) => ({ id: `c${k}`, type: 'function', function: { name: 'f', arguments: '{}' } }));
    const results = calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: 'r' }));
    const tools = [{ type: 'function', function: { name: 'g', parameters: { type: 'object' } } }];
    const row = JSON.stringify({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', tool_calls: calls }, ...results, { role: 'assistant', content: 'x' }], tools });
    const validated = chatfmt(['validate', '--format', 'json'], row);
    expect(JSON.parse(validated.stdout)).toMatchObject({ errors: 150_000, byCode: { TOOL_UNDECLARED: { severity: 'error', count: 150_000 } } });
  });
});

describe('xLAM parameter names', () => {
  it('a parameter named __proto__ is kept in properties as in required', async () => {
    const row = JSON.stringify({
      query: 'go',
      tools: '[{"name":"f","description":"d","parameters":{"__proto__":{"type":"str","description":"p"},"toString":{"type":"int","description":"t"}}}]',
      answers: '[{"name":"f","arguments":{"__proto__":"x","toString":1}}]',
    });
    const io = memoryIO(`${row}\n`);
    expect(await run(['convert', '-', '--from', 'xlam', '--to', 'openai'], io)).toBe(0);
    const parameters = (JSON.parse(io.out()) as { tools: Array<{ function: { parameters: { properties: object; required: string[] } } }> }).tools[0]!.function.parameters;
    expect(Object.keys(parameters.properties)).toEqual(['__proto__', 'toString']);
    expect(parameters.required).toEqual(['__proto__', 'toString']);
    expect(Object.getOwnPropertyDescriptor(parameters.properties, '__proto__')?.value).toEqual({ type: 'string', description: 'p' });
  });
});
