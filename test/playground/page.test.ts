import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTokenizer,
  detectFamily,
  detectVerdict,
  familyInfo,
  loadTemplate,
  messageTokenCounts,
  parse,
  render,
  renderConversation,
  type Conversation,
  type ParsedMessage,
} from '../../src/index.js';
import { hasChromium, CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { cliBundle } from '../helpers/cli-process.js';
import { repoRoot } from '../helpers/shared.js';
import { tempDir } from '../helpers/tmp.js';

// `chatfmt playground` as a real process on loopback, driven in headless Chromium: what the page shows must be what the
// library computes for the same input through its public API.
const title = hasChromium ? 'chatfmt playground in headless Chromium' : `chatfmt playground in headless Chromium: SKIPPED, ${CHROMIUM} not found (apt-get install chromium)`;

const TOOLS = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
];
const MESSAGES = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'hello world' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Oslo' } } }] },
  { role: 'tool', tool_call_id: 'call_1', content: '{"sky": "clear"}' },
  { role: 'assistant', content: 'Clear skies in Oslo.' },
  { role: 'user', content: 'And in Lyon?' },
];
const COMPLETION = '<think>\nThe user asks about Lyon.\n</think>\n\nChecking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>';
const TOKENIZER = join(repoRoot, 'fixtures/tokenizers/tiny-chatml/tokenizer.json');
const FOLDER_CONFIG = join(repoRoot, 'fixtures/models/qwen3-response-template/tokenizer_config.json');

type Page = import('puppeteer-core').Page;

