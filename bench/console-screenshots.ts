// `npm run docs:console-screenshots`: the web console in headless Chromium (1280 × 860) — the editor with its live preview,
// the editor with an error at its line, the Library, a stored document opened with a variable set, the Jobs, Credits,
// API keys and Webhooks pages, and an operator's Plugins page — saved as docs/console-*.png for docs/console.md.
import path from 'node:path';
import { cleanup, OWNER_KEY, ROOT, startServer, tempDir } from '../test/helpers/quire-server.js';
import { ApiClient } from '../test/helpers/api-client.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { createOperatorKey, OPERATOR } from '../test/helpers/operator-api.js';
import { previewAfter, replaceText, signIn } from '../test/helpers/console-page.js';
import { makePdf, truncatedPdf } from '../test/fixtures/pdfs.js';
import { receiver, until } from '../test/helpers/webhook-receiver.js';
import type { Page } from 'puppeteer-core';

const DOCS = path.join(ROOT, 'docs');
const SIZE = { width: 1280, height: 860 };

const REPORT = `---
document:
  title: Quarterly note
variables:
  quarter: Q3
  customer: ACME Ltd
---

# Quarterly note, {{quarter}}

Prepared for **{{customer}}**. Sales rose *12 %* this quarter; returns fell.

| Month | Orders | Returns |
|---|---:|---:|
| July | 402 | 12 |
| August | 417 | 9 |
| September | 421 | 10 |

## Next steps

1. Restock the top three items.
2. Review the returns policy.
`;

const API = '/api/v1/dev';

/** Waits for `selector`, then saves the page as docs/<name>.png. */
async function shoot(page: Page, selector: string, name: string, fullPage = false): Promise<void> {
  await page.waitForSelector(selector, { timeout: 30_000 });
  await page.screenshot({ path: path.join(DOCS, `${name}.png`), fullPage });
  console.log(`docs/${name}.png`);
}

async function go(page: Page, to: string): Promise<void> {
  await page.click(`header a[href="/console/${to}"]`);
  await page.waitForFunction((p) => location.pathname === `/console/${p}`, {}, to);
}

/** Jobs of every kind (one failed), a new key shown once, and a webhook endpoint with a delivery and its redelivery. */
async function operationsPages(page: Page, baseUrl: string, hook: { url: string; calls: unknown[] }): Promise<void> {
  const owner = new ApiClient(baseUrl, OWNER_KEY);
  const endpoint = await owner.post(`${API}/webhook-endpoints`, { url: hook.url, events: ['job.completed', 'job.failed'], description: 'Order system' });
  const a = await owner.uploadId(await makePdf(2, { label: 'Offer' }), 'offer.pdf');
  const b = await owner.uploadId(await makePdf(1, { label: 'Terms' }), 'terms.pdf');
  await owner.waitForJob((await owner.post(`${API}/tools/pdf/merge`, { fileIds: [a, b] })).body.id);
  const bad = await owner.uploadId(await truncatedPdf(), 'scan.pdf');
  await owner.waitForJob((await owner.post(`${API}/tools/pdf/rotate`, { fileId: bad, angle: 90 })).body.id);
  const letter = await owner.post(`${API}/documents/markdown`, { name: 'Letter', content: 'Dear {{name}},\n\nthank you for your order.\n' });
  await owner.post(`${API}/bulk-render`, { documentId: letter.body.id, items: ['Ada', 'Grace', 'Linus', 'Barbara'].map((name) => ({ name })) });
  await owner.post(`${API}/render/markdown?wait=30`, { content: REPORT });
  await go(page, 'jobs');
  await page.waitForFunction(() => document.querySelectorAll('#jobs tbody tr').length >= 4 && !document.querySelector('#jobs tr[data-status="PENDING"], #jobs tr[data-status="PROCESSING"]'), { timeout: 60_000 });
  await shoot(page, '#jobs', 'console-jobs');
  await go(page, 'credits');
  await shoot(page, '#ledger', 'console-credits');
  await go(page, 'keys');
  await page.waitForSelector('#keys');
  await page.type('#key-name', 'CI pipeline');
  await page.click('#create-key');
  await page.waitForSelector('#keys tbody tr:nth-child(2)');
  await shoot(page, '#new-key', 'console-keys');
  await until(() => hook.calls.length >= 4, 30_000);
  const deliveries = await owner.get(`${API}/webhook-endpoints/${endpoint.body.id}/deliveries?limit=1`);
  await owner.post(`${API}/webhook-endpoints/${endpoint.body.id}/deliveries/${deliveries.body.items[0].id}/redeliver`, {});
  await go(page, 'webhooks');
  await page.waitForSelector(`#endpoint-${endpoint.body.id} .log`);
  await page.click(`#endpoint-${endpoint.body.id} .log`);
  await page.waitForFunction(() => document.querySelectorAll("#deliveries tbody tr").length >= 5 && !document.querySelector('#deliveries tr[data-status="PENDING"]'), { timeout: 30_000 });
  await shoot(page, '#deliveries', 'console-webhooks', true);
}

