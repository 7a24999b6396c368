// The web console (/console) driven in headless Chromium: signing in with a key, pasting text into the editor, reading
// the preview image the page shows, downloading the PDF it renders; and the balance its previews must leave alone.
import * as assert from 'uvu/assert';
import type { Page } from 'puppeteer-core';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePng, type Pixels } from './image-readers.js';
import { pdftotextLayout } from './poppler.js';
import type { ApiClient } from './api-client.js';

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

/**
 * The image the preview shows, as the page decoded it: drawn on a canvas in the page and exported as PNG, then read
 * here by an independent decoder. `serial` counts the previews the page has shown.
 */
export async function shownPreview(page: Page): Promise<{ serial: string; bytes: Buffer; pixels: Pixels }> {
  await page.waitForFunction(() => (document.querySelector('#preview') as HTMLImageElement | null)?.complete, { timeout: 10_000 });
  const [serial, dataUrl] = await page.$eval('#preview', (el) => {
    const img = el as HTMLImageElement;
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    canvas.getContext('2d')!.drawImage(img, 0, 0);
    return [img.getAttribute('data-serial')!, canvas.toDataURL('image/png')];
  });
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
  return { serial, bytes, pixels: decodePng(bytes) };
}

/** The preview once it is another than the one numbered `before` (null: the first). */
export async function previewAfter(page: Page, before: string | null): Promise<{ serial: string; bytes: Buffer; pixels: Pixels }> {
  await page.waitForFunction((b) => {
    const img = document.querySelector('#preview');
    return img !== null && img.getAttribute('data-serial') !== b;
  }, { timeout: 20_000 }, before).catch(async (err) => {
    throw new Error(`${err.message}; the preview says: ${await page.$eval('#preview-status', (e) => e.textContent).catch(() => 'nothing')}`);
  });
  return shownPreview(page);
}

/** The organization's available credits (GET /credits). */
export async function availableCredits(api: ApiClient): Promise<number> {
  const r = await api.get('/api/v1/dev/credits?limit=1');
  assert.is(r.status, 200);
  return r.body.available;
}

/** Clicks Download PDF, lets the browser save the file and gives its text (pdftotext). */
export async function downloadedPdfText(page: Page): Promise<string> {
  const downloads = mkdtempSync(path.join(tmpdir(), 'quire-console-downloads-'));
  try {
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.$eval('#pdf-status', (e) => (e.textContent = '')).catch(() => undefined);
    await page.click('#download-pdf');
    await page.waitForFunction(() => /^Downloaded /.test(document.querySelector('#pdf-status')?.textContent ?? ''), { timeout: 30_000 });
    const deadline = Date.now() + 15_000;
    while (!readdirSync(downloads).some((f) => f.endsWith('.pdf')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const file = readdirSync(downloads).find((f) => f.endsWith('.pdf'));
    assert.ok(file, `a PDF was downloaded: ${readdirSync(downloads).join(', ')}`);
    return (await pdftotextLayout(readFileSync(path.join(downloads, file!)))).replace(/\s+/g, ' ');
  } finally {
    rmSync(downloads, { recursive: true, force: true });
  }
}
