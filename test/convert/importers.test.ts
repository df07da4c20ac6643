import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importDataset, importRow, isImportShape, mapPseudoType, parsePythonJson, type ImportedRow } from '../../src/index.js';

// Data-driven: fixtures/convert/<shape>/rows.jsonl is the input, expected.jsonl says per line what must come out
// (the conversation, or null, and the issues as {code, severity, path}).
const root = join(import.meta.dirname, '../../fixtures/convert');

interface Expected {
  line: number;
  conversation: unknown;
  issues: Array<{ code: string; severity: string; path: string }>;
}

function readExpected(shape: string): Expected[] {
  // Read as convert reads rows (the Python value model): a `1.0` in a tool schema stays a float.
  return readFileSync(join(root, shape, 'expected.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => parsePythonJson(l) as Expected);
}

describe.each(readdirSync(root).filter(isImportShape))('importer %s', (shape) => {
  it('maps every fixture row as expected.jsonl says, dropping none', async () => {
    const rows: ImportedRow[] = [];
    for await (const row of importDataset(join(root, shape, 'rows.jsonl'), { from: shape })) rows.push(row);
    const expected = readExpected(shape);
    expect(rows.map((r) => r.line)).toEqual(expected.map((e) => e.line));
    for (const [i, row] of rows.entries()) {
      const want = expected[i]!;
      expect({ line: row.line, conversation: row.conversation }).toEqual({ line: want.line, conversation: want.conversation });
      expect(row.issues.map(({ code, severity, path }) => ({ code, severity, path }))).toEqual(want.issues);
      for (const issue of row.issues) {
        expect(issue.line).toBe(row.line);
        expect(issue.message.length).toBeGreaterThan(0);
      }
    }
  });
});

describe('importRow', () => {
  it('never throws on junk rows, it reports them', () => {
    for (const shape of ['openai', 'sharegpt', 'hermes-text', 'xlam'] as const) {
      for (const junk of [null, 42, 'text', [], {}, { conversations: 'x' }, { messages: [1] }]) {
        const result = importRow(junk, shape, 3);
        expect(result.conversation).toBeNull();
        expect(result.issues.some((i) => i.severity === 'error' && i.line === 3)).toBe(true);
      }
    }
  });

  it('rejects an unknown shape with a ChatfmtError', () => {
    expect(() => importRow({}, 'alpaca' as never)).toThrow(/unknown dataset shape/);
  });
});

describe('mapPseudoType (xLAM / ToolACE parameter types → JSON Schema)', () => {
  it.each([
    ['str', { type: 'string' }, false],
    ['int', { type: 'integer' }, false],
    ['float, optional', { type: 'number' }, true],
    ['bool', { type: 'boolean' }, false],
    ['dict', { type: 'object' }, false],
    ['Dict[str, Any]', { type: 'object' }, false],
    ['List[int]', { type: 'array', items: { type: 'integer' } }, false],
    ['List[List[str]]', { type: 'array', items: { type: 'array', items: { type: 'string' } } }, false],
    ['list', { type: 'array' }, false],
    ['Optional[str]', { type: 'string' }, true],
    ['Union[int, str]', { type: ['integer', 'string'] }, false],
    ['Union[int, None]', { type: 'integer' }, true],
    ['int or str', { type: ['integer', 'string'] }, false],
    ["Literal['a', 'b']", { enum: ['a', 'b'] }, false],
    ['Any', {}, false],
    ['typing.List[float]', { type: 'array', items: { type: 'number' } }, false],
  ])('%s', (text, schema, optional) => {
    expect(mapPseudoType(text)).toEqual({ schema, optional });
  });

  it.each(['callable', 'List[Foo]', 'np.ndarray', 'List[int', 'constructor', 'toString', '__proto__', 'List[constructor]'])('leaves %s unmapped', (text) => {
    expect(mapPseudoType(text)).toBeUndefined();
  });

  it('maps pseudo-types inside a JSON-Schema document (ToolACE type: dict)', () => {
    const row = {
      query: 'q',
      tools: [{ name: 'f', parameters: { type: 'dict', properties: { ids: { type: 'List[int]' } }, required: ['ids'] } }],
      answers: [{ name: 'f', arguments: { ids: [1] } }],
    };
    const { conversation } = importRow(row, 'xlam');
    expect(conversation!.tools[0]!.function.parameters).toEqual({ type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } }, required: ['ids'] });
  });
});

