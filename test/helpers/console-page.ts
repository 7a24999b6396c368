// The web console (/console) driven in headless Chromium: signing in with a key, pasting text into the editor.
import type { Page } from 'puppeteer-core';

/** Types `key` into the sign-in form (emptied first) and sends it. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.waitForSelector('#api-key');
  await page.$eval('#api-key', (el) => ((el as HTMLInputElement).value = ''));
  await page.type('#api-key', key);
  await page.click('#sign-in');
}

/** Replaces the editor's text as a paste would (one input event). */
export async function replaceText(page: Page, text: string): Promise<void> {
  await page.$eval('#markdown', (el, value) => {
    const area = el as HTMLTextAreaElement;
    area.value = value;
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
}