async function main(): Promise<void> {
  const dataDir = tempDir('quire-console-shots-');
  const operator = await createOperatorKey(dataDir, 'Ops on call');
  // Private networks allowed: the Webhooks page's endpoint is a loopback receiver.
  const server = await startServer({ dataDir, env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } });
  const hook = await receiver(200);
  const browser = await launchBrowser();
  try {
    const page = await browser.page(server.baseUrl, SIZE);
    await page.goto(`${server.baseUrl}/console`);
    await signIn(page, OWNER_KEY);
    const first = await previewAfter(page, null);
    await replaceText(page, REPORT);
    const report = await previewAfter(page, first.serial);
    await page.screenshot({ path: path.join(DOCS, 'console-editor.png') });
    console.log('docs/console-editor.png');
    await replaceText(page, REPORT.replace('## Next steps', '::frobnicate{x=1}\n\n## Next steps'));
    await page.waitForSelector('#errors li');
    await page.screenshot({ path: path.join(DOCS, 'console-errors.png') });
    console.log('docs/console-errors.png');

    // The Library with a few documents, then one opened with a variable typed in the panel.
    const owner = new ApiClient(server.baseUrl, OWNER_KEY);
    for (const name of ['Offer for Globex', 'Quarterly note Q3', 'Welcome letter']) await owner.post('/api/v1/dev/documents/markdown', { name, content: REPORT });
    await page.click('a[href="/console/library"]');
    await page.waitForSelector('#library-list tbody tr');
    await page.screenshot({ path: path.join(DOCS, 'console-library.png') });
    console.log('docs/console-library.png');
    await page.click('#library-list tbody tr:nth-child(2) button.open');
    const opened = await previewAfter(page, report.serial);
    await page.type('#variables [data-variable="customer"] input', 'Globex Corporation');
    await previewAfter(page, opened.serial);
    await page.screenshot({ path: path.join(DOCS, 'console-variables.png') });
    console.log('docs/console-variables.png');
    await operationsPages(page, server.baseUrl, hook);
    await page.close();

    // One plugin switched off with a reason, so the page shows both states.
    await new ApiClient(server.baseUrl, operator.key).post(`${OPERATOR}/plugins/pdf-rotate/disable`, { reason: 'maintenance window' });
    const ops = await browser.page(server.baseUrl, SIZE);
    await ops.goto(`${server.baseUrl}/console`);
    await signIn(ops, operator.key);
    await ops.waitForSelector('#plugin-pdf-rotate[data-state="disabled"]');
    await ops.screenshot({ path: path.join(DOCS, 'console-plugins.png'), fullPage: true });
    console.log('docs/console-plugins.png');
  } finally {
    await browser.close();
    await server.stop();
    await hook.close();
    cleanup(dataDir);
  }
}

await main();
