import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { tempDir } from '../helpers/tmp.js';
import { buildConformance, buildCore } from './bundle.js';
import { asJson, nodeBaseline } from './cases.js';
import type { ConformanceOutput } from './conformance.js';

// The browser bundle (dist/browser/chatfmt.js as `npm run build:browser` makes it) in headless Chromium: Debian's
// package, driven by puppeteer-core, with no browser download. A machine without it skips this suite and says so.
const title = hasChromium ? 'the core in headless Chromium' : `the core in headless Chromium: SKIPPED, ${CHROMIUM} not found (apt-get install chromium)`;

const MODULE_WORKER = `import * as chatfmt from './chatfmt.js';
import { runConformance } from './conformance.js';
self.onmessage = async () => {
  const input = await (await fetch('./input.json')).json();
  self.postMessage(runConformance(chatfmt, input));
};
`;

const CLASSIC_WORKER = `importScripts('./chatfmt.iife.js', './conformance.iife.js');
self.onmessage = async () => {
  const input = await (await fetch('./input.json')).json();
  self.postMessage(conformance.runConformance(chatfmt, input));
};
`;

// The page's own script: the test calls these through page.evaluate.
const INDEX_HTML = `<!doctype html><meta charset="utf-8"><title>chatfmt conformance</title>
<script type="module">
import * as chatfmt from './chatfmt.js';
import { runConformance } from './conformance.js';
const input = () => fetch('./input.json').then((response) => response.json());
window.inPage = async () => runConformance(chatfmt, await input());
window.inWorker = (file, type) => new Promise((resolve, reject) => {
  const worker = new Worker(file, { type });
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => reject(new Error('worker: ' + event.message));
  worker.postMessage('run');
});
window.ready = true;
</script>
`;

describe.skipIf(!hasChromium)(title, () => {
  const tmp = tempDir('chatfmt-chromium-');
  const site = tmp.path + '/site';
  let browser: import('puppeteer-core').Browser | undefined;
  let server: { origin: string; close(): Promise<void> } | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const built = buildCore(site);
    if (built.status !== 0) throw new Error(`build-browser failed: ${built.stderr}`);
    await buildConformance(site);
    writeFileSync(`${site}/input.json`, JSON.stringify(nodeBaseline().input));
    writeFileSync(`${site}/index.html`, INDEX_HTML);
    writeFileSync(`${site}/module-worker.js`, MODULE_WORKER);
    writeFileSync(`${site}/classic-worker.js`, CLASSIC_WORKER);
    const { serveFolder } = await import('./static-server.js');
    server = await serveFolder(site);
    browser = await launchChromium(`${tmp.path}/profile`);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function openPage() {
    const page = await browser!.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${server!.origin}/index.html`);
    await page.waitForFunction('window.ready === true');
    return page;
  }

  function expectSameAsNode(result: ConformanceOutput): void {
    const { output } = nodeBaseline();
    expect(result.globals).toEqual({ process: 'undefined', Buffer: 'undefined', require: 'undefined' });
    expect(result.render.length).toBe(output.render.length);
    expect(result.render).toEqual(asJson(output.render));
    expect(result.parse.length).toBe(output.parse.length);
    expect(result.parse).toEqual(asJson(output.parse));
    expect(pageErrors).toEqual([]);
  }

  it('in a page: render goldens, parse fixtures and stream = batch give what Node gives', async () => {
    const page = await openPage();
    const result = await page.evaluate('inPage()');
    expectSameAsNode(result as ConformanceOutput);
    await page.close();
  }, 300_000);

  for (const [kind, file, type] of [['a module Worker (chatfmt.js)', 'module-worker.js', 'module'], ['a classic Worker (chatfmt.iife.js)', 'classic-worker.js', 'classic']] as const) {
    it(`in ${kind}, where there is no process: the same`, async () => {
      const page = await openPage();
      const result = await page.evaluate(`inWorker(${JSON.stringify('./' + file)}, ${JSON.stringify(type)})`);
      expectSameAsNode(result as ConformanceOutput);
      await page.close();
    }, 300_000);
  }
});
