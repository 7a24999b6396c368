// The web console at /console: its files over HTTP (CSP, content types, caching), then in real headless Chromium a person
// signs in (a wrong key refused), types Markdown and sees the free page-1 preview change (credits unchanged), sees an error at its line and column,
// picks a style, downloads the PDF, saves a document the API then has, and an operator switches pdf-merge off and on (its route answers 404 PLUGIN_DISABLED between).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanup, OWNER_KEY, ROOT, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { assertDisabled, createOperatorKey, mergeAndCheck, MERGE, OPERATOR } from '../helpers/operator-api.js';
import { availableCredits, downloadedPdfText, previewAfter, replaceText, shownPreview, signIn } from '../helpers/console-page.js';
import { axeViolations } from '../helpers/axe.js';
import { meanDifference } from '../helpers/image-readers.js';

const API = '/api/v1/dev';
const dataDir = tempDir('quire-console-');

let server: RunningServer;
let browser: TestBrowser;
let owner: ApiClient;
let ops: ApiClient;
let operatorKey: { id: string; key: string };

test.before(async () => {
  operatorKey = await createOperatorKey(dataDir, 'Console operator');
  [server, browser] = await Promise.all([startServer({ dataDir }), launchBrowser()]);
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
  ops = new ApiClient(server.baseUrl, operatorKey.key);
});

test.after(async () => {
  await browser?.close();
  await server?.stop();
  cleanup(dataDir);
});

test('serves index.html with a strict CSP at /console and its app paths, and hashed assets with their type and a year of caching', async () => {
  const index = await owner.withKey(null).get('/console');
  assert.is(index.status, 200);
  assert.is(index.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = index.headers.get('content-security-policy')!;
  assert.match(csp, "script-src 'self'");
  assert.match(csp, "default-src 'none'");
  assert.not.match(csp, 'unsafe-inline');
  const html = index.bytes.toString();
  assert.not.match(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const style = /href="(\/console\/assets\/[^"]+\.css)"/.exec(html)?.[1];
  assert.ok(script && style, html);

  const js = await owner.withKey(null).get(script!);
  assert.is(js.status, 200);
  assert.is(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.is(Number(js.headers.get('content-length')), js.bytes.length);
  assert.is((await owner.withKey(null).get(style!)).headers.get('content-type'), 'text/css; charset=utf-8');

  // The app's own paths get the same page (a reload on /console/editor), not a 404.
  const deep = await owner.withKey(null).get('/console/plugins');
  assert.is(deep.status, 200);
  assert.equal(deep.bytes, index.bytes);
  for (const missing of ['/console/assets/nothing-here.js', '/console/assets/..%2f..%2fpackage.json', '/console/assets/index.html']) {
    const r = await owner.withKey(null).get(missing);
    assert.is(r.status, 404, missing);
    assert.is(r.body.code, 'NOT_FOUND');
  }
});

test('without a built console /console answers 503 with a page saying to run npm run build', async () => {
  // A checkout whose dist/ has everything but the console: the rest of the tree linked, dist/ copied without console/.
  const checkout = mkdtempSync(path.join(tmpdir(), 'quire-no-console-'));
  for (const name of readdirSync(ROOT)) if (!['dist', '.git', 'data'].includes(name)) symlinkSync(path.join(ROOT, name), path.join(checkout, name));
  const built = path.join(ROOT, 'dist');
  cpSync(built, path.join(checkout, 'dist'), { recursive: true, filter: (src) => path.relative(built, src).split(path.sep)[0] !== 'console' });
  const bare = await startServer({ main: path.join(checkout, 'dist/server/main.js') });
  try {
    const page = await fetch(`${bare.baseUrl}/console/editor`);
    assert.is(page.status, 503);
    assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.is(page.headers.get('cache-control'), 'no-store');
    assert.match(await page.text(), 'Run <code>npm run build</code>');
    assert.is((await fetch(`${bare.baseUrl}/console/assets/index.js`)).status, 404);
    // The API itself runs as ever.
    assert.is((await fetch(`${bare.baseUrl}/healthz`)).status, 200);
  } finally {
    await bare.stop();
    cleanup(bare.dataDir);
    rmSync(checkout, { recursive: true, force: true });
  }
});

test('a wrong key is refused with the API\'s 401 and nothing is kept', async () => {
  const page = await browser.page(server.baseUrl);
  await page.goto(`${server.baseUrl}/console`);
  await signIn(page, 'ak_NotAKeyOfThisServer0123456789abcdefghijklmnopqrstu');
  await page.waitForSelector('#sign-in-error');
  const message = await page.$eval('#sign-in-error', (e) => e.textContent!);
  assert.match(message, 'not accepted');
  assert.match(message, 'UNAUTHENTICATED');
  assert.equal(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie]), [0, 0, '']);
  assert.equal(await axeViolations(page), [], 'the sign-in page with its error meets WCAG 2.1 AA (axe-core)');
  await page.close();
});

