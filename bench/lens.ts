// Evaluates the Lens built-in engine over HTTP on a small labelled set made with Quire itself: OCR character
// error rate on clean and degraded scans, extraction exact match on invoices, classification accuracy among
// five categories, and seconds per page for text-layer and OCR pages. Prints the figures; never fails a build.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { startServer, OWNER_KEY } from '../test/helpers/quire-server.js';
import { ApiClient } from '../test/helpers/api-client.js';
import { invoiceDocument, lensJob, renderFile, renderPng, scannedPdf, type InvoiceFacts } from '../test/helpers/lens-fixtures.js';
import { fmt, table } from './stats.js';

type Json = any;

const INVOICES: InvoiceFacts[] = [
  { vendor: 'Northwind Traders', number: 'INV-2024-0042', date: '2024-03-15', dateText: 'March 15, 2024', dueDate: '2024-04-14', dueText: 'April 14, 2024', total: 1234.5, totalText: 'EUR 1,234.50', customer: 'Contoso Ltd' },
  { vendor: 'Blue Harbour GmbH', number: 'RE-77812', date: '2023-11-02', dateText: '2 November 2023', dueDate: '2023-12-02', dueText: '2 December 2023', total: 89.9, totalText: '89.90 EUR', customer: 'Alpine Sports AG' },
  { vendor: 'Kestrel Print Co', number: 'A-00917', date: '2025-01-31', dateText: '2025-01-31', dueDate: '2025-02-28', dueText: '2025-02-28', total: 15200, totalText: 'USD 15,200.00', customer: 'Fabrikam Inc' },
  { vendor: 'Lumen Studio', number: '2024/118', date: '2024-07-09', dateText: 'July 9, 2024', dueDate: '2024-08-08', dueText: 'August 8, 2024', total: 560.75, totalText: 'GBP 560.75', customer: 'Tailspin Toys' },
];

const FIELDS = {
  invoice_number: { type: 'string' },
  invoice_date: { type: 'date' },
  due_date: { type: 'date' },
  total: { type: 'number', description: 'total amount due' },
  customer: { type: 'string', description: 'bill to' },
};

const text = (lines: string[]) => ({ document: { type: 'pdf' }, sections: [{ type: 'flow', content: lines.map((t, i) => (i === 0 ? { type: 'h1', text: t } : { type: 'text', text: t })) }] });

/** Five categories, three documents each, worded differently from the category names where possible. */
const CLASSIFY: Array<[string, Json]> = [
  ['invoice', invoiceDocument(INVOICES[1]!)],
  ['invoice', text(['Bill', 'Amount due: 420.00', 'Payment terms: net 30', 'VAT 20% included', 'Remit to account 1234'])],
  ['invoice', text(['Tax invoice 5521', 'Subtotal 100.00', 'Tax 8.00', 'Total due 108.00', 'Due date 1 May 2024'])],
  ['receipt', text(['Corner Store', 'Thank you for your purchase!', 'Milk 1.20', 'Bread 2.10', 'Total 3.30', 'Paid by card VISA ****1234', 'Change 0.00'])],
  ['receipt', text(['Receipt', 'Transaction 99812', 'Cash 20.00', 'Change 4.50', 'Thank you, come again'])],
  ['receipt', text(['Café Lumière', 'Cappuccino 3.40', 'Croissant 2.20', 'Paid: card', 'Thank you for visiting'])],
  ['letter', text(['Dear Ms Jones,', 'I am writing to thank you for your kind hospitality last week.', 'Please find enclosed the photographs we discussed.', 'Yours sincerely,', 'Peter Smith'])],
  ['letter', text(['Dear customer,', 'We are pleased to inform you that your membership has been renewed.', 'Kind regards,', 'The Team'])],
  ['letter', text(['Dear Sir or Madam,', 'With reference to your letter of 3 May, I confirm the appointment.', 'Yours faithfully,', 'A. Brown'])],
  ['contract', text(['Service Agreement', 'This agreement is made between the parties named below.', 'The Supplier shall provide the services under the terms and conditions hereby agreed.', 'Termination: either party may terminate with 30 days notice.', 'Governing law: England.'])],
  ['contract', text(['Lease', 'The Landlord and the Tenant (the parties) hereby agree as follows.', 'Clause 1. The Tenant shall pay rent monthly.', 'Clause 2. This lease is governed by the laws of Ireland.', 'Signature of witness'])],
  ['contract', text(['Non-disclosure agreement', 'Each party shall keep confidential information secret.', 'The obligations survive termination of this agreement.', 'Signed by both parties'])],
  ['report', text(['Quarterly report Q3', 'Summary', 'Revenue grew 12% over the quarter.', 'Findings: churn fell; costs rose slightly.', 'Conclusion: the results support the plan.'])],
  ['report', text(['Inspection report', 'Introduction', 'Method: visual inspection of all rooms.', 'Findings: two windows need repair.', 'Results and analysis follow.'])],
  ['report', text(['Annual report 2023', 'Summary of results', 'Analysis of revenue by region', 'Conclusion and outlook'])],
];
const CATEGORIES = ['invoice', 'receipt', 'letter', 'contract', 'report'];

