// Lens reading order over HTTP: scanned pages get the text layer's layout rules (headings from size, tables
// from aligned cells, skew straightened, an upside-down sheet turned, running footers apart, pages in order
// when recognised two at a time), and pages with three columns read column by column. Scans are made with Quire (POST /render/images),
// turned by @napi-rs/canvas and wrapped in an image-only PDF by pdf-lib; pdftotext confirms they have no text.
// The scans name `ocrEngine: 'tesseract'`: these tests hold the layout rules to Tesseract's exact text (lens-ocr-engines.test.ts reads with PP-OCR, the default).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanup, type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { invoiceDocument, threeColumnDocument, renderFile, renderPng, rotated, scannedPdf, lensJob } from '../helpers/lens-fixtures.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

/** pdftotext's text of a PDF (an independent reader): empty for a scan. */
function pdftotext(pdf: Uint8Array): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lens-ocr-'));
  try {
    writeFileSync(path.join(dir, 'f.pdf'), pdf);
    return execFileSync('pdftotext', [path.join(dir, 'f.pdf'), '-']).toString();
  } finally {
    cleanup(dir);
  }
}

test('a scanned page, 2° askew, with headings and a table gives Markdown headings and a Markdown table', async () => {
  const scan = await scannedPdf([await rotated(await renderPng(api, invoiceDocument()), 2)]);
  assert.is(pdftotext(scan).trim(), '');
  const job = await lensJob(api, 'ocr', { fileId: await api.uploadId(scan, 'skewed-scan.pdf'), outputFormat: 'md', ocrEngine: 'tesseract' });
  assert.is(job.status, 'COMPLETED', job.error);
  const md: string = job.result.content;
  assert.match(md, /^# Invoice$/m, md);
  assert.match(md, /^## Items$/m, md);
  assert.match(md, /^\| Description \| Quantity \| Amount \|\n\| --- \| --- \| --- \|\n\| Consulting services \| 10 \| EUR 1,000\.00 \|\n\| Travel expenses \| 1 \| EUR 234\.50 \|$/m, md);
  // Label lines stay lines of their own, in order, after the heading.
  assert.match(md, /^# Invoice\n\nFrom: Northwind Traders, 12 Harbour Road, Bristol\n\nBill to: Contoso Ltd\n\nInvoice number: INV-2024-0042\n/m, md);
  assert.match(md, /^Total amount due: EUR 1,234\.50$/m, md);
});

test('two scanned pages: recognised in page order, headings levelled across pages, the running footer kept apart in mdd', async () => {
  const page = (n: number) => ({
    document: { type: 'pdf', size: 'A4' },
    defaults: { footer: { text: 'Harbour Notes, page {{page}} of {{pages}}', align: 'center' } },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'h1', text: `Chapter ${n}` },
          { type: 'h2', text: `Section ${n}.1` },
          { type: 'text', text: `Chapter ${n} describes the harbour in plain words: the boats, the quays and the people who work there every day of the week.` },
        ],
      },
    ],
  });
  const scan = await scannedPdf([await renderPng(api, page(1)), await renderPng(api, page(2))]);
  assert.is(pdftotext(scan).trim(), '');
  const job = await lensJob(api, 'ocr', { fileId: await api.uploadId(scan, 'two-scans.pdf'), outputFormat: 'mdd', ocrEngine: 'tesseract' });
  assert.is(job.status, 'COMPLETED', job.error);
  const mdd: string = job.result.content;
  const body = mdd.split('---').slice(2).join('---');
  assert.equal([...body.matchAll(/^(#+) (.+)$/gm)].map((m) => `${m[1]} ${m[2]}`), ['# Chapter 1', '## Section 1.1', '# Chapter 2', '## Section 2.1']);
  assert.match(mdd, /footer: \{"text":"Harbour Notes, page \{\{page\}\} of \{\{pages\}\}"\}/, mdd);
  assert.not.match(body, /Harbour Notes/);
  assert.match(body, /Chapter 2 describes the harbour in plain words: the boats, the quays and the people who work there every day of the week\./);
});

test('a page scanned upside down is read the right way up', async () => {
  const doc = {
    document: { type: 'pdf', size: 'A4' },
    sections: [{ type: 'flow', content: [{ type: 'h1', text: 'Delivery Note' }, { type: 'text', text: 'Twelve crates of apples were delivered to the harbour warehouse on Monday morning.' }] }],
  };
  const scan = await scannedPdf([await rotated(await renderPng(api, doc), 180)]);
  const job = await lensJob(api, 'ocr', { fileId: await api.uploadId(scan, 'upside-down.pdf'), outputFormat: 'md', ocrEngine: 'tesseract' });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.result.content, '# Delivery Note\n\nTwelve crates of apples were delivered to the harbour warehouse on Monday morning.\n');
});

test('a three-column page reads column by column under its title', async () => {
  const pdf = await renderFile(api, threeColumnDocument(60));
  // pdftotext -layout shows the three columns side by side: the fixture really has them.
  assert.match(pdftotext(pdf), /Three Column Newsletter/);
  const job = await lensJob(api, 'ocr', { fileId: await api.uploadId(pdf, 'three-columns.pdf'), outputFormat: 'md' });
  assert.is(job.status, 'COMPLETED', job.error);
  const md: string = job.result.content;
  assert.ok(md.startsWith('# Three Column Newsletter\n'), md.slice(0, 200));
  const order = [...md.matchAll(/Sentence (\d+)/g)].map((m) => Number(m[1]));
  assert.equal(order, Array.from({ length: 60 }, (_, i) => i + 1));
});

test('label/value lines and tables are not taken for columns', async () => {
  const doc = {
    document: { type: 'pdf', size: 'A4' },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'h1', text: 'Statement' },
          { type: 'table', headerRows: 0, rows: [['Account holder', 'Contoso Ltd'], ['Account number', '0042-7781'], ['Period', 'March 2024'], ['Opening balance', 'EUR 1,200.00'], ['Closing balance', 'EUR 980.50'], ['Branch', 'Harbour Road']] },
        ],
      },
    ],
  };
  const job = await lensJob(api, 'ocr', { fileId: await api.uploadId(await renderFile(api, doc), 'statement.pdf'), outputFormat: 'md' });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.match(job.result.content, /^\| Account holder \| Contoso Ltd \|$/m);
  assert.match(job.result.content, /^\| Closing balance \| EUR 980\.50 \|$/m);
});

test.run();