test('the owner signs in, types Markdown and the preview changes, sees an error at its line and column, picks a style, saves a document, downloads the PDF and signs out', async () => {
  const page = await browser.page(server.baseUrl);
  await page.goto(`${server.baseUrl}/console`);
  await signIn(page, OWNER_KEY);
  await page.waitForSelector('#markdown');
  assert.is(new URL(page.url()).pathname, '/console/editor');
  // The key is in this tab's session storage only.
  assert.equal(await page.evaluate(() => [sessionStorage.getItem('quire.apiKey'), localStorage.length, document.cookie]), [OWNER_KEY, 0, '']);
  await page.waitForSelector('#credits');
  assert.match(await page.$eval('#credits', (e) => e.textContent!), /^\d+ credits$/);
  // A reload keeps the tab signed in (the key is read back from session storage and checked again).
  await page.reload();
  await page.waitForSelector('#markdown');
  // Operators' pages are not offered to an organization's key.
  assert.is(await page.$('a[href="/console/plugins"]'), null);

  const credits = await availableCredits(owner);
  const first = await previewAfter(page, null);
  const size = { width: first.pixels.width, height: first.pixels.height };
  assert.ok(size.width > 700 && size.width < 900 && size.height > size.width, JSON.stringify(size));

  // Typing at the end: a preview after the typing stops, a new page image. (Every prefix of the typed words shows on
  // the page, so even a preview of half of them on a slow machine is a different image.)
  await page.click('#markdown');
  await page.$eval('#markdown', (el) => (el as HTMLTextAreaElement).setSelectionRange(1e6, 1e6));
  await page.keyboard.type('Typed in the browser.');
  const second = await previewAfter(page, first.serial);
  assert.ok(meanDifference(first.pixels, second.pixels) > 0, 'the page image changed');
  assert.equal({ width: second.pixels.width, height: second.pixels.height }, size);
  assert.match(await page.$eval('#preview-status', (e) => e.textContent!), /Page 1 drawn in \d+ ms \(free preview\)/);

  // An unknown directive on line 3: shown at 3:1, the line number marked, the preview left as it was.
  const text = await page.$eval('#markdown', (e) => (e as HTMLTextAreaElement).value);
  await replaceText(page, '# Broken\n\n::frobnicate{x=1}\n');
  await page.waitForSelector('#errors li');
  const error = await page.$eval('#errors li', (e) => e.textContent!);
  assert.match(error, /^3:1 .*frobnicate.*\(INVALID_DIRECTIVE\)$/);
  assert.equal(await page.$$eval('.gutter .bad', (els) => els.map((e) => e.textContent)), ['3']);
  assert.equal(await axeViolations(page), [], 'the editor with its preview and an error meets WCAG 2.1 AA (axe-core)');
  assert.is((await shownPreview(page)).serial, second.serial);

  await replaceText(page, text);
  await page.waitForFunction(() => !document.querySelector('#errors'));
  const fixed = await previewAfter(page, second.serial);

  // A built-in style preset picked from the list GET /styles gives: the page is drawn again, in that style.
  const presets = (await owner.get(`${API}/styles?source=system`)).body.items;
  assert.ok(presets.length > 0);
  const preset = presets[presets.length - 1];
  await page.select('#style', preset.id);
  const styled = await previewAfter(page, fixed.serial);
  assert.ok(meanDifference(styled.pixels, fixed.pixels) > 0, `the ${preset.id} preset changed the page`);
  // Every preview so far was free.
  assert.is(await availableCredits(owner), credits, 'previews charge no credits');

  await page.click('#save');
  await page.waitForSelector('#saved-id');
  const id = await page.$eval('#saved-id', (e) => e.textContent!);
  assert.match(id, /^[0-9a-f-]{36}$/);
  const doc = await owner.get(`${API}/documents/${id}`);
  assert.is(doc.status, 200);
  assert.is(doc.body.id, id);
  assert.is(doc.body.stylePresetId, preset.id);
  const markdown = await owner.get(`${API}/documents/${id}/markdown`);
  assert.is(markdown.status, 200);
  assert.match(markdown.bytes.toString(), 'Typed in the browser.');

  // Download PDF: the whole document rendered (a billed job) and saved by the browser as a file, read back by pdftotext.
  const pdfText = await downloadedPdfText(page);
  assert.match(pdfText, 'Quarterly note, Q3');
  assert.match(pdfText, 'Typed in the browser.');

  await page.click('#sign-out');
  await page.waitForSelector('#api-key');
  assert.is(await page.evaluate(() => sessionStorage.getItem('quire.apiKey')), null);
  await page.close();
});

