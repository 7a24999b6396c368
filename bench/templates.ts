// Template filling: Quire's docx.replace-placeholders worker beside docxtemplater on the same invoice and data;
// DOCX → PDF through the warm LibreOffice beside a cold `soffice --convert-to pdf` per job. Prints figures; never fails a build.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Docxtemplater from 'docxtemplater';
import PizZip from 'pizzip';
import { replacePlaceholders } from '../plugins/docx-templates/worker.js';
import type { ReplaceParams } from '../plugins/docx-templates/contract.js';
import { LibreOfficeConverter } from '../engines/libreoffice/index.js';
import { cell, handDocx, p, r, row, table } from '../plugins/docx-templates/test/fixtures.js';
import { fmt, spread, table as mdTable } from './stats.js';

const exec = promisify(execFile);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const FILL_RUNS = 200;
const FILL_WARMUP = 30;
const WARM_RUNS = 20;
const COLD_RUNS = 5;

const FIELDS = ['company', 'street', 'city', 'vat', 'client', 'clientStreet', 'clientCity', 'number', 'date', 'due', 'total', 'tax', 'grand', 'iban', 'terms'];
const LOREM = 'Payment is due within thirty days of the invoice date. Please quote the invoice number with your payment so that it can be matched quickly.';

/**
 * The invoice, written once per placeholder syntax: Quire's `{{items.name}}` row cells, docxtemplater's
 * `{{#items}}{{name}} … {{/items}}` loop over the same row. Everything else is identical, including one
 * placeholder split over two runs as Word often leaves them.
 */
function invoice(syntax: 'quire' | 'docxtemplater'): Promise<Uint8Array> {
  const col = (c: string, i: number, n: number) => {
    if (syntax === 'quire') return `{{items.${c}}}`;
    return `${i === 0 ? '{{#items}}' : ''}{{${c}}}${i === n - 1 ? '{{/items}}' : ''}`;
  };
  const cols = ['name', 'qty', 'unit', 'amount'];
  const body = [
    p(r('{{company}}', true)),
    p(r('{{street}}, {{city}} — VAT {{vat}}')),
    p(r('Bill to: {{cli'), r('ent}}', true), r(', {{clientStreet}}, {{clientCity}}')),
    p(r('Invoice {{number}} of {{date}}, due {{due}}')),
    table(row(...['Item', 'Qty', 'Unit price', 'Amount'].map((h) => cell(p(r(h, true))))), row(...cols.map((c, i) => cell(p(r(col(c, i, cols.length))))))),
    p(r('Total {{total}}, tax {{tax}}, amount due {{grand}}')),
    ...Array.from({ length: 12 }, () => p(r(LOREM))),
    p(r('Pay to {{iban}}. {{terms}}')),
  ].join('');
  return handDocx({ body, header: p(r('{{company}} — invoice {{number}}')), footer: p(r('{{company}} · {{iban}}')) });
}

function data(rows: number) {
  const text = Object.fromEntries(FIELDS.map((f) => [f, `${f} value`]));
  const items = Array.from({ length: rows }, (_, i) => ({ name: `Article ${i + 1}`, qty: String(1 + (i % 5)), unit: `${(i * 1.5).toFixed(2)}`, amount: `${(i * 3).toFixed(2)}` }));
  return { text, items };
}

