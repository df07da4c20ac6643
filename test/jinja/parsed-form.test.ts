// Issue 18: a template's parsed form (parseTemplateForm), passed back to compileTemplate, builds the same template
// without lexing and parsing the source; a form that is damaged, foreign or made from another source is ignored.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfmtError, compileTemplate, familyIds, familyInfo, parseTemplateForm } from '../../src/index.js';
import { hasShared, officialTemplates, repoRoot } from '../helpers/shared.js';

const NOW = new Date('2025-01-15T12:00:00Z');
/** The weather conversation, its call id 9 characters long (Mistral's templates take no other). */
const weather = () =>
  JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'conversations', 'weather.json'), 'utf8').replaceAll('"call_1"', '"call00001"')) as Record<string, unknown>;
let names = 0;
/** compileTemplate keeps templates by name and source: a fresh name makes each call build its own. */
const fresh = () => `form-test-${names++}`;

function renderWith(source: string, parsed: string | undefined, variables: Record<string, unknown>): string {
  return compileTemplate(source, { name: fresh(), parsed }).render(variables, { now: NOW }).text;
}

/** The variables a chat template sees for the weather conversation (call arguments as objects, as render passes them). */
function chatVariables(): Record<string, unknown> {
  const conversation = weather() as { messages: Array<{ tool_calls?: Array<{ function: { arguments: unknown } }> }> };
  for (const message of conversation.messages) {
    for (const call of message.tool_calls ?? []) call.function.arguments = JSON.parse(call.function.arguments as string);
  }
  return { ...conversation, add_generation_prompt: true, bos_token: '<s>', eos_token: '</s>' };
}

/** The render's text, or its error's message without the template's (fresh) name. */
function outcome(source: string, parsed: string | undefined, variables: Record<string, unknown>): string {
  try {
    return renderWith(source, parsed, variables);
  } catch (error) {
    return `error: ${(error as Error).message.replace(/form-test-\d+/g, '')}`;
  }
}

const familySource = (id: (typeof familyIds)[number]) => readFileSync(join(repoRoot, 'templates', familyInfo[id].templateFile), 'utf8');

