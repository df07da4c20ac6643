import { describe, expect, it } from 'vitest';
import { validateDataset, type DatasetIssue } from '../../src/index.js';
import { collect } from './helpers.js';

// Issue 17 items 1 and 2: tool schemas are data, and data must not hang or crash a run.

const callRow = (parameters: unknown, args: unknown) => ({
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'done' },
    { role: 'assistant', content: 'ok' },
  ],
  tools: [{ type: 'function', function: { name: 'f', parameters } }],
});

async function* lines(rows: Array<string | object>): AsyncGenerator<string> {
  for (const row of rows) yield typeof row === 'string' ? row : JSON.stringify(row);
}

const validate = (rows: Array<string | object>): Promise<DatasetIssue[]> => collect(validateDataset(lines(rows)));
const codes = (issues: DatasetIssue[]) => issues.map((issue) => `${issue.line} ${issue.code}`);

describe('tool schemas from data', () => {
  it('runs `pattern` in linear time: ^(a+)+$ against 34 a\'s and a "!" is checked, not backtracked for hours', async () => {
    const parameters = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    const issues = await validate([
      callRow(parameters, { s: `${'a'.repeat(34)}!` }),
      callRow(parameters, { s: 'a'.repeat(40) }),
      callRow(parameters, { s: `${'a'.repeat(5000)}!` }),
    ]);
    expect(codes(issues)).toEqual(['1 ARGS_SCHEMA_MISMATCH', '3 ARGS_SCHEMA_MISMATCH']);
  });

  it('patternProperties run on the same engine', async () => {
    const parameters = { type: 'object', patternProperties: { '^(x+)+y$': { type: 'integer' } } };
    const issues = await validate([callRow(parameters, { [`${'x'.repeat(34)}y`]: 'not an integer', [`${'x'.repeat(34)}`]: 'free' })]);
    expect(codes(issues)).toEqual(['1 ARGS_SCHEMA_MISMATCH']);
  });

  it('a pattern the linear engine cannot run (lookahead, backreference) is a warning and is not applied', async () => {
    const parameters = { type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)(a)\\1$' } } };
    const issues = await validate([callRow(parameters, { s: 'zzz' })]);
    expect(issues.map((issue) => [issue.code, issue.severity, issue.path])).toEqual([
      ['TOOL_SCHEMA_UNCHECKED', 'warning', 'tools[0].function.parameters.properties.s.pattern'],
    ]);
  });

  // Pairwise comparison made 20k items cost 8.6 s; 60k would take minutes, past the suite's per-test guard.
  it('uniqueItems stays correct and linear (60k distinct objects, then one duplicate)', async () => {
    const parameters = { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } };
    const distinct = Array.from({ length: 60_000 }, (_, i) => ({ k: i, v: [i] }));
    const issues = await validate([callRow(parameters, { xs: distinct }), callRow(parameters, { xs: [{ a: 1, b: 2 }, { b: 2, a: 1 }] })]);
    expect(codes(issues)).toEqual(['2 ARGS_SCHEMA_MISMATCH']);
  });

  it('a schema over the size budget (an enum of 100k values) is left unchecked with one warning', async () => {
    const parameters = { type: 'object', properties: { v: { enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) } } };
    const issues = await validate([callRow(parameters, { v: 'not in the enum' })]);
    expect(issues.map((issue) => [issue.code, issue.path])).toEqual([['TOOL_SCHEMA_UNCHECKED', 'tools[0].function.parameters']]);
    expect(issues[0]!.message).toContain('10000');
  });

  it('required names are own properties: {} does not have "toString"', async () => {
    const parameters = { type: 'object', required: ['toString', 'constructor'] };
    const issues = await validate([callRow(parameters, {}), callRow(parameters, { toString: 'x', constructor: 1 })]);
    expect(codes(issues)).toEqual(['1 ARGS_SCHEMA_MISMATCH']);
  });

  it('a type named like an Object.prototype member ("constructor") is an unknown type, not a hint to one', async () => {
    const parameters = { type: 'object', properties: { a: { type: 'constructor' }, b: { type: 'toString' }, c: { type: 'dict' } } };
    const issues = (await validate([callRow(parameters, { a: 1, b: 2, c: {} })])).filter((issue) => issue.code === 'TOOL_PSEUDO_TYPE');
    expect(issues.map((issue) => issue.message)).toEqual([
      'tool "f": "constructor" is not a JSON Schema type',
      'tool "f": "toString" is not a JSON Schema type',
      'tool "f": "dict" is not a JSON Schema type; use "object"',
    ]);
  });

  it('a 5,000-level nested schema is one ROW_TOO_DEEP issue; the rows after it are still checked', async () => {
    const depth = 5000;
    const schema = `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;
    const deep = JSON.stringify(callRow({ type: 'object', properties: { x: '@' } }, {})).replace('"@"', schema);
    const issues = await validate([deep, callRow({ type: 'object' }, []), deep]);
    expect(codes(issues)).toEqual(['1 ROW_TOO_DEEP', '2 ARGS_NOT_OBJECT', '3 ROW_TOO_DEEP']);
  });
});