async function timeLoop(runs: number, warmup: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-bench-templates-'));
  const rowsCount = 40;
  const { text, items } = data(rowsCount);
  const quireTemplate = await invoice('quire');
  const dtTemplate = await invoice('docxtemplater');

  const quireFill = async () => {
    const params: ReplaceParams = { fileId: 'bench', variables: { ...text, items: { type: 'table', rows: items } } };
    const out = await replacePlaceholders({ params, files: [{ field: 'fileId', fileId: 'bench', filename: 'invoice.docx', mimeType: DOCX, bytes: quireTemplate }], settings: {} });
    return out.file!.bytes;
  };
  const dtFill = () => {
    const doc = new Docxtemplater(new PizZip(dtTemplate), { paragraphLoop: true, linebreaks: true, delimiters: { start: '{{', end: '}}' } });
    doc.render({ ...text, items });
    return doc.getZip().generate({ type: 'uint8array', compression: 'DEFLATE' }) as Uint8Array;
  };

  // Same output, checked before timing: both fill every field and all rows.
  const quireOut = await quireFill();
  const dtOut = dtFill();
  const check = async (bytes: Uint8Array, name: string) => {
    const file = path.join(dir, `${name}.docx`);
    await writeFile(file, bytes);
    const { stdout } = await exec('/usr/bin/python3', ['-c', 'import docx,sys; d=docx.Document(sys.argv[1]); print(len(d.tables[0].rows), sum("{{" in p.text for p in d.paragraphs))', file]);
    return stdout.trim();
  };
  console.log(`check (table rows, paragraphs still holding {{): Quire ${await check(quireOut, 'quire')}, docxtemplater ${await check(dtOut, 'docxtemplater')}`);

  const q = spread(await timeLoop(FILL_RUNS, FILL_WARMUP, quireFill));
  const d = spread(await timeLoop(FILL_RUNS, FILL_WARMUP, dtFill));
  console.log(`\nInvoice template (${(quireTemplate.byteLength / 1024).toFixed(1)} KB DOCX, ${FIELDS.length} fields, header, footer, a ${rowsCount}-row table), ${FILL_RUNS} fills after ${FILL_WARMUP} warm-up, one thread:\n`);
  console.log(
    mdTable(
      ['engine', 'p50 ms', 'p90 ms', 'p99 ms', 'output KB'],
      [
        ['Quire (worker function, in-process)', fmt(q.p50, 2), fmt(q.p90, 2), fmt(q.p99, 2), fmt(quireOut.byteLength / 1024)],
        ['docxtemplater 3.71 + pizzip', fmt(d.p50, 2), fmt(d.p90, 2), fmt(d.p99, 2), fmt(dtOut.byteLength / 1024)],
      ],
    ),
  );
  console.log(`\nratio Quire / docxtemplater (p50): ${fmt(q.p50 / d.p50, 2)} (≤ 1.0 wanted)`);

  // DOCX → PDF: a 2-page document (the filled invoice).
  const converter = new LibreOfficeConverter({ restartAfter: 0, timeoutMs: 300_000, startTimeoutMs: 300_000 });
  try {
    const startT = performance.now();
    const firstPdf = await converter.convert(quireOut, 'docx', 'pdf');
    const firstMs = performance.now() - startT;
    await writeFile(path.join(dir, 'warm.pdf'), firstPdf);
    const { stdout: info } = await exec('pdfinfo', [path.join(dir, 'warm.pdf')]);
    const pages = /Pages:\s+(\d+)/.exec(info)?.[1];
    const warm = spread(await timeLoop(WARM_RUNS, 3, () => converter.convert(quireOut, 'docx', 'pdf')));
    const docxFile = path.join(dir, 'invoice.docx');
    await writeFile(docxFile, quireOut);
    const profile = path.join(dir, 'cold-profile');
    const { FONTCONFIG_FILE: _f, ...env } = process.env;
    const cold = () => exec('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--norestore', '--convert-to', 'pdf', '--outdir', path.join(dir, 'cold'), docxFile], { env, timeout: 300_000 });
    await cold(); // creates the profile: not a per-job cost
    const c = spread(await timeLoop(COLD_RUNS, 0, cold));
    console.log(`\nDOCX → PDF of the filled invoice (${pages} pages); the warm soffice's first conversion (start + filters) took ${fmt(firstMs, 0)} ms:\n`);
    console.log(
      mdTable(
        ['converter', 'runs', 'p50 ms', 'p90 ms', 'max ms'],
        [
          ['warm LibreOffice over UNO (Quire)', String(warm.n), fmt(warm.p50), fmt(warm.p90), fmt(warm.max)],
          ['cold soffice --convert-to pdf per job', String(c.n), fmt(c.p50), fmt(c.p90), fmt(c.max)],
        ],
      ),
    );
    console.log(`\ncold / warm (p50): ${fmt(c.p50 / warm.p50, 1)}× (≥ 10× wanted); warm p50 ≤ 100 ms wanted`);
  } finally {
    await converter.close();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\nload average during the run: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
