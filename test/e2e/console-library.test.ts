// The web console's Library and editor in real headless Chromium: a stored document opened from the Library, edited with
// the free preview changing (credits unchanged), a variable typed in the panel and a block inserted at the caret, saved
// back (version 2, read through the API), its PDF carrying the variable's value; a catalog template opened as a new
// document, a workspace style picked from the Styles list.
// test-stores: once (the console in a browser; documents' Markdown read and written back, blocks and styles are tested on both stores by documents.test, blocks.test and styles.test, and console.test runs on both).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { availableCredits, downloadedPdfText, previewAfter, signIn } from '../helpers/console-page.js';
import { axeViolations } from '../helpers/axe.js';
import { meanDifference } from '../helpers/image-readers.js';

const API = '/api/v1/dev';
const dataDir = tempDir('quire-console-library-');

let server: RunningServer;
let browser: TestBrowser;
let owner: ApiClient;

test.before(async () => {
  [server, browser] = await Promise.all([startServer({ dataDir }), launchBrowser()]);
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await browser?.close();
  await server?.stop();
  cleanup(dataDir);
});

test('the Library opens a stored document in the editor; an edit and a variable change the free preview, Save writes it back, and the PDF has the variable', async () => {
  const stored = await owner.post(`${API}/documents/markdown`, { name: 'Library letter', content: '---\nvariables:\n  client: ACME\n---\n\n# Letter for {{client}}\n\nBody text.\n' });
  assert.is(stored.status, 201);
  const id = stored.body.id;
  const block = await owner.post(`${API}/reusable-blocks`, { name: 'Console footer', title: 'Footer', markdown: 'Signed in the console.' });
  assert.is(block.status, 201);
  assert.is((await owner.post(`${API}/reusable-blocks/${block.body.id}/status`, { status: 'ACTIVE' })).status, 200);

  const page = await browser.page(server.baseUrl);
  await page.goto(`${server.baseUrl}/console`);
  await signIn(page, OWNER_KEY);
  await page.waitForSelector('#markdown');
  await page.click('a[href="/console/library"]');
  await page.waitForSelector(`#library-list tr[data-id="${id}"]`);
  // The search narrows the list to the names that match.
  await page.type('#library-search', 'library lett');
  assert.equal(await page.$$eval('#library-list tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-id'))), [id]);
  assert.equal(await axeViolations(page), [], 'the Library meets WCAG 2.1 AA (axe-core)');
  await page.click(`#library-list tr[data-id="${id}"] button.open`);
  await page.waitForSelector('#markdown');
  assert.is(new URL(page.url()).pathname, '/console/editor');
  assert.match(await page.$eval('#editing', (e) => e.textContent!), /Editing document Library letter \(version 1\)/);
  assert.match(await page.$eval('#markdown', (e) => (e as HTMLTextAreaElement).value), '# Letter for {{client}}');

  const credits = await availableCredits(owner);
  const opened = await previewAfter(page, null);
  await page.click('#markdown');
  await page.$eval('#markdown', (el) => (el as HTMLTextAreaElement).setSelectionRange(1e6, 1e6));
  await page.keyboard.type('Edited in the console.');
  const edited = await previewAfter(page, opened.serial);
  assert.ok(meanDifference(opened.pixels, edited.pixels) > 0, 'the edit shows on the page');

  // The variables panel lists the front matter's variable with its value as the placeholder; a value typed is drawn.
  const input = '#variables [data-variable="client"] input';
  assert.is(await page.$eval(input, (e) => (e as HTMLInputElement).placeholder), 'ACME');
  await page.type(input, 'Globex Corporation');
  const withValue = await previewAfter(page, edited.serial);
  assert.ok(meanDifference(edited.pixels, withValue.pixels) > 0, 'the variable\'s value shows on the page');

  // A block from the picker goes in at the caret (the end) as its reference.
  await page.select('#insert-block', block.body.id);
  await page.waitForFunction((b) => (document.querySelector('#markdown') as HTMLTextAreaElement).value.includes(`::block{id=${b}}`), {}, block.body.id);
  await previewAfter(page, withValue.serial);
  assert.is(await availableCredits(owner), credits, 'previews charge no credits');

  await page.click('#save-back');
  await page.waitForSelector('#saved-version');
  assert.is(await page.$eval('#saved-version', (e) => e.textContent), '2');
  assert.match(await page.$eval('#editing', (e) => e.textContent!), '(version 2)');
  const back = await owner.get(`${API}/documents/${id}/markdown`);
  assert.is(back.status, 200);
  assert.is(back.body.version, 2);
  assert.match(back.body.markdown, 'Edited in the console.');
  assert.match(back.body.markdown, `::block{id=${block.body.id}`);
  // The panel's value goes with renders, not into the document: its front matter keeps ACME.
  assert.match(back.body.markdown, 'client: ACME');

  const pdfText = await downloadedPdfText(page);
  assert.match(pdfText, 'Letter for Globex Corporation');
  assert.match(pdfText, 'Signed in the console.');

  // A catalog template opens as a new, unsaved document; a workspace style from the Styles list styles the editor.
  const style = await owner.post(`${API}/styles`, { name: 'Console serif', definition: { fonts: { family: 'Noto Serif' } } });
  await page.click('a[href="/console/library"]');
  await page.waitForSelector('#tab-templates');
  await page.click('#tab-templates');
  const template = (await owner.get(`${API}/templates?scope=catalog&limit=1`)).body.items[0];
  await page.waitForSelector(`#library-list tr[data-id="${template.id}"]`);
  await page.click(`#library-list tr[data-id="${template.id}"] button.open`);
  await page.waitForSelector('#editing');
  assert.match(await page.$eval('#editing', (e) => e.textContent!), `New document from template ${template.name}`);
  assert.is(await page.$('#save-back'), null);
  assert.is(style.status, 201, JSON.stringify(style.body));
  {
    await page.click('a[href="/console/library"]');
    await page.waitForSelector('#tab-styles');
    await page.click('#tab-styles');
    await page.waitForSelector(`#library-list tr[data-id="${style.body.id}"]`);
    await page.click(`#library-list tr[data-id="${style.body.id}"] button.open`);
    await page.waitForSelector('#style');
    await page.waitForFunction((sid) => (document.querySelector('#style') as HTMLSelectElement).value === sid, {}, style.body.id);
  }
  await page.close();
});

test.run();
