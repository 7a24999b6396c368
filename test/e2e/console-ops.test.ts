// The web console's operations pages in real headless Chromium: a job rendered through the API reaches COMPLETED on
// the Jobs page and downloads (read back by pdftotext), its charge is on the Credits page's ledger, an API key is
// created (shown once) and revoked (then refused with 401), a webhook endpoint pointed at a loopback receiver logs a
// delivery and redelivers it, and a member key is told these pages are for owners and admins. Every page axe-clean.
// test-stores: once (the pages in a browser; GET /jobs on both stores is tested by job-list.test and the store conformance).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'puppeteer-core';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { signIn } from '../helpers/console-page.js';
import { axeViolations } from '../helpers/axe.js';
import { pdftotextLayout } from '../helpers/poppler.js';
import { receiver, until, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const API = '/api/v1/dev';
const dataDir = tempDir('quire-console-ops-');

let server: RunningServer;
let browser: TestBrowser;
let owner: ApiClient;
let hook: WebhookReceiver;

test.before(async () => {
  // Webhooks to a loopback http receiver: allowed only with private networks allowed (development).
  [server, browser, hook] = await Promise.all([startServer({ dataDir, env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } }), launchBrowser(), receiver(200)]);
  owner = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await browser?.close();
  await server?.stop();
  await hook?.close();
  cleanup(dataDir);
});

/** A page signed in with `key` at /console/<path>. */
async function open(key: string, to: string): Promise<Page> {
  const page = await browser.page(server.baseUrl);
  await page.goto(`${server.baseUrl}/console/${to}`);
  await signIn(page, key);
  return page;
}

/** Goes to another page of the console by its header link (as a person would), keeping the session. */
async function nav(page: Page, to: string): Promise<void> {
  await page.click(`header a[href="/console/${to}"]`);
  await page.waitForFunction((p) => location.pathname === `/console/${p}`, {}, to);
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => (e as HTMLElement).innerText);