/** Levenshtein distance (two rows), for the character error rate. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Text for CER: Markdown syntax and escapes removed, whitespace collapsed. */
function norm(s: string): string {
  return s.replace(/\\(.)/g, '$1').replace(/^#+\s*/gm, '').replace(/[|]/g, ' ').replace(/^\s*-{3}.*$/gm, '').replace(/\s+/g, ' ').trim();
}

/** The reference text of a rendered document: the strings it was made from, in document order (tables row by row). */
function reference(doc: Json): string {
  const parts: string[] = [];
  for (const section of doc.sections) {
    for (const el of section.content) {
      if (el.type === 'table') for (const row of el.rows) parts.push(row.join(' '));
      else parts.push(el.text);
    }
  }
  return norm(parts.join(' '));
}

/** A worse scan: rotated 1.2°, blurred (drawn at 70% and scaled back up), with 0.4% salt-and-pepper noise. */
async function degrade(png: Uint8Array, seed: number): Promise<Uint8Array> {
  const img = await loadImage(Buffer.from(png));
  const small = createCanvas(Math.round(img.width * 0.7), Math.round(img.height * 0.7));
  small.getContext('2d').drawImage(img, 0, 0, small.width, small.height);
  const out = createCanvas(img.width, img.height);
  const ctx = out.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.translate(out.width / 2, out.height / 2);
  ctx.rotate((1.2 * Math.PI) / 180);
  ctx.drawImage(small, -out.width / 2, -out.height / 2, out.width, out.height);
  // getImageData/putImageData work in device pixels: without resetting the rotation, @napi-rs/canvas puts
  // the data back shifted, and the page holds the text twice.
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  const data = ctx.getImageData(0, 0, out.width, out.height);
  let r = seed;
  const rand = () => ((r = (r * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let i = 0; i < data.data.length; i += 4) {
    const p = rand();
    if (p < 0.002) data.data[i] = data.data[i + 1] = data.data[i + 2] = 0;
    else if (p < 0.004) data.data[i] = data.data[i + 1] = data.data[i + 2] = 255;
  }
  ctx.putImageData(data, 0, 0);
  return new Uint8Array(await out.encode('png'));
}

function jobSeconds(job: Json): number {
  return (Date.parse(job.completedAt) - Date.parse(job.startedAt)) / 1000;
}

const server = await startServer();
const api = new ApiClient(server.baseUrl, OWNER_KEY);
try {
  const cer = { clean: [] as number[], noisy: [] as number[] };
  const speed = { text: [] as number[], ocr: [] as number[] };
  const extraction = { digital: { hit: 0, n: 0 }, scanned: { hit: 0, n: 0 } };
  const missing = { tp: 0, fp: 0, fn: 0 };

  // fieldsMissing on born-digital invoices: every FIELDS entry is present (a listed one is a false
  // "missing"), purchase_order is absent (listing it is right).
  const score = (bucket: { hit: number; n: number }, facts: InvoiceFacts, data: Json, fieldsMissing: string[], countMissing = false) => {
    const truth: Json = { invoice_number: facts.number, invoice_date: facts.date, due_date: facts.dueDate, total: facts.total, customer: facts.customer };
    for (const k of Object.keys(FIELDS)) {
      bucket.n++;
      if (JSON.stringify(data[k]) === JSON.stringify(truth[k])) bucket.hit++;
      // Every field is present in these invoices: a listed field is a false "missing".
      if (countMissing && fieldsMissing.includes(k)) missing.fp++;
    }
  };

  for (const [i, facts] of INVOICES.entries()) {
    const doc = invoiceDocument(facts);
    const pdf = await renderFile(api, doc);
    const ref = reference(doc);
    const id = await api.uploadId(pdf, `invoice-${i}.pdf`);
    const ocr = await lensJob(api, 'ocr', { fileId: id, outputFormat: 'md' });
    speed.text.push(jobSeconds(ocr));
    const ex = await lensJob(api, 'extract', { fileId: id, fields: { ...FIELDS, purchase_order: { type: 'string', description: 'PO number' } } });
    score(extraction.digital, facts, ex.result.data, ex.result.fieldsMissing, true);
    if (ex.result.fieldsMissing.includes('purchase_order')) missing.tp++;
    else missing.fn++;

    const png = await renderPng(api, doc, 300);
    for (const [kind, image] of [['clean', png], ['noisy', await degrade(png, i + 1)]] as const) {
      const scanId = await api.uploadId(await scannedPdf([image]), `scan-${kind}-${i}.pdf`);
      const job = await lensJob(api, 'ocr', { fileId: scanId, outputFormat: 'md' });
      speed.ocr.push(jobSeconds(job));
      const got = norm(job.result.content);
      cer[kind].push(distance(got, ref) / ref.length);
      if (process.env.LENS_BENCH_DEBUG) console.log(`--- ${kind} ${i}\n${got}\n--- reference\n${ref}`);
      if (kind === 'noisy') {
        const sx = await lensJob(api, 'extract', { fileId: scanId, fields: FIELDS });
        if (sx.status !== 'COMPLETED') console.log(`extract of noisy scan ${i} failed: ${sx.errorCode} ${sx.error}`);
        score(extraction.scanned, facts, sx.result?.data ?? {}, sx.result?.fieldsMissing ?? []);
      }
    }
  }

  let correct = 0;
  const conf = { right: [] as number[], wrong: [] as number[] };
  for (const [truth, doc] of CLASSIFY) {
    const id = await api.uploadId(await renderFile(api, doc), 'c.pdf');
    const job = await lensJob(api, 'classify', { fileId: id, categories: CATEGORIES });
    const ok = job.result.category === truth;
    if (ok) correct++;
    (ok ? conf.right : conf.wrong).push(job.result.confidence);
  }

  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
  console.log('Lens built-in engine (labelled set made with Quire; see bench/lens.ts)\n');
  console.log(
    table(
      ['measure', 'value', 'n'],
      [
        ['OCR CER, clean 300-dpi scans (%)', fmt(mean(cer.clean) * 100, 2), String(cer.clean.length)],
        ['OCR CER, noisy/blurred/skewed scans (%)', fmt(mean(cer.noisy) * 100, 2), String(cer.noisy.length)],
        ['extract exact match, born-digital invoices', fmt(extraction.digital.hit / extraction.digital.n, 2), String(extraction.digital.n)],
        ['extract exact match, noisy scanned invoices', fmt(extraction.scanned.hit / extraction.scanned.n, 2), String(extraction.scanned.n)],
        ['fieldsMissing precision, born-digital (absent listed / all listed)', fmt(missing.tp / Math.max(1, missing.tp + missing.fp), 2), String(missing.tp + missing.fp)],
        ['fieldsMissing recall, born-digital (absent listed / absent)', fmt(missing.tp / Math.max(1, missing.tp + missing.fn), 2), String(missing.tp + missing.fn)],
        ['classification accuracy (5 categories)', fmt(correct / CLASSIFY.length, 2), String(CLASSIFY.length)],
        ['mean confidence when right / wrong', `${fmt(mean(conf.right), 2)} / ${fmt(mean(conf.wrong), 2)}`, `${conf.right.length}/${conf.wrong.length}`],
        ['job seconds per text-layer page (p50 of jobs, incl. queueing in worker)', fmt(speed.text.sort((a, b) => a - b)[Math.floor(speed.text.length / 2)], 3), String(speed.text.length)],
        ['job seconds per OCR page (p50)', fmt(speed.ocr.sort((a, b) => a - b)[Math.floor(speed.ocr.length / 2)], 2), String(speed.ocr.length)],
      ],
    ),
  );
} finally {
  await server.stop();
}