describe.skipIf(!hasChromium)(title, () => {
  const tmp = tempDir('chatfmt-playground-');
  const shots = process.env.CHATFMT_PLAYGROUND_SHOTS ?? tmp.path;
  const bundle = cliBundle();
  let child: ChildProcess | undefined;
  let url = '';
  let browser: import('puppeteer-core').Browser | undefined;
  const pageErrors: string[] = [];
  const conversation: Conversation = { messages: MESSAGES as Conversation['messages'], tools: TOOLS as Conversation['tools'] };

  beforeAll(async () => {
    child = spawn(process.execPath, [await bundle(), 'playground', '--port', '0'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    url = await new Promise<string>((resolveUrl, rejectUrl) => {
      let out = '';
      child!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('\n')) resolveUrl(out.split('\n')[0]!);
      });
      child!.on('exit', (code) => rejectUrl(new Error(`chatfmt playground exited (${code}): ${stderr}`)));
    });
    browser = await launchChromium(`${tmp.path}/profile`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    child?.kill('SIGTERM');
  });

  async function open(address: string): Promise<Page> {
    const page = await browser!.newPage();
    await page.setViewport({ width: 1500, height: 1100 });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(address);
    await page.waitForFunction('document.body.dataset.ready === "1"');
    return page;
  }

  async function settle(page: Page): Promise<void> {
    await page.waitForFunction('document.body.dataset.pending === "0" && document.getElementById("share").textContent === "link up to date"');
  }

  async function replaceText(page: Page, selector: string, text: string): Promise<void> {
    // Typing a few characters fires real input events; the rest is set first so the test does not type kilobytes.
    await page.$eval(selector, (el, value) => ((el as unknown as { value: string }).value = value), text.slice(0, -3));
    await page.focus(selector);
    await page.keyboard.press('End');
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
    await page.type(selector, text.slice(-3));
  }

  async function upload(page: Page, file: string): Promise<void> {
    const picker = (await page.$('#files')) as unknown as { uploadFile(...paths: string[]): Promise<void> };
    await picker.uploadFile(file);
  }

  const texts = (page: Page, selector: string) => page.$$eval(selector, (els) => els.map((el) => el.textContent ?? ''));
  const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? '');

  function expectParsed(shown: { content: string; reasoning: string; names: string[]; args: string[] }, parsed: ParsedMessage): void {
    expect(shown.content).toBe(parsed.content ?? 'null');
    expect(shown.reasoning).toBe(parsed.reasoning_content ?? 'null');
    expect(shown.names).toEqual(parsed.tool_calls.map((call) => call.function.name));
    expect(shown.args).toEqual(parsed.tool_calls.map((call) => JSON.stringify(JSON.parse(call.function.arguments), null, 2)));
  }

  async function shownMessage(page: Page) {
    return {
      content: await text(page, '#parsed-content'),
      reasoning: await text(page, '#parsed-reasoning'),
      names: await texts(page, '#parsed-calls .call-name'),
      args: await texts(page, '#parsed-calls .call-args'),
    };
  }

  let linked = '';

  it('renders a typed conversation with its spans, counts tokens, detects, and parses a pasted completion', async () => {
    const page = await open(url);
    expect(await page.$eval('#family', (el) => (el as unknown as { value: string }).value)).toBe('qwen3');
    await replaceText(page, '#tools', JSON.stringify(TOOLS, null, 2));
    await replaceText(page, '#messages', JSON.stringify(MESSAGES, null, 2));
    await settle(page);

    const withPrompt = render({ family: 'qwen3', ...conversation, addGenerationPrompt: true });
    const withoutPrompt = render({ family: 'qwen3', ...conversation, addGenerationPrompt: false });
    expect(await text(page, '#prompt')).toBe(withPrompt.text);
    const assistantSpans = withPrompt.generationSpans.map(([start, end]) => withPrompt.text.slice(start, end));
    expect(assistantSpans.length).toBe(2);
    expect(await texts(page, '#prompt mark.assistant')).toEqual(assistantSpans);
    expect(withPrompt.text.startsWith(withoutPrompt.text)).toBe(true);
    expect(await texts(page, '#prompt mark.gen-prompt')).toEqual([withPrompt.text.slice(withoutPrompt.text.length)]);
    const specials = await texts(page, '#prompt .special');
    expect(specials.filter((token) => token === '<|im_start|>').length).toBe(withPrompt.text.split('<|im_start|>').length - 1);
    expect(specials.filter((token) => token === '<|im_end|>').length).toBe(withPrompt.text.split('<|im_end|>').length - 1);

    const verdict = detectVerdict(detectFamily(loadTemplate({ family: 'qwen3' })));
    expect(await text(page, '#detect .status')).toBe(verdict.status);
    expect(await text(page, '#detect .best')).toBe(verdict.best?.family);
    expect(await text(page, '#detect .reason')).toBe(verdict.reason);

    // tokenizer.json from the file picker (the drop zone's other door).
    await upload(page, TOKENIZER);
    await page.waitForSelector('#token-counts tr[data-row="total"]');
    await settle(page);
    const tokenizer = createTokenizer(JSON.parse(readFileSync(TOKENIZER, 'utf8')) as object);
    const counts = messageTokenCounts(loadTemplate({ family: 'qwen3' }), conversation, tokenizer, { addGenerationPrompt: true });
    expect(counts.total).toBe(tokenizer.encode(withPrompt.text).ids.length);
    const rows = await page.$$eval('#token-counts tr[data-row]', (els) => els.map((el) => [(el as unknown as { dataset: { row: string } }).dataset.row, el.querySelector('.count')?.textContent]));
    expect(rows).toEqual([
      ...counts.messages.map((span, i) => [String(i), String(span.tokens)]),
      ['generation-prompt', String(counts.generationPrompt!.tokens)],
      ['total', String(counts.total)],
    ]);

    await replaceText(page, '#completion', COMPLETION);
    await settle(page);
    await page.click('#parse-whole');
    const whole = parse(COMPLETION, { family: 'qwen3', tools: TOOLS as Conversation['tools'] });
    expect(whole.tool_calls.map((call) => call.function.name)).toEqual(['get_weather']);
    expectParsed(await shownMessage(page), whole);
    expect(await text(page, '#diagnostics')).toBe('');
    await page.screenshot({ path: join(shots, 'playground-parsed.png'), fullPage: true });
    linked = page.url();
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('replays the completion chunk by chunk and ends where the whole parse does', async () => {
    const page = await open(linked);
    await page.$eval('#chunk-size', (el) => ((el as unknown as { value: string }).value = '7'));
    await page.$eval('#chunk-size', (el) => el.dispatchEvent(new Event('change')));
    await settle(page);
    await page.click('#step');
    const chunks = Math.ceil(COMPLETION.length / 7);
    expect(await text(page, '#replay-status')).toBe(`chunk 1 of ${chunks}`);
    // After the first 7 characters ("<think>") nothing is final yet: no content, no call.
    expect(await texts(page, '#parsed-calls .call-name')).toEqual([]);
    for (let i = 1; i < 10; i++) await page.click('#step');
    await page.screenshot({ path: join(shots, 'playground-step-10.png'), fullPage: true });
    for (let i = 10; i < chunks; i++) await page.click('#step');
    expect(await text(page, '#replay-status')).toBe(`chunk ${chunks} of ${chunks}`);
    await page.click('#step');
    expect(await text(page, '#replay-status')).toBe(`finished: ${chunks} chunks of 7`);
    expectParsed(await shownMessage(page), parse(COMPLETION, { family: 'qwen3', tools: TOOLS as Conversation['tools'] }));
    await page.screenshot({ path: join(shots, 'playground-replayed.png'), fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('a link reproduces the state: same editors, same prompt, same parse', async () => {
    expect(linked).toContain('#');
    const page = await open(linked);
    expect(await page.$eval('#messages', (el) => (el as unknown as { value: string }).value)).toBe(JSON.stringify(MESSAGES, null, 2));
    expect(await page.$eval('#completion', (el) => (el as unknown as { value: string }).value)).toBe(COMPLETION);
    const withPrompt = render({ family: 'qwen3', ...conversation, addGenerationPrompt: true });
    expect(await text(page, '#prompt')).toBe(withPrompt.text);
    expectParsed(await shownMessage(page), parse(COMPLETION, { family: 'qwen3', tools: TOOLS as Conversation['tools'] }));
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('a dropped model folder is read as loadTemplate reads it, and detect judges it', async () => {
    const page = await open(linked);
    const folder = tmp.write('Qwen3-mini/tokenizer_config.json', readFileSync(FOLDER_CONFIG, 'utf8'));
    await upload(page, folder);
    await page.waitForFunction('document.getElementById("mode-folder").checked');
    await settle(page);
    const loaded = loadTemplate({ template: folder });
    const rendered = render({ template: folder, ...conversation, addGenerationPrompt: true });
    expect(await text(page, '#prompt')).toBe(rendered.text);
    const verdict = detectVerdict(detectFamily(loaded));
    expect(await text(page, '#detect .status')).toBe(verdict.status);
    expect(await text(page, '#detect .reason')).toBe(verdict.reason);
    await page.screenshot({ path: join(shots, 'playground-folder.png'), fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 120_000);
  it('the official template in the editor: an edit renders, detect judges the edited text', async () => {
    const page = await open(linked);
    await page.click('#load-official');
    await page.waitForFunction('document.getElementById("mode-text").checked');
    const official = await page.$eval('#template', (el) => (el as unknown as { value: string }).value);
    expect(official).toBe(loadTemplate({ family: 'qwen3' }).select(false).source);
    const edited = official.replace('# Tools', '# Your tools');
    expect(edited).not.toBe(official);
    await replaceText(page, '#template', edited);
    await settle(page);
    const loaded = { ...loadTemplate({ source: edited }), specialTokens: { ...familyInfo.qwen3.specialTokens } };
    const rendered = renderConversation(loaded, conversation, { addGenerationPrompt: true });
    expect(rendered.text).toContain('# Your tools');
    expect(await text(page, '#prompt')).toBe(rendered.text);
    const verdict = detectVerdict(detectFamily(loaded));
    expect(await text(page, '#detect .status')).toBe(verdict.status);
    expect(await text(page, '#detect .reason')).toBe(verdict.reason);
    await page.screenshot({ path: join(shots, 'playground-edited.png'), fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
