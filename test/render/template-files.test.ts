import { spawnSync } from 'node:child_process';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../../src/cli/memory-io.js';
import { run } from '../../src/cli/main.js';
import { loadTemplate, renderConversation, type ChatfmtError } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

// Issue 17: template files are read as untrusted input, whatever kind of file the path names.
const dir = tempDir();
const chat = { messages: [{ role: 'user', content: 'hi' }] };

function failure(load: () => unknown): { code: string; message: string } {
  try {
    load();
  } catch (error) {
    return { code: (error as ChatfmtError).code, message: (error as Error).message };
  }
  return { code: 'no error', message: '' };
}

async function cli(argv: string[]): Promise<{ code: number; err: string }> {
  const io = memoryIO('{"messages": []}', dir.path);
  const code = await run(argv, io);
  return { code, err: io.err() };
}

const fifo = dir.path + '/template.fifo';
const hasFifo = spawnSync('mkfifo', [fifo]).status === 0;

describe('files that are not regular files', () => {
  // Before: readFileSync waited for a writer forever.
  it.skipIf(!hasFifo)('refuses a FIFO at once instead of blocking', () => {
    expect(failure(() => loadTemplate({ template: fifo }))).toEqual({
      code: 'TEMPLATE_SOURCE',
      message: `${fifo}: not a regular file (a FIFO), expected a template file`,
    });
  });

  it.skipIf(!hasFifo)('render --template FIFO is one line and exit 2', async () => {
    expect(await cli(['render', '--template', fifo, '-'])).toEqual({ code: 2, err: `chatfmt: ${fifo}: not a regular file (a FIFO), expected a template file\n` });
  });

  // Before: stat said 0 bytes, so the size check passed and readFileSync read without end.
  it.skipIf(!existsSync('/dev/zero'))('refuses a device', () => {
    expect(failure(() => loadTemplate({ template: '/dev/zero' }))).toEqual({
      code: 'TEMPLATE_SOURCE',
      message: '/dev/zero: not a regular file (a device), expected a template file',
    });
  });

  it.skipIf(!hasFifo)('refuses a FIFO standing for tokenizer_config.json in a model folder', () => {
    const model = dir.path + '/fifo-model';
    dir.write('fifo-model/chat_template.jinja', 'T');
    expect(spawnSync('mkfifo', [model + '/tokenizer_config.json']).status).toBe(0);
    expect(failure(() => loadTemplate({ template: model })).message).toBe(`${model}/tokenizer_config.json: not a regular file (a FIFO), expected a tokenizer config file`);
  });
});

describe('paths that lead nowhere', () => {
  it('names a symlink loop as such (it was "no such file")', async () => {
    const a = dir.path + '/loop-a.jinja';
    symlinkSync(dir.path + '/loop-b.jinja', a);
    symlinkSync(a, dir.path + '/loop-b.jinja');
    expect(failure(() => loadTemplate({ template: a }))).toEqual({ code: 'TEMPLATE_SOURCE', message: `${a}: symlink loop (too many levels of symbolic links)` });
    expect((await cli(['detect', a])).err).toBe(`chatfmt: ${a}: symlink loop (too many levels of symbolic links)\n`);
  });

  // Before: existsSync said false, so a looping tokenizer_config.json was skipped: "no chat template found" alone, and
  // next to a chat_template.jinja the config's special tokens were silently dropped from the render.
  it('names a symlink loop inside a model folder as such, not as a missing file', async () => {
    const model = dir.path + '/loop-model';
    dir.write('loop-model/chat_template.jinja', '{{ bos_token }}{{ messages[0].content }}');
    symlinkSync(model + '/tokenizer_config.json', model + '/tokenizer_config.json');
    const message = `${model}/tokenizer_config.json: symlink loop (too many levels of symbolic links)`;
    expect(failure(() => loadTemplate({ template: model }))).toEqual({ code: 'TEMPLATE_SOURCE', message });
    expect(await cli(['render', '--template', model, '-'])).toEqual({ code: 2, err: `chatfmt: ${message}\n` });
  });

  it('still says "no such file or folder" for a missing path', () => {
    expect(failure(() => loadTemplate({ template: dir.path + '/missing.jinja' })).message).toBe(`${dir.path}/missing.jinja: no such file or folder`);
  });
});

