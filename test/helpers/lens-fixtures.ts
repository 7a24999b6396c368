// Lens test and bench documents, made with Quire itself: born-digital PDFs through POST /render, page images
// through POST /render/images, "scans" (an image-only PDF, no text layer) through pdf-lib.
import { PDFDocument } from 'pdf-lib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';
import type { ApiClient } from './api-client.js';

type Json = any;

export interface InvoiceFacts {
  vendor: string;
  number: string;
  date: string; // ISO
  dateText: string;
  dueDate: string;
  dueText: string;
  total: number;
  totalText: string;
  customer: string;
}

export const INVOICE: InvoiceFacts = {
  vendor: 'Northwind Traders',
  number: 'INV-2024-0042',
  date: '2024-03-15',
  dateText: 'March 15, 2024',
  dueDate: '2024-04-14',
  dueText: 'April 14, 2024',
  total: 1234.5,
  totalText: 'EUR 1,234.50',
  customer: 'Contoso Ltd',
};

/** An invoice as document JSON: title, label/value table, line items, a payment paragraph. */
export function invoiceDocument(f: InvoiceFacts = INVOICE, type = 'pdf'): Json {
  return {
    document: { type, title: `Invoice ${f.number}`, size: 'A4' },
    sections: [
      {
        type: 'flow',
        content: [
          { type: 'h1', text: 'Invoice' },
          { type: 'text', text: `From: ${f.vendor}, 12 Harbour Road, Bristol` },
          { type: 'text', text: `Bill to: ${f.customer}` },
          { type: 'text', text: `Invoice number: ${f.number}` },
          { type: 'text', text: `Invoice date: ${f.dateText}` },
          { type: 'text', text: `Due date: ${f.dueText}` },
          { type: 'h2', text: 'Items' },
          { type: 'table', headerRows: 1, rows: [['Description', 'Quantity', 'Amount'], ['Consulting services', '10', 'EUR 1,000.00'], ['Travel expenses', '1', 'EUR 234.50']] },
          { type: 'text', text: `Total amount due: ${f.totalText}` },
          { type: 'text', text: 'Please pay by bank transfer within thirty days. Thank you for your business.' },
        ],
      },
    ],
  };
}

/** A letter spread over three pages with a running footer, for headers/footers and headings. */
export function letterDocument(): Json {
  const para = (n: number) => `Paragraph ${n} of the letter explains the renewal of our maintenance agreement in plain words, so that the reader knows what changes and when.`;
  return {
    document: { type: 'pdf', title: 'Renewal letter', size: 'A4' },
    defaults: { footer: { text: 'Northwind Traders · Page {{page}} of {{pages}}', align: 'center' } },
    sections: [1, 2, 3].map((p) => ({ type: 'flow', content: [{ type: 'h1', text: `Part ${p}` }, { type: 'text', text: para(p * 10 + 1) }, { type: 'text', text: para(p * 10 + 2) }] })),
  };
}

/** Numbered sentences flowing down the left column and on into the right one, under a full-width title. */
export function twoColumnDocument(sentences = 70): Json {
  return columnDocument('Two Column Report', 2, sentences);
}

/** A newsletter-like page: numbered sentences flowing through three columns under a full-width title. */
export function threeColumnDocument(sentences = 90): Json {
  return columnDocument('Three Column Newsletter', 3, sentences);
}

function columnDocument(title: string, count: number, sentences: number): Json {
  const text = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `Sentence ${from + i} talks about orchards and harbours.`).join(' ');
  return {
    document: { type: 'pdf', size: 'A4' },
    sections: [
      { type: 'flow', content: [{ type: 'h1', text: title }] },
      { type: 'flow', newPage: false, columns: { count, space: 1 }, content: [1, 2, 3, 4, 5].map((k) => ({ type: 'text', text: text((k - 1) * (sentences / 5) + 1, k * (sentences / 5)) })) },
    ],
  };
}

/** POST /render → the finished file's bytes. */
export async function renderFile(api: ApiClient, config: Json): Promise<Buffer> {
  const created = await api.post('/api/v1/dev/render', { config });
  if (created.status !== 202) throw new Error(`render answered ${created.status}: ${created.bytes.toString()}`);
  return download(api, `/api/v1/dev/render/${created.body.jobId}`);
}

/** POST /render/images → PNG bytes of one page. */
export async function renderPng(api: ApiClient, config: Json, dpi = 300): Promise<Buffer> {
  const created = await api.post('/api/v1/dev/render/images', { config, image: { format: 'png', dpi, pages: ['1'] } });
  if (created.status !== 202) throw new Error(`render/images answered ${created.status}: ${created.bytes.toString()}`);
  return download(api, `/api/v1/dev/render/${created.body.jobId}`);
}

async function download(api: ApiClient, statusPath: string): Promise<Buffer> {
  for (;;) {
    const r = await api.get(`${statusPath}?waitMs=30000`);
    if (r.body.status === 'FAILED') throw new Error(`render failed: ${r.body.error}`);
    if (r.body.status === 'COMPLETED') return (await api.download(r.body.downloadUrl)).bytes;
  }
}

/**
 * An image-only PDF: each image (PNG or JPEG) on a page of its size at `dpi`, no text layer (what a
 * scanner produces).
 */
export async function scannedPdf(images: Uint8Array[], dpi = 300): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (const bytes of images) {
    const img = bytes[0] === 0xff && bytes[1] === 0xd8 ? await pdf.embedJpg(bytes) : await pdf.embedPng(bytes);
    const [w, h] = [(img.width * 72) / dpi, (img.height * 72) / dpi];
    pdf.addPage([w, h]).drawImage(img, { x: 0, y: 0, width: w, height: h });
  }
  return pdf.save();
}

/** POST a Lens job and wait for it; returns the finished job. */
export async function lensJob(api: ApiClient, tool: string, body: Json): Promise<Json> {
  const created = await api.post(`/api/v1/dev/tools/lens/${tool}`, body);
  if (created.status !== 202) throw new Error(`lens/${tool} answered ${created.status}: ${created.bytes.toString()}`);
  return api.waitForJob(created.body.id, 300_000);
}

/** The page image turned by `degrees` about its centre on white, as a PNG (a sheet fed askew). */
export async function rotated(png: Uint8Array, degrees: number): Promise<Uint8Array> {
  const img = await loadImage(Buffer.from(png));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.translate(canvas.width / 2, canvas.height / 2);
  ctx.rotate((degrees * Math.PI) / 180);
  ctx.drawImage(img, -canvas.width / 2, -canvas.height / 2);
  return new Uint8Array(await encodeCanvas(canvas, 'png'));
}