test('a render made through the API reaches COMPLETED on the Jobs page, downloads as its PDF, and its charge is on the ledger', async () => {
  // Made just before the page opens: the page shows it unfinished and polls until it ends.
  const created = await owner.post(`${API}/render/markdown`, { content: '# From the API\n\nShown on the Jobs page.\n' });
  assert.is(created.status, 202, created.bytes.toString());
  const jobId = created.body.jobId as string;
  const page = await open(OWNER_KEY, 'jobs');
  await page.waitForSelector('section.jobs h1');
  assert.match(await text(page, 'section.jobs h1'), 'Jobs');
  const row = `#job-${jobId}`;
  await page.waitForSelector(`${row}[data-status="COMPLETED"]`, { timeout: 20_000 });
  assert.match(await text(page, row), 'render.pdf');
  assert.equal(await axeViolations(page, ['color-contrast', 'select-name']), [], 'the Jobs page meets WCAG 2.1 AA (axe-core)');

  // The filters: kind "tools" hides the render; status COMPLETED shows it again.
  await page.select('#job-kind', 'tools');
  await page.waitForFunction((sel) => !document.querySelector(sel), {}, row);
  await page.select('#job-kind', '');
  await page.select('#job-status', 'COMPLETED');
  await page.waitForSelector(row);

  const downloads = mkdtempSync(path.join(tmpdir(), 'quire-console-ops-downloads-'));
  try {
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.click(`${row} a.download`);
    await until(() => readdirSync(downloads).some((f) => f.endsWith('.pdf')), 15_000);
    const file = readdirSync(downloads).find((f) => f.endsWith('.pdf'))!;
    assert.match(await pdftotextLayout(readFileSync(path.join(downloads, file))), 'Shown on the Jobs page.');
  } finally {
    rmSync(downloads, { recursive: true, force: true });
  }

  await nav(page, 'credits');
  await page.waitForSelector(`#ledger tr[data-job-id="${jobId}"]`);
  const entry = await page.$eval(`#ledger tr[data-job-id="${jobId}"]`, (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
  const credits = (await owner.get(`${API}/credits`)).body;
  const ledger = credits.entries.find((e: any) => e.jobId === jobId);
  assert.equal(entry.slice(1, 5), ['charge', String(ledger.amount), String(ledger.balanceAfter), 'render.pdf']);
  assert.is(await text(page, '#balance'), String(credits.balance));
  assert.equal(await axeViolations(page, ['color-contrast']), [], 'the Credits page meets WCAG 2.1 AA (axe-core)');
  await page.close();
});

test('the owner creates an API key, shown once with a warning, and revokes it after confirming; the key then gets 401', async () => {
  const page = await open(OWNER_KEY, 'keys');
  await page.waitForSelector('#keys');
  await page.type('#key-name', 'Console-made key');
  await page.select('#key-role', 'member');
  await page.click('#create-key');
  await page.waitForSelector('#new-key');
  const key = await page.$eval('#new-key', (e) => (e as HTMLInputElement).value);
  assert.match(key, /^ak_/);
  assert.match(await text(page, '.shown-once'), 'shown this once');
  assert.equal(await axeViolations(page), [], 'the API keys page with a new key meets WCAG 2.1 AA (axe-core)');
  assert.is((await owner.withKey(key).get(`${API}/jobs`)).status, 200, 'the new key works');

  // Once dismissed it is gone from the page; the list shows only its start.
  await page.click('.shown-once .done');
  await page.waitForFunction(() => !document.querySelector('#new-key'));
  assert.not.match(await page.content(), key);
  const id = (await owner.get(`${API}/api-keys`)).body.items.find((k: any) => k.name === 'Console-made key').id;
  const row = `#key-${id}`;
  await page.click(`${row} .revoke`);
  await page.waitForSelector(`${row} .confirm-revoke`);
  assert.is((await owner.withKey(key).get(`${API}/jobs`)).status, 200, 'asking to confirm revokes nothing');
  await page.click(`${row} .confirm-revoke`);
  await page.waitForSelector(`${row}[data-revoked="true"]`);
  const refused = await owner.withKey(key).get(`${API}/jobs`);
  assert.is(refused.status, 401);
  assert.is(refused.body.code, 'UNAUTHENTICATED');
  await page.close();
});

test('a member key is told that API keys and webhooks are for owner and admin keys', async () => {
  const member = (await owner.post(`${API}/api-keys`, { name: 'member', role: 'member' })).body.key;
  const page = await open(member, 'keys');
  await page.waitForSelector('#keys-forbidden');
  assert.match(await text(page, '#keys-forbidden'), 'Only owner and admin keys');
  await nav(page, 'webhooks');
  await page.waitForSelector('#webhooks-forbidden');
  assert.equal(await axeViolations(page, ['color-contrast']), [], 'the refusal meets WCAG 2.1 AA (axe-core)');
  await page.close();
});

test('a webhook endpoint registered in the console (secret shown once) logs the delivery of a finished job, and redelivers it', async () => {
  const page = await open(OWNER_KEY, 'webhooks');
  await page.waitForSelector('#hook-url');
  await page.type('#hook-url', hook.url);
  await page.type('#hook-description', 'Loopback canary');
  await page.click('#create-hook');
  await page.waitForSelector('#new-secret');
  assert.match(await page.$eval('#new-secret', (e) => (e as HTMLInputElement).value), /^whsec_/);
  const endpoint = (await owner.get(`${API}/webhook-endpoints`)).body.items[0];
  assert.is(endpoint.url, hook.url);

  const created = await owner.post(`${API}/render/markdown?wait=30`, { content: '# Hooked\n' });
  assert.is(created.status, 200, created.bytes.toString());
  await until(() => hook.calls.length >= 1, 15_000);
  assert.is(hook.calls[0]!.body.jobId, created.body.jobId);

  await page.click(`#endpoint-${endpoint.id} .log`);
  await page.waitForSelector('#deliveries tr[data-status="DELIVERED"]', { timeout: 15_000 });
  assert.match(await text(page, '#deliveries tbody tr'), created.body.jobId);
  assert.equal(await axeViolations(page), [], 'the Webhooks page with its delivery log meets WCAG 2.1 AA (axe-core)');

  await page.click('#deliveries tbody tr .redeliver');
  await page.waitForSelector('#deliveries tr[data-redelivery-of]:not([data-redelivery-of=""])[data-status="DELIVERED"]', { timeout: 15_000 });
  await until(() => hook.calls.length >= 2, 15_000);
  assert.is(hook.calls[1]!.headers['quire-event-id'], hook.calls[0]!.headers['quire-event-id'], 'the same event again');

  // Disable, then delete after confirming.
  await page.click(`#endpoint-${endpoint.id} .toggle`);
  await page.waitForSelector(`#endpoint-${endpoint.id}[data-enabled="false"]`);
  await page.click(`#endpoint-${endpoint.id} .delete`);
  await page.click(`#endpoint-${endpoint.id} .confirm-delete`);
  await page.waitForFunction((id) => !document.querySelector(`#endpoint-${id}`), {}, endpoint.id);
  assert.is((await owner.get(`${API}/webhook-endpoints/${endpoint.id}`)).status, 404);
  await page.close();
});

test.run();
