import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { toTrainingRecord, validateDataset, type DatasetIssue } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';
import { collect, root } from './helpers.js';

// Row-level template problems that validate and convert must both name: a template that renders tool-call turns
// without their calls, a round trip that cannot run, and training text that embeds the day it was made.
const models = join(root, 'fixtures', 'models');
const dropsCalls = ['drops-calls-marked', 'drops-calls-plain'];
const tmp = tempDir();

const weatherTool = { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const callRow = {
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    { role: 'assistant', content: 'Sunny.' },
  ],
  tools: [weatherTool],
};
const chatRow = { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }] };
const dataset = tmp.write('rows.jsonl', [callRow, chatRow, callRow].map((row) => JSON.stringify(row)).join('\n') + '\n');

async function convert(args: string[]): Promise<{ code: number; out: string; err: string; report: DatasetIssue[] }> {
  const report = join(tmp.path, `report-${Math.random().toString(36).slice(2)}.jsonl`);
  const io = memoryIO('', root);
  const code = await run(['convert', dataset, '--from', 'openai', '--report', report, ...args], io);
  const issues = readFileSync(report, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as DatasetIssue);
  return { code, out: io.out(), err: io.err(), report: issues };
}

const codesAt = (issues: DatasetIssue[], code: string) => issues.filter((i) => i.code === code).map((i) => [i.line, i.path]);

describe.each(dropsCalls)('a template that drops tool calls (%s)', (model) => {
  const template = join(models, model);

  it('validate reports TEMPLATE_DROPS_TOOL_CALLS on every tool-call turn, and only there', async () => {
    const issues = await collect(validateDataset(dataset, { template, workers: 1 }));
    expect(codesAt(issues, 'TEMPLATE_DROPS_TOOL_CALLS')).toEqual([
      [1, 'messages[1].tool_calls[0].function.name'],
      [3, 'messages[1].tool_calls[0].function.name'],
    ]);
    expect(issues.find((i) => i.code === 'TEMPLATE_DROPS_TOOL_CALLS')!.message).toMatch(/"get_weather"/);
  });

  it('convert leaves those rows out with the same code and writes the chat row', async () => {
    const result = await convert(['--template', template]);
    expect(result.code).toBe(1);
    expect(codesAt(result.report, 'TEMPLATE_DROPS_TOOL_CALLS')).toEqual([
      [1, 'messages[1].tool_calls'],
      [3, 'messages[1].tool_calls'],
    ]);
    expect(result.out.split('\n').filter(Boolean)).toHaveLength(1);
  });
});

describe('a template that shows its calls', () => {
  it('is not flagged, by convert or validate, with a family or without', async () => {
    const record = toTrainingRecord(callRow as never, { family: 'qwen3' });
    expect(record.issues.map((i) => i.code)).not.toContain('TEMPLATE_DROPS_TOOL_CALLS');
    const custom = join(root, 'fixtures', 'templates', 'function-call-tags.jinja');
    const issues = await collect(validateDataset(dataset, { template: custom, workers: 1 }));
    expect(issues.map((i) => i.code)).not.toContain('TEMPLATE_DROPS_TOOL_CALLS');
  });

  it('a template with no family parser says once that the round trip did not run', async () => {
    const custom = join(root, 'fixtures', 'templates', 'function-call-tags.jinja');
    const issues = await collect(validateDataset(dataset, { template: custom, workers: 1 }));
    expect(codesAt(issues, 'ROUNDTRIP_SKIPPED')).toEqual([[1, '']]);
    const quiet = await collect(validateDataset(dataset, { template: custom, roundTrip: false, workers: 1 }));
    expect(quiet.map((i) => i.code)).not.toContain('ROUNDTRIP_SKIPPED');
    const family = await collect(validateDataset(dataset, { family: 'qwen3', workers: 1 }));
    expect(family.map((i) => i.code)).not.toContain('ROUNDTRIP_SKIPPED');
  });
});

describe('templates that write today\'s date (strftime_now)', () => {
  it.each(['gpt-oss', 'mistral'])('convert --to %s warns once without --now, not with it, and --now fixes the text', async (family) => {
    const loose = await convert(['--to', family]);
    expect(codesAt(loose.report, 'TEMPLATE_READS_CLOCK')).toEqual([[1, '']]);
    // Once per run: the summary counts one warning for the code, whatever the number of rows.
    expect(loose.err).toMatch(/TEMPLATE_READS_CLOCK\s+1 warning\n/);
    const fixed = await convert(['--to', family, '--now', '2025-03-04T05:06:07Z']);
    expect(fixed.report.map((i) => i.code)).not.toContain('TEMPLATE_READS_CLOCK');
    expect(fixed.out).toContain('2025-03-04');
  });

  it('validate warns once without --now, not with it, and not for a template without the clock', async () => {
    const loose = await collect(validateDataset(dataset, { family: 'gpt-oss', workers: 1 }));
    expect(codesAt(loose, 'TEMPLATE_READS_CLOCK')).toEqual([[1, '']]);
    const fixed = await collect(validateDataset(dataset, { family: 'gpt-oss', workers: 1, now: '2025-03-04T05:06:07Z' }));
    expect(fixed.map((i) => i.code)).not.toContain('TEMPLATE_READS_CLOCK');
    const qwen = await collect(validateDataset(dataset, { family: 'qwen3', workers: 1 }));
    expect(qwen.map((i) => i.code)).not.toContain('TEMPLATE_READS_CLOCK');
  });

  it('the mistral template reads the clock only without a system message, and the warning says which row', async () => {
    const withSystem = { ...chatRow, messages: [{ role: 'system', content: 'Be brief.' }, ...chatRow.messages] };
    const file = tmp.write('mistral.jsonl', `${JSON.stringify(withSystem)}\n${JSON.stringify(chatRow)}\n`);
    const issues = await collect(validateDataset(file, { family: 'mistral', workers: 1 }));
    expect(codesAt(issues, 'TEMPLATE_READS_CLOCK')).toEqual([[2, '']]);
  });
});