describe('hermes-text specifics', () => {
  it('reads tools written one object after another inside <tools>', () => {
    const system = '<tools> {"type": "function", "function": {"name": "a"}} {"type": "function", "function": {"name": "b", "parameters": {"type": "object", "properties": {}}}} </tools>';
    const { conversation } = importRow({ conversations: [{ from: 'system', value: system }, { from: 'human', value: 'x' }] }, 'hermes-text');
    expect(conversation!.tools.map((t) => t.function.name)).toEqual(['a', 'b']);
    expect(conversation!.messages).toEqual([{ role: 'user', content: 'x' }]);
  });

  it('does not end a call at a </tool_call> the model never closed, and keeps the row out', () => {
    const { conversation, issues } = importRow({ conversations: [{ from: 'gpt', value: '<tool_call>{"name": "a", "arguments": {}}' }] }, 'hermes-text');
    expect(conversation).toBeNull();
    expect(issues.map((i) => i.code)).toEqual(['IMPORT_BAD_CALL']);
  });

  it('reads a leading <think>…</think> as the turn\'s reasoning_content, with and without calls', () => {
    const row = {
      conversations: [
        { from: 'human', value: 'weather?' },
        { from: 'gpt', value: '<think>\nNeed the tool.\n</think>\n<tool_call>\n{"name": "w", "arguments": {"c": "P"}}\n</tool_call>' },
        { from: 'tool', value: '<tool_response>sunny</tool_response>' },
        { from: 'gpt', value: '  <think>It is sunny.</think>\n\nSunny in P.' },
      ],
    };
    const { conversation, issues } = importRow(row, 'hermes-text');
    expect(issues).toEqual([]);
    expect(conversation!.messages[1]).toMatchObject({ role: 'assistant', content: null, reasoning_content: 'Need the tool.' });
    expect(conversation!.messages[1]!.tool_calls!.map((c) => c.function.name)).toEqual(['w']);
    expect(conversation!.messages[3]).toEqual({ role: 'assistant', content: 'Sunny in P.', reasoning_content: 'It is sunny.' });
  });

  // Before: only the inside of each block became a tool message; the rest of the turn was dropped without an issue.
  it('keeps a row out, with an issue, when a result turn holds text the tool messages would lose', () => {
    const row = (result: string) => ({
      conversations: [
        { from: 'human', value: 'weather?' },
        { from: 'gpt', value: '<tool_call>\n{"name": "w", "arguments": {}}\n</tool_call>' },
        { from: 'tool', value: result },
        { from: 'gpt', value: 'Sunny.' },
      ],
    });
    const outcome = (result: string) => {
      const { conversation, issues } = importRow(row(result), 'hermes-text');
      return [conversation === null, issues.map((i) => `${i.code} ${i.path}: ${i.message}`)];
    };
    expect(outcome('Note: cached.\n<tool_response>sunny</tool_response>\nSource: met office')).toEqual([
      true,
      ['IMPORT_BAD_ROW conversations[2].value: text outside the <tool_response> blocks ("Note: cached.\\n\\nSource: met office") would be lost: a tool result is the inside of one block'],
    ]);
    expect(outcome('<tool_response>sunny</tool_response>\n<tool_response>and windy')).toEqual([
      true,
      ['IMPORT_BAD_ROW conversations[2].value: <tool_response> at offset 37 is never closed'],
    ]);
    // Nothing is lost: white space around the blocks, or a turn with no block at all (the whole text is the result).
    expect(outcome('\n <tool_response>sunny</tool_response>\n')).toEqual([false, []]);
    expect(importRow(row('sunny <tool_response> unclosed'), 'hermes-text').conversation!.messages[2]).toMatchObject({ role: 'tool', content: 'sunny <tool_response> unclosed' });
  });

  it('leaves <think> that does not open the turn, or is never closed, in content', () => {
    const late = importRow({ conversations: [{ from: 'gpt', value: 'Answer <think>x</think>' }] }, 'hermes-text').conversation!;
    expect(late.messages[0]).toEqual({ role: 'assistant', content: 'Answer <think>x</think>' });
    const open = importRow({ conversations: [{ from: 'gpt', value: '<think>still going' }] }, 'hermes-text').conversation!;
    expect(open.messages[0]).toEqual({ role: 'assistant', content: '<think>still going' });
  });
});

describe('sharegpt variants', () => {
  it('reads LLaMA-Factory rows written with messages/role/content tags', () => {
    const row = { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }] };
    expect(importRow(row, 'sharegpt').conversation).toEqual({
      messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }],
      tools: [],
    });
  });

  it('pairs a single observation with the first of several parallel calls and warns about the rest', () => {
    const row = {
      conversations: [
        { from: 'human', value: 'a and b' },
        { from: 'function_call', value: '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]' },
        { from: 'observation', value: 'only one result' },
        { from: 'gpt', value: 'done' },
      ],
    };
    const { conversation, issues } = importRow(row, 'sharegpt');
    expect(conversation!.messages[2]).toEqual({ role: 'tool', content: 'only one result', tool_call_id: 'call_1', name: 'a' });
    expect(issues.map((i) => [i.code, i.severity, i.path])).toEqual([['IMPORT_RESULT_COUNT', 'warning', 'conversations[3].value']]);
  });
});
