// Headless Chromium for tests of pages as people see them: Debian's `chromium` through puppeteer-core, with the flags
// plugins/html-to-pdf/browser-host.ts uses, and every request that is not to the loopback server refused.
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where Chromium is: QUIRE_TEST_CHROMIUM, else Debian's package (the html-to-pdf plugin's default). */
export const CHROMIUM = process.env.QUIRE_TEST_CHROMIUM ?? '/usr/bin/chromium';

export interface TestBrowser {
  browser: Browser;
  /** A new page whose requests may only go to `origin` (and blob:/data: URLs the page makes itself). */
  page(origin: string, options?: { javaScript?: boolean; width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quire-test-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    pipe: true,
    userDataDir: dir,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--lang=en-US'],
    env: { ...process.env, LANG: 'en_US.UTF-8' },
    timeout: 30_000,
    protocolTimeout: 60_000,
  });
  return {
    browser,
    async page(origin, options = {}) {
      const page = await browser.newPage();
      await page.setViewport({ width: options.width ?? 1280, height: options.height ?? 900 });
      await page.setJavaScriptEnabled(options.javaScript ?? true);
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        const url = req.url();
        if (url.startsWith(`${origin}/`) || url.startsWith('blob:') || url.startsWith('data:')) void req.continue();
        else void req.abort('blockedbyclient');
      });
      return page;
    },
    async close() {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
