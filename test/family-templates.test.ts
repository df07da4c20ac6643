// chatfmt's own family templates (templates/<id>.jinja) rendered by chatfmt's Jinja engine, against goldens made
// by scripts/goldens-family.mjs with Python jinja2: <conv>.<args>.txt / .error.txt hold the OFFICIAL template's
// output, <conv>.<args>.spans.json our template's {text, generation_spans} (code-point offsets) under jinja2.
// Our render must equal both (error ↔ error), and its generation spans must match.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileTemplate, familyIds, familyInfo, isChatfmtError, parsePythonJson, type FamilyId } from '../src/index.js';
import { ARGUMENT_FORMS, referenceVariables, type ArgumentForm } from './helpers/reference.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const templatesDir = path.join(repoRoot, 'templates');
const goldenRoot = path.join(repoRoot, 'fixtures', 'render', 'family');
const ownConversationsDir = path.join(repoRoot, 'fixtures', 'conversations');
const sharedInputsDir = path.resolve(repoRoot, '..', 'shared', 'templates', 'inputs');
const NOW = new Date('2025-01-15T12:00:00Z');
type Obj = Record<string, unknown>;

// The deepseek-v3.1 template adds the model card's tool prompt; the official one does not (see the template header).
const DEEPSEEK_BOS = '<｜begin▁of▁sentence｜>';
const TOOL_PROMPT_START = '## Tools\nYou have access to the following tools:\n';
const TOOL_PROMPT_END = '- For multiple tool calls, chain them directly without separators or spaces\n';

// deepseek-v3.2 follows DeepSeek's format where its reference (llama.cpp's DSML template) departs from it (see the
// template header): (1) after a user, developer or closed tool-result turn, which already ends with the assistant
// prefix, the reference's generation prompt writes an empty user turn and that prefix again; ours writes nothing;
// (2) arguments given as a JSON string are dropped by the reference without a word; ours refuses them.
const DSML_DUPLICATE_PROMPT = (data: Obj) => `<｜User｜>\n<｜Assistant｜>${data.enable_thinking === false ? '</think>' : '<think>'}`;
const DSML_STRING_ARGUMENTS = /tool-call arguments must be an object/;

function dsmlStringArguments(variables: Obj): boolean {
  const messages = variables.messages as Obj[];
  return messages.some((m) => ((m.tool_calls as Obj[] | undefined) ?? []).some((c) => typeof (c.function as Obj).arguments === 'string'));
}

function dsmlPromptOpen(data: Obj): boolean {
  const messages = data.messages as Obj[];
  return data.add_generation_prompt === true && ['user', 'developer', 'tool'].includes(messages.at(-1)?.role as string);
}

function jsonFiles(dir: string): Array<{ stem: string; file: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ stem: f.slice(0, -'.json'.length), file: path.join(dir, f) }));
}


function templateVariables(id: FamilyId, data: Obj, form: ArgumentForm): Obj {
  return referenceVariables(data, familyInfo[id].specialTokens, form);
}

/** Code-point offsets (Python) → UTF-16 offsets (JS) in `text`. */
function toUtf16Spans(text: string, spans: Array<[number, number]>): Array<[number, number]> {
  const unitAt: number[] = [];
  let unit = 0;
  for (const ch of text) {
    unitAt.push(unit);
    unit += ch.length;
  }
  unitAt.push(unit);
  return spans.map(([start, end]) => [unitAt[start]!, unitAt[end]!]);
}

function withoutToolPrompt(text: string): string | undefined {
  const start = text.indexOf(TOOL_PROMPT_START);
  const end = start < 0 ? -1 : text.indexOf(TOOL_PROMPT_END, start);
  if (end < 0) return undefined;
  const cut = start > DEEPSEEK_BOS.length ? start - 2 : start;
  return text.slice(0, cut) + text.slice(end + TOOL_PROMPT_END.length);
}

const conversations = [...jsonFiles(sharedInputsDir), ...jsonFiles(ownConversationsDir)];
const ownStems = jsonFiles(ownConversationsDir).map((c) => c.stem);

