import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyIds, familyInfo, render } from '../../src/index.js';
import { repoRoot } from '../helpers/shared.js';

// Issue 18 (start-up): the CLI's bundles come with the parsed form of each family template (dist/bin/template-forms/,
// written by scripts/bundle-cli.mjs) and what `--args auto` probing finds in it, so `chatfmt render --family F`
// builds the template without lexing and parsing it and does not probe it. Checked in real processes on a package
// laid out as npm installs it. The forms are files of the package, but read as untrusted: a missing, damaged or
// foreign one must leave the output as it is.

let pkg = '';
let forms = '';
const weather = join(repoRoot, 'fixtures', 'conversations', 'weather.json');
/** The weather conversation as `--args auto` has to adapt it the other way: arguments an object, content null. */
let weatherObjects = '';

beforeAll(() => {
  // Inside node_modules, so the bundles' external dependencies resolve as they do in an installed package.
  pkg = mkdtempSync(join(repoRoot, 'node_modules', '.chatfmt-forms-test-'));
  cpSync(join(repoRoot, 'bin'), join(pkg, 'bin'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'chatfmt', type: 'module' }));
  symlinkSync(join(repoRoot, 'templates'), join(pkg, 'templates'));
  const built = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'bundle-cli.mjs'), '--outdir', join(pkg, 'dist', 'bin')], { cwd: repoRoot, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bundle-cli failed: ${built.stderr}`);
  forms = join(pkg, 'dist', 'bin', 'template-forms');
  const conversation = JSON.parse(readFileSync(weather, 'utf8')) as { messages: Array<{ content?: unknown; tool_calls?: Array<{ function: { arguments: unknown } }> }> };
  for (const message of conversation.messages) {
    if (!message.tool_calls) continue;
    message.content = null;
    for (const call of message.tool_calls) call.function.arguments = JSON.parse(call.function.arguments as string);
  }
  weatherObjects = join(pkg, 'weather-objects.json');
  writeFileSync(weatherObjects, JSON.stringify(conversation));
}, 120_000);

afterAll(() => {
  if (pkg) rmSync(pkg, { recursive: true, force: true });
});

function chatfmt(argv: string[]) {
  const result = spawnSync(process.execPath, [join(pkg, 'bin', 'chatfmt.js'), ...argv], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, CHATFMT_CODE_CACHE: '0' },
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

const formOf = (family: (typeof familyIds)[number]) => join(forms, `${familyInfo[family].templateFile}.json`);
const expected = (family: string, file = weather) => render({ family, ...JSON.parse(readFileSync(file, 'utf8')) }).text;

/** Runs `chatfmt render --family qwen3` with qwen3's form replaced by `replace`, then puts the form back. */
function withQwen3Form(replace: (file: string) => void) {
  const file = formOf('qwen3');
  const original = readFileSync(file);
  try {
    replace(file);
    return chatfmt(['render', '--family', 'qwen3', weather]);
  } finally {
    rmSync(file, { recursive: true, force: true });
    writeFileSync(file, original);
  }
}

describe('the parsed family templates beside the CLI bundle', () => {
  it('are there for every family, and every family renders as the library, which parses and probes, renders it', () => {
    // Each conversation needs the other argument form and content handling from `--args auto`: a probe result the
    // bundle got wrong would change the text.
    for (const family of familyIds) {
      expect(existsSync(formOf(family)), family).toBe(true);
      for (const file of [weather, weatherObjects]) {
        const { code, out } = chatfmt(['render', '--family', family, file]);
        expect([family, file, code, out]).toEqual([family, file, 0, expected(family, file)]);
      }
    }
  });

  it('are what `render --family` builds the template from', () => {
    // qwen3's form with the first text of its tree changed, nothing else: the output follows the form, so it was read.
    const edit = (form: string) => form.replace(/("ast":.*?)<\|im_start\|>/s, '$1<|IM_START|>');
    const { code, out } = withQwen3Form((file) => writeFileSync(file, edit(readFileSync(file, 'utf8'))));
    expect(code).toBe(0);
    expect(out).not.toBe(expected('qwen3'));
    expect(out.replace('<|IM_START|>', '<|im_start|>')).toBe(expected('qwen3'));
  });

  it('leave the output as it is when missing, damaged or made from another template', () => {
    const glmForm = readFileSync(formOf('glm-4.5'));
    const damaged: Array<[string, (file: string) => void]> = [
      ['missing', (file) => rmSync(file)],
      ['empty', (file) => writeFileSync(file, '')],
      ['not JSON', (file) => writeFileSync(file, 'garbage \u0000\uffff')],
      ['cut in half', (file) => writeFileSync(file, readFileSync(file).subarray(0, 4000))],
      ["another template's", (file) => writeFileSync(file, glmForm)],
      ['a tree of the wrong shape', (file) => writeFileSync(file, readFileSync(file, 'utf8').replace('"k":"text"', '"k":"textual"'))],
      ['a folder', (file) => (rmSync(file), mkdirSync(file))],
    ];
    for (const [label, replace] of damaged) {
      const { code, out, err } = withQwen3Form(replace);
      expect([label, code, err, out]).toEqual([label, 0, '', expected('qwen3')]);
    }
  });
});