describe('parseTemplateForm', () => {
  it('builds every family template to the same output as its source', () => {
    // Call arguments as objects or as JSON strings: each family template takes one of the two.
    const variants = [chatVariables(), { ...weather(), add_generation_prompt: true, bos_token: '<s>', eos_token: '</s>' }];
    for (const id of familyIds) {
      const source = familySource(id);
      const form = parseTemplateForm(source);
      const rendered = variants.map((variables) => outcome(source, undefined, variables));
      expect(rendered.some((text) => !text.startsWith('error: ')), id).toBe(true);
      expect(variants.map((variables) => outcome(source, form, variables)), id).toEqual(rendered);
    }
  });

  it('builds every official template to the same output as its source', () => {
    if (!hasShared) return;
    for (const { path } of officialTemplates()) {
      const source = readFileSync(path, 'utf8');
      let form: string;
      try {
        form = parseTemplateForm(source);
      } catch {
        continue;
      }
      expect(outcome(source, form, chatVariables()), path).toBe(outcome(source, undefined, chatVariables()));
    }
  });

  it('keeps the constants JSON cannot hold: big ints, floats that print as ints, inf, and error positions', () => {
    const source = "{{ 123456789012345678901234567890 + 1 }}|{{ 1.0 }}|{{ 2.5e0 }}|{{ 1e999 }}|{{ -1e999 }}|{{ 0.0 }}|{{ 9007199254740993 }}";
    const form = parseTemplateForm(source);
    expect(renderWith(source, form, {})).toBe(renderWith(source, undefined, {}));
    expect(renderWith(source, form, {})).toBe("123456789012345678901234567891|1.0|2.5|inf|-inf|0.0|9007199254740993");
    const failing = 'line one\n{{ missing.attr }}';
    const message = (parsed?: string) => {
      try {
        compileTemplate(failing, { name: 'positions', parsed: parsed ?? undefined }).render({});
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(message(parseTemplateForm(failing))).toBe(message());
  });

  it('reports a syntax error as compileTemplate does', () => {
    const caught = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const formError = caught(() => parseTemplateForm('{% if x %}', { name: 'broken' })) as ChatfmtError;
    const compileError = caught(() => compileTemplate('{% if x %}', { name: 'broken' })) as ChatfmtError;
    expect(formError).toBeInstanceOf(ChatfmtError);
    expect([formError.code, formError.message]).toEqual([compileError.code, compileError.message]);
  });

  it('is what the template is built from when it names the source', () => {
    // A form edited by hand (its text node changed) shows the template was built from it and not from the source.
    const source = 'Hello {{ name }}!';
    const edited = parseTemplateForm(source).replace('"Hello "', '"Bye "');
    expect(renderWith(source, edited, { name: 'you' })).toBe('Bye you!');
  });

  it('is ignored when made from another source', () => {
    const form = parseTemplateForm('A {{ x }}');
    expect(renderWith('B {{ x }}', form, { x: 1 })).toBe('B 1');
    // The same length, a different text.
    expect(renderWith('A {{ y }}', form, { x: 1, y: 2 })).toBe('A 2');
  });

  it('is ignored when damaged, foreign or of the wrong shape: the source is parsed, the output never changes', () => {
    const source = familySource('qwen3');
    const form = parseTemplateForm(source);
    const expected = renderWith(source, undefined, chatVariables());
    const data = JSON.parse(form) as { v: number; source: string; ast: unknown[] };
    const variants = [
      '',
      'garbage',
      'null',
      '[]',
      form.slice(0, form.length >> 1),
      JSON.stringify({ ...data, v: data.v + 1 }),
      JSON.stringify({ ...data, ast: 'not a list' }),
      JSON.stringify({ ...data, ast: [{ k: 'nonsense' }] }),
      JSON.stringify({ ...data, ast: [{ k: 'print', expr: { k: 'name', name: 'x', pos: -1 } }] }),
      JSON.stringify({ ...data, ast: [{ k: 'print', expr: { k: 'bin', op: '^', left: { k: 'const', value: 1 }, right: { k: 'const', value: 2 } } }] }),
      JSON.stringify({ ...data, ast: [{ k: 'print', expr: { k: 'const', value: { $i: '1e3' } } }] }),
      JSON.stringify({ ...data, ast: [{ k: 'print', expr: { k: 'filter', node: null, name: 'no_such_filter', pos: 0, args: [], kwargs: [], dynArgs: null, dynKwargs: null } }] }),
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      JSON.stringify({ ...data, ast: JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`) }),
    ];
    for (const variant of variants) expect(renderWith(source, variant, chatVariables()), variant.slice(0, 80)).toBe(expected);
  });

  it('is ignored whatever bytes of it are changed or cut (property)', () => {
    const source = familySource('glm-4.5');
    const form = parseTemplateForm(source);
    const expected = renderWith(source, undefined, chatVariables());
    // A change to the JSON's punctuation (outside its strings) leaves a form the reader rejects, or one that reads as
    // the same tree. Changes inside strings are not rejected when they leave a well-formed form: the edited text then
    // renders, as the hand-edited form above shows.
    const structural: number[] = [];
    let inString = false;
    for (let i = 0; i < form.length; i++) {
      if (inString) {
        if (form[i] === '\\') i++;
        else if (form[i] === '"') inString = false;
      } else if (form[i] === '"') inString = true;
      // Brackets, braces, commas and colons: a digit changed in a number is a different constant, a different tree.
      if (!inString && '{}[],:'.includes(form[i]!)) structural.push(i);
    }
    fc.assert(
      fc.property(fc.constantFrom(...structural), fc.constantFrom('', ' ', '0', '{', ']', 'x', '"'), (index, replacement) => {
        const variant = form.slice(0, index) + replacement + form.slice(index + 1);
        expect(renderWith(source, variant, chatVariables())).toBe(expected);
      }),
      { numRuns: 150 },
    );
  });
});