describe('family templates: structure', () => {
  for (const id of familyIds) {
    it(`${id}: template file exists, compiles and marks generation`, () => {
      const file = path.join(templatesDir, familyInfo[id].templateFile);
      expect(existsSync(file), file).toBe(true);
      const source = readFileSync(file, 'utf8');
      expect(source).toMatch(/\{%-?\s*generation\s*-?%\}/);
      expect(source).toMatch(/\{%-?\s*endgeneration\s*-?%\}/);
      expect(compileTemplate(source, { name: id }).hasGenerationBlocks).toBe(true);
    });

    it(`${id}: goldens cover every own conversation in every argument form`, () => {
      const dir = path.join(goldenRoot, id);
      for (const stem of ownStems) {
        for (const form of ARGUMENT_FORMS) {
          const base = path.join(dir, `${stem}.${form}`);
          const present = [existsSync(`${base}.txt`), existsSync(`${base}.error.txt`)].filter(Boolean).length;
          expect(present, `${base}: exactly one of .txt / .error.txt`).toBe(1);
          // deepseek-v3.2 refuses JSON-string arguments that its reference drops: no spans there (checked below).
          if (existsSync(`${base}.txt`) && !(id === 'deepseek-v3.2' && !existsSync(`${base}.spans.json`))) {
            expect(existsSync(`${base}.spans.json`), `${base}.spans.json`).toBe(true);
          }
        }
      }
    });
  }
});

describe.each(familyIds.map((id) => [id]))('family template %s vs jinja2 goldens', (id) => {
  const source = readFileSync(path.join(templatesDir, familyInfo[id].templateFile), 'utf8');
  const goldenDir = path.join(goldenRoot, id);

  for (const { stem, file } of conversations) {
    it(stem, () => {
      const template = compileTemplate(source, { name: id });
      const data = parsePythonJson(readFileSync(file, 'utf8')) as Obj;
      for (const form of ARGUMENT_FORMS) {
        const base = path.join(goldenDir, `${stem}.${form}`);
        const label = `${id} ${stem} --args ${form}`;
        const render = () => template.render(templateVariables(id, data, form), { now: NOW });
        if (existsSync(`${base}.error.txt`)) {
          expectSameError(render, readFileSync(`${base}.error.txt`, 'utf8'), id, `${label}: the official template fails, ours must too`);
          continue;
        }
        let official = readFileSync(`${base}.txt`, 'utf8');
        if (id === 'deepseek-v3.2' && dsmlStringArguments(templateVariables(id, data, form))) {
          expect(render, `${label}: JSON-string arguments are refused (the reference drops them)`).toThrow(DSML_STRING_ARGUMENTS);
          continue;
        }
        if (id === 'deepseek-v3.2' && dsmlPromptOpen(data)) {
          expect(official.endsWith(DSML_DUPLICATE_PROMPT(data)), `${label}: the reference repeats the prompt`).toBe(true);
          official = official.slice(0, -DSML_DUPLICATE_PROMPT(data).length);
        }
        const golden = JSON.parse(readFileSync(`${base}.spans.json`, 'utf8')) as { text: string; generation_spans: Array<[number, number]> };
        const result = render();
        expect(result.text, label).toBe(golden.text);
        const comparable = id === 'deepseek-v3.1' && Array.isArray(data.tools) && data.tools.length > 0 ? withoutToolPrompt(result.text) : result.text;
        expect(comparable, `${label}: equals the official output`).toBe(official);
        expect(result.generationSpans, `${label}: generation spans`).toEqual(toUtf16Spans(golden.text, golden.generation_spans));
      }
    });
  }
});

/**
 * The official template's failure (the golden records jinja2's exception, `TypeError: message`) against chatfmt's own
 * error (issue 16): a ChatfmtError, never any throw, of one of two shapes. Either this project's template rejects the
 * input on purpose (raise_exception: TEMPLATE_RAISED, the template's own reason as the message), or it fails where
 * jinja2 fails and the same way (TEMPLATE_RUNTIME or, for RecursionError, TEMPLATE_LIMIT, with the
 * golden's Python exception as pythonType). Either way one line that names the template.
 */
function expectSameError(render: () => unknown, golden: string, id: string, label: string): void {
  let thrown: unknown;
  try {
    render();
  } catch (error) {
    thrown = error;
  }
  expect(isChatfmtError(thrown), `${label}: a ChatfmtError, not ${String(thrown)}`).toBe(true);
  const error = thrown as { code: string; pythonType?: string; templateMessage?: string; message: string };
  expect(error.message.includes('\n'), `${label}: one line`).toBe(false);
  expect(error.message.startsWith(`${id}: `), `${label}: names the template: ${error.message}`).toBe(true);
  if (error.code === 'TEMPLATE_RAISED') {
    expect(error.pythonType, label).toBe('TemplateError');
    expect(error.templateMessage?.length, `${label}: says why`).toBeGreaterThan(10);
    expect(error.message.endsWith(error.templateMessage!), `${label}: ${error.message}`).toBe(true);
    return;
  }
  const colon = golden.indexOf(':');
  const pythonType = colon < 0 ? golden.trim() : golden.slice(0, colon);
  const code = pythonType === 'RecursionError' ? 'TEMPLATE_LIMIT' : 'TEMPLATE_RUNTIME';
  expect({ code: error.code, pythonType: error.pythonType }, `${label}: ${error.message}`).toEqual({ code, pythonType });
}