test('an operator key sees the Plugins page and switches pdf-merge off (404 PLUGIN_DISABLED) and on again, audited with the reasons', async () => {
  const page = await browser.page(server.baseUrl);
  await page.goto(`${server.baseUrl}/console/plugins`);
  await signIn(page, operatorKey.key);
  const row = '#plugin-pdf-merge';
  await page.waitForSelector(`${row}[data-state="enabled"]`);
  assert.is(await page.$('#markdown'), null, 'an operator key has no editor (its key renders nothing)');

  await page.type(`${row} .reason-input`, 'merge misbehaves');
  await page.click(`${row} .flip`);
  await page.waitForSelector(`${row}[data-state="disabled"]`);
  assert.equal(await axeViolations(page), [], 'the Plugins page meets WCAG 2.1 AA (axe-core)');
  assert.match(await page.$eval(`${row} .reason`, (e) => e.textContent!), `disabled by operator key ${operatorKey.id}`);
  assert.match(await page.$eval(`${row} .reason`, (e) => e.textContent!), 'merge misbehaves');
  assertDisabled(await owner.post(MERGE, { fileIds: [crypto.randomUUID(), crypto.randomUUID()] }), 'pdf-merge');

  await page.type(`${row} .reason-input`, 'fixed');
  await page.click(`${row} .flip`);
  await page.waitForSelector(`${row}[data-state="enabled"]`);
  await mergeAndCheck(owner);
  // The page's audit log shows both switches, newest first, with the key's name and the reasons.
  await page.waitForFunction(() => document.querySelectorAll('#audit tbody tr').length >= 2);
  const rows = await page.$$eval('#audit tbody tr', (trs) => trs.slice(0, 2).map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
  assert.equal(rows, [
    ['pdf-merge', 'on', 'Console operator', 'fixed'],
    ['pdf-merge', 'off', 'Console operator', 'merge misbehaves'],
  ]);

  const audit = await ops.get(`${OPERATOR}/audit`);
  assert.is(audit.status, 200);
  assert.equal(audit.body.items.slice(0, 2).map((e: any) => [e.action, e.pluginId, e.reason, e.keyId]), [
    ['plugin.enable', 'pdf-merge', 'fixed', operatorKey.id],
    ['plugin.disable', 'pdf-merge', 'merge misbehaves', operatorKey.id],
  ]);
  await page.close();
});

test.run();
