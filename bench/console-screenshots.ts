// `npm run docs:console-screenshots`: the web console in headless Chromium (1280 × 860) — the editor with its live preview,
// the editor with an error at its line, the Library, a stored document opened with a variable set, and an operator's
// Plugins page — saved as docs/console-*.png for docs/console.md.
import path from 'node:path';
import { cleanup, OWNER_KEY, ROOT, startServer, tempDir } from '../test/helpers/quire-server.js';
import { ApiClient } from '../test/helpers/api-client.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { createOperatorKey, OPERATOR } from '../test/helpers/operator-api.js';
import { previewAfter, replaceText, signIn } from '../test/helpers/console-page.js';

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

async function main(): Promise<void> {
  const dataDir = tempDir('quire-console-shots-');
  const operator = await createOperatorKey(dataDir, 'Ops on call');
  const server = await startServer({ dataDir });
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
    cleanup(dataDir);
  }
}

await main();
