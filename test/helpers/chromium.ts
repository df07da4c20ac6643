import { existsSync } from 'node:fs';

// Debian's Chromium, driven by puppeteer-core with no browser download. Suites that need it skip without it and say so.
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** A headless Chromium with its profile in `profileDir`, no network services of its own. */
export async function launchChromium(profileDir: string): Promise<import('puppeteer-core').Browser> {
  const puppeteer = (await import('puppeteer-core')).default;
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profileDir}`,
    ],
  });
}
