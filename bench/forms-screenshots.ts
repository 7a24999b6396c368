// `npm run docs:forms-screenshots`: the public form page in headless Chromium at phone (390 × 844) and desktop
// (1280 × 900) widths, and its error state, saved as docs/forms-phone.png, docs/forms-desktop.png, docs/forms-errors.png.
import path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cleanup, OWNER_KEY, ROOT, startServer } from '../test/helpers/quire-server.js';
import { ApiClient } from '../test/helpers/api-client.js';
import { redPng } from '../test/helpers/render-jobs.js';
import { createForm, everyKindDocument } from '../test/helpers/public-form.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { fillEveryKind } from '../test/helpers/form-filling.js';

const DOCS = path.join(ROOT, 'docs');

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'quire-forms-shots-'));
  const imageFile = path.join(scratch, 'logo.png');
  writeFileSync(imageFile, await redPng());
  const server = await startServer();
  const browser = await launchBrowser();
  try {
    const api = new ApiClient(server.baseUrl, OWNER_KEY);
    const form = await createForm(api, await everyKindDocument(api), {
      title: 'Order form',
      description: 'Tell us what you need; the preview shows your order as it will be printed.',
      autoRender: true,
    });
    for (const [file, width, height] of [['forms-desktop.png', 1280, 900], ['forms-phone.png', 390, 844]] as const) {
      const page = await browser.page(server.baseUrl, { width, height });
      await page.goto(form.publicUrl);
      await page.waitForSelector('#preview-image:not([hidden])', { timeout: 20_000 });
      await page.screenshot({ path: path.join(DOCS, file), fullPage: true });
      console.log(`docs/${file}`);
      await page.close();
    }
    const page = await browser.page(server.baseUrl, { width: 1280, height: 900 });
    await page.goto(form.publicUrl);
    await fillEveryKind(page, true, imageFile, { name: 'Grace Hopper', amount: '5000' });
    await typeNothingInName(page);
    await Promise.all([page.waitForNavigation(), page.click('button.primary')]);
    await page.waitForSelector('#preview-image:not([hidden])', { timeout: 20_000 });
    await page.screenshot({ path: path.join(DOCS, 'forms-errors.png'), fullPage: true });
    console.log('docs/forms-errors.png');
  } finally {
    await browser.close();
    await server.stop();
    cleanup(server.dataDir);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A second error for the picture: the required name left empty. */
async function typeNothingInName(page: import('puppeteer-core').Page): Promise<void> {
  await page.focus('#f-0');
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
}

await main();
