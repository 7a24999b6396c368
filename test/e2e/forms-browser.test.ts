// The public form in real headless Chromium, as a person uses it: every field kind filled, the live preview appearing
// and changing, one invalid value (error summary shown and focused, values kept), fixed, sent, the download link
// awaited and the PDF read back with pdftotext; the same path with JavaScript off; axe-core finds no WCAG 2.1 A/AA
// violation on the form and its error state; the keyboard reaches every input and the send button.
// test-stores: once (the page in a browser; forms and records in both stores are tested by forms-api.test and forms-page.test).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { cleanup, OWNER_KEY, startServer, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { redPng } from '../helpers/render-jobs.js';
import { pdftotextLayout } from '../helpers/poppler.js';
import { createForm, everyKindDocument } from '../helpers/public-form.js';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { chooseImage, fillEveryKind, IDS, typeOver } from '../helpers/form-filling.js';
import { axeViolations } from '../helpers/axe.js';

type Json = Record<string, any>;

let server: RunningServer;
let api: ApiClient;
let browser: TestBrowser;
let form: Json;
const scratch = mkdtempSync(path.join(tmpdir(), 'quire-forms-browser-'));
const imageFile = path.join(scratch, 'logo.png');

test.before(async () => {
  writeFileSync(imageFile, await redPng());
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  form = await createForm(api, await everyKindDocument(api), { title: 'Order form', autoRender: true, submissionsPerMinute: 60 });
});

test.after(async () => {
  await browser?.close();
  await server?.stop();
  if (server) cleanup(server.dataDir);
  rmSync(scratch, { recursive: true, force: true });
});

const value = (page: Page, selector: string) => page.$eval(selector, (e) => (e as HTMLInputElement).value);

/** Sends the form with the button a person clicks, and returns the status of the page that comes back. */
async function send(page: Page): Promise<number> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click('button.primary')]);
  return response!.status();
}

