// Lens's two OCR engines over HTTP: a scanned page (made with Quire, turned 3° askew, wrapped in an image-only
// PDF by pdf-lib) is read by PP-OCR and by Tesseract with `ocrEngine`; an unknown engine is a 400 naming the
// field and its values; a scan whose image declares gigantic dimensions is refused, naming the limit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { type RunningServer, useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { renderPng, rotated, scannedPdf, lensJob } from '../helpers/lens-fixtures.js';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';

let server: RunningServer;
let api: ApiClient;

useServer(test, (started) => ({ server, api } = started));

const RECEIPT = {
  document: { type: 'pdf', size: 'A5' },
  sections: [
    {
      type: 'flow',
      content: [
        { type: 'h2', text: 'Harbour Hardware Sdn Bhd' },
        { type: 'text', text: 'No. 12, Jalan Pelabuhan, 42000 Port Klang' },
        { type: 'text', text: 'Date: 23/09/2017 Cashier: Aminah' },
        { type: 'table', rows: [['Brass hinges', '4', '31.60'], ['Copper wire', '2', '17.30']] },
        { type: 'text', text: 'Total: RM 48.90' },
        { type: 'text', text: 'Thank you, please come again' },
      ],
    },
  ],
};

let receiptId: string | undefined;
async function receipt(): Promise<string> {
  receiptId ??= await api.uploadId(await scannedPdf([await rotated(await renderPng(api, RECEIPT), 3)]), 'receipt-scan.pdf');
  return receiptId;
}

/** Words of the text (Markdown escapes undone), lower-cased, split at spaces and commas, punctuation at their ends dropped. */
const words = (text: string) => new Set(text.replace(/\\(.)/g, '$1').toLowerCase().split(/[\s,]+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')));

for (const engine of ['paddle', 'tesseract'] as const) {
  test(`ocrEngine ${engine} reads a scanned receipt 3° askew: the shop, the date, the items and the total`, async () => {
    const job = await lensJob(api, 'ocr', { fileId: await receipt(), outputFormat: 'md', ocrEngine: engine });
    assert.is(job.status, 'COMPLETED', job.error);
    const text: string = job.result.content;
    const found = words(text);
    for (const w of ['harbour', 'hardware', 'sdn', 'bhd', 'jalan', 'date', '23/09/2017', 'brass', 'hinges', 'copper', 'wire', '31.60', '17.30', 'total', '48.90', 'thank']) {
      assert.ok(found.has(w), `${engine} missed "${w}" in:\n${text}`);
    }
    // Deskewed: the date and the cashier stay on one line, the total's label beside its amount.
    assert.match(text, /Date: ?23\/09\/2017 Cashier/, text);
    assert.match(text, /Total: ?RM ?48\.90/, text);
  });
}

test('extract on a scanned receipt with ocrEngine paddle finds the date and the total', async () => {
  const job = await lensJob(api, 'extract', {
    fileId: await receipt(),
    ocrEngine: 'paddle',
    fields: { date: { type: 'date', description: 'receipt date' }, total: { type: 'number', description: 'total amount paid' } },
  });
  assert.is(job.status, 'COMPLETED', job.error);
  assert.is(job.result.data.total, 48.9);
  assert.is(job.result.data.date, '2017-09-23');
});

test('an unknown ocrEngine is a 400 naming the field and the allowed values', async () => {
  const res = await api.post('/api/v1/dev/tools/lens/ocr', { fileId: await receipt(), outputFormat: 'md', ocrEngine: 'easyocr' });
  assert.is(res.status, 400, JSON.stringify(res.body));
  const detail = JSON.stringify(res.body);
  assert.match(detail, /ocrEngine/);
  for (const v of ['auto', 'tesseract', 'paddle']) assert.ok(detail.includes(v), detail);
});

/**
 * A scan whose JPEG declares 60000 × 60000 pixels (3.6 gigapixels) in a few hundred bytes, drawn on an A4 page:
 * a decompression bomb for whoever decodes it.
 */
async function bombPdf(): Promise<Uint8Array> {
  const canvas = createCanvas(64, 64);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, 64, 64);
  const jpeg = Buffer.from(await encodeCanvas(canvas, 'jpeg', 80));
  // The start-of-frame segment (FFC0) holds height and width after its length and precision bytes.
  for (let i = 2; i < jpeg.length; ) {
    const marker = jpeg[i + 1]!;
    const length = jpeg.readUInt16BE(i + 2);
    if (marker === 0xc0 || marker === 0xc2) {
      jpeg.writeUInt16BE(60000, i + 5);
      jpeg.writeUInt16BE(60000, i + 7);
      break;
    }
    i += 2 + length;
  }
  const pdf = await PDFDocument.create();
  // A copy of its own: pdf-lib reads the bytes through a DataView of the whole underlying buffer.
  const img = await pdf.embedJpg(new Uint8Array(jpeg));
  assert.is(img.width, 60000);
  pdf.addPage([595, 842]).drawImage(img, { x: 0, y: 0, width: 595, height: 842 });
  return pdf.save();
}

test('a scan whose image declares 60000 × 60000 pixels is refused before decoding: the job fails with IMAGE_TOO_LARGE naming the size and the limit', async () => {
  const started = Date.now();
  const job = await lensJob(api, 'ocr', { fileId: await api.uploadId(await bombPdf(), 'bomb.pdf'), outputFormat: 'md', ocrEngine: 'paddle' });
  assert.ok(Date.now() - started < 45_000, `took ${Date.now() - started} ms`);
  assert.is(job.status, 'FAILED', JSON.stringify(job.result));
  assert.is(job.errorCode, 'IMAGE_TOO_LARGE', job.error);
  assert.match(job.error, /Page 1\b/);
  assert.match(job.error, /60000 × 60000 pixels/);
  assert.match(job.error, /50 megapixels/);
});

test.run();