describe('size', () => {
  it('refuses a template file over 4 MiB, counted in bytes read', () => {
    const big = dir.write('big.jinja', '');
    writeFileSync(big, 'x'.repeat(4 * 1024 * 1024 + 1));
    expect(failure(() => loadTemplate({ template: big }))).toEqual({ code: 'INPUT_TOO_LARGE', message: `${big}: template is over 4194304 bytes, the limit` });
  });

  it('reads a template of exactly 4 MiB', () => {
    const edge = dir.write('edge.jinja', '');
    writeFileSync(edge, 'y'.repeat(4 * 1024 * 1024));
    expect(renderConversation(loadTemplate({ template: edge }), chat).text.length).toBe(4 * 1024 * 1024);
  });
});

describe('template names that are Object.prototype names', () => {
  const config = dir.write('named/tokenizer_config.json', JSON.stringify({
    chat_template: [
      { name: 'default', template: 'DEFAULT' },
      { name: '__proto__', template: 'PROTO' },
    ],
  }));

  // Before: "toString" was found `in` the object and its function handed to the compiler: an internal error.
  for (const name of ['toString', 'constructor', 'hasOwnProperty', 'valueOf']) {
    it(`--template-name ${name} is a clean TEMPLATE_SOURCE error`, () => {
      expect(failure(() => loadTemplate({ template: config, templateName: name }))).toEqual({
        code: 'TEMPLATE_SOURCE',
        message: `${config}: no chat template named "${name}" (available: default, __proto__)`,
      });
    });
  }

  it('render --template-name toString says so in one line, exit 2', async () => {
    expect(await cli(['render', '--template', config, '--template-name', 'toString', '-'])).toEqual({
      code: 2,
      err: `chatfmt: ${config}: no chat template named "toString" (available: default, __proto__)\n`,
    });
  });

  it('a template named __proto__ is a template like any other', () => {
    expect(renderConversation(loadTemplate({ template: config, templateName: '__proto__' }), chat).text).toBe('PROTO');
  });

  it('an additional_chat_templates/__proto__.jinja file too', () => {
    dir.write('proto-model/chat_template.jinja', 'MAIN');
    dir.write('proto-model/additional_chat_templates/__proto__.jinja', 'EXTRA');
    expect(renderConversation(loadTemplate({ template: dir.path + '/proto-model', templateName: '__proto__' }), chat).text).toBe('EXTRA');
  });

  // Each file was capped at 4 MiB, their number and sum not: a folder of thousands of such files was read whole.
  it('additional_chat_templates/ past 256 templates, or past 4 MiB together, is one INPUT_TOO_LARGE line', async () => {
    dir.write('many-model/chat_template.jinja', 'MAIN');
    for (let k = 0; k < 257; k++) dir.write(`many-model/additional_chat_templates/t${k}.jinja`, `T${k}`);
    expect(failure(() => loadTemplate({ template: dir.path + '/many-model' }))).toEqual({
      code: 'INPUT_TOO_LARGE',
      message: `${dir.path}/many-model/additional_chat_templates: 257 templates, over the limit of 256`,
    });
    dir.write('big-model/chat_template.jinja', 'MAIN');
    for (const name of ['a', 'b', 'c']) dir.write(`big-model/additional_chat_templates/${name}.jinja`, 'x'.repeat(2 * 1024 * 1024));
    const { code, err } = await cli(['render', '--template', dir.path + '/big-model', '-']);
    expect(code).toBe(2);
    expect(err).toBe(`chatfmt: ${dir.path}/big-model/additional_chat_templates: its templates together are over 4194304 bytes, the limit for one template\n`);
    // 256 small ones are a folder like any other.
    dir.write('ok-model/chat_template.jinja', 'MAIN');
    for (let k = 0; k < 256; k++) dir.write(`ok-model/additional_chat_templates/t${k}.jinja`, `T${k}`);
    expect(renderConversation(loadTemplate({ template: dir.path + '/ok-model', templateName: 't255' }), chat).text).toBe('T255');
  });
});