/** Waits on the receipt page for the download link (the script polls, or the page refreshes itself), then downloads the PDF through the page. */
async function downloadFromReceipt(page: Page): Promise<Buffer> {
  assert.match(page.url(), new RegExp(`/f/${form.id}/r/[0-9a-f-]{36}\\?token=`));
  await page.waitForSelector('#download', { timeout: 45_000 });
  const href = await page.$eval('#download', (a) => (a as HTMLAnchorElement).href);
  const res = await fetch(href, { redirect: 'follow' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/pdf');
  return Buffer.from(await res.arrayBuffer());
}

async function checkPdf(bytes: Buffer, name: string): Promise<void> {
  const text = (await pdftotextLayout(bytes)).replace(/\s+/g, ' ');
  for (const expected of [`Order of ${name}`, 'Due 2026-05-01', 'Amount 42', 'Size L', 'Express Express delivery', 'Deliver to the back door', 'Plan', 'Ship', 'Desk', 'Lamp']) {
    assert.ok(text.includes(expected), `the PDF says "${expected}": ${text}`);
  }
  assert.not.ok(text.includes('Chair'), "the table's own row was replaced");
}

async function records(): Promise<Json[]> {
  return (await api.get(`/api/v1/dev/records?formId=${form.id}`)).body.items;
}

test('with JavaScript: every field filled, the live preview follows the typing, an error is fixed, and the PDF holds the values', async () => {
  const page = await browser.page(server.baseUrl);
  await page.goto(form.publicUrl);
  await page.waitForSelector('#preview-image:not([hidden])', { timeout: 20_000 });
  assert.is(await page.$('button[value=preview]:not([hidden])'), null, 'the preview button is hidden: the preview is live');
  assert.equal(await axeViolations(page), [], 'the form page');
  const src = await page.$eval('#preview-image', (img) => (img as HTMLImageElement).src);

  await fillEveryKind(page, true, imageFile, { name: 'Grace Hopper', amount: '5000' });
  assert.is(await page.$$eval('[data-row]', (rows) => rows.length), 2, 'a row added, another added and removed');
  await page.waitForFunction((before) => {
    const img = document.getElementById('preview-image') as HTMLImageElement;
    return img.src !== before && img.complete && img.naturalWidth > 0;
  }, { timeout: 20_000 }, src);
  assert.match(await page.$eval('#preview-image', (img) => (img as HTMLImageElement).src), /^blob:/);

  assert.is(await send(page), 422);
  assert.is(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'the summary has the focus');
  assert.is(await page.$eval('#error-summary a', (a) => [a.getAttribute('href'), a.textContent].join(' ')), '#f-3 Amount: enter a number of at most 1000.');
  assert.is(await value(page, IDS.name), 'Grace Hopper');
  assert.is(await value(page, IDS.amount), '5000');
  assert.is(await value(page, IDS.due), '2026-05-01');
  assert.is(await value(page, '#f-8-r1-c0'), 'Lamp');
  assert.ok(await page.$eval(IDS.express, (e) => (e as HTMLInputElement).checked));
  assert.match(await page.$eval('#f-6-help', (e) => e.textContent ?? ''), 'Choose the image again');
  assert.equal(await axeViolations(page), [], 'the error page');
  await page.click('#error-summary a');
  assert.is(await page.evaluate(() => document.activeElement?.id), 'f-3', 'the summary link leads to the field');

  await typeOver(page, IDS.amount, '42');
  await chooseImage(page, imageFile);
  assert.is(await send(page), 200);
  await checkPdf(await downloadFromReceipt(page), 'Grace Hopper');
  const record = (await records()).find((r) => r.values.client_name === 'Grace Hopper');
  assert.is(record?.values.logo.mimeType, 'image/png');
  await page.close();
});

test('without JavaScript: rows, the preview button, the error and the receipt work as plain form posts', async () => {
  const page = await browser.page(server.baseUrl, { javaScript: false });
  await page.goto(form.publicUrl);
  assert.ok(await page.$('#preview-image[hidden]'), 'no preview until asked for');
  await fillEveryKind(page, false, imageFile, { name: 'Alan Turing', amount: '-5' });
  const [shown] = await Promise.all([page.waitForNavigation(), page.click('button[value=preview]')]);
  assert.is(shown!.status(), 200);
  assert.match(await page.$eval('#preview-image', (img) => (img as HTMLImageElement).src), /^data:image\/png;base64,/);
  assert.is(await value(page, '#f-8-r1-c0'), 'Lamp', 'the rows are kept');

  await chooseImage(page, imageFile);
  assert.is(await send(page), 422);
  assert.is(await page.evaluate(() => document.activeElement?.id), 'error-summary', 'autofocus puts the summary first');
  assert.is(await value(page, IDS.name), 'Alan Turing');
  assert.is(await value(page, IDS.amount), '-5');

  await typeOver(page, IDS.amount, '42');
  await chooseImage(page, imageFile);
  assert.is(await send(page), 200);
  // A render that finished while the receipt was made shows its link at once; one still running refreshes the page.
  assert.ok((await page.$('#download')) || (await page.$('noscript')), 'the receipt shows the download or refreshes itself');
  await checkPdf(await downloadFromReceipt(page), 'Alan Turing');
  await page.close();
});

test('the keyboard alone reaches every input, the row buttons and the send button, in order', async () => {
  const page = await browser.page(server.baseUrl, { width: 390, height: 844 });
  await page.goto(form.publicUrl);
  const reached: string[] = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const here = await page.evaluate(() => {
      const e = document.activeElement as HTMLInputElement | null;
      return e ? `${e.tagName.toLowerCase()}:${e.name || e.id}:${e.getAttribute('value') ?? ''}` : '';
    });
    if (reached[reached.length - 1] !== here) reached.push(here);
    if (here === 'button:_action:submit') break;
  }
  const names = reached.map((r) => r.split(':')[1]);
  const expected = ['client_name', 'notes', 'due_date', 'amount', 'size', 'express', 'logo', 'tasks', 'lines[0][Item]', 'lines[0][Qty]', '_action'];
  assert.equal(names.filter((n) => expected.includes(n!)).filter((n, i, all) => all.indexOf(n) === i), expected, reached.join('\n'));
  assert.ok(reached.includes('button:_action:add-row:lines'), 'the add-row button');
  assert.ok(reached.includes('button:_action:remove-row:lines:0'), 'the remove-row button');
  assert.is(reached[reached.length - 1], 'button:_action:submit');
  assert.not.ok(reached.some((r) => r.includes('website')), 'the honeypot is not in the tab order');
  await page.close();
});

test.run();
