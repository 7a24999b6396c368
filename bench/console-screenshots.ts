// `npm run docs:console-screenshots`: the web console in headless Chromium (1280 × 860) — the editor with its live preview,
// the editor with an error at its line, and an operator's Plugins page — saved as docs/console-*.png for docs/console.md.
import path from 'node:path';
import { cleanup, OWNER_KEY, ROOT, startServer, tempDir } from '../test/helpers/quire-server.js';
import { ApiClient } from '../test/helpers/api-client.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { createOperatorKey, OPERATOR } from '../test/helpers/operator-api.js';
import { replaceText, signIn } from '../test/helpers/console-page.js';

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
    await page.waitForSelector('#preview');
    const first = await page.$eval('#preview', (img) => img.getAttribute('data-job-id'));
    await replaceText(page, REPORT);
    await page.waitForFunction((before) => document.querySelector('#preview')?.getAttribute('data-job-id') !== before && (document.querySelector('#preview') as HTMLImageElement).complete, { timeout: 20_000 }, first);
    await page.screenshot({ path: path.join(DOCS, 'console-editor.png') });
    console.log('docs/console-editor.png');
    await replaceText(page, REPORT.replace('## Next steps', '::frobnicate{x=1}\n\n## Next steps'));
    await page.waitForSelector('#errors li');
    await page.screenshot({ path: path.join(DOCS, 'console-errors.png') });
    console.log('docs/console-errors.png');
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
