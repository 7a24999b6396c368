// POST /import/docx/file on a Word template made by python-docx: {{name}} / ${name} placeholders (one split across runs)
// become live variables listed in the report, render with their values (read back with pdftotext), or stay literal on request.
// test-stores: once (DOCX placeholders; its jobs and files reach the store as files.test's do).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import JSZip from 'jszip';
import { useServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { popplerOutput } from '../helpers/poppler.js';
import { renderAndDownload } from '../helpers/render-jobs.js';

type Json = Record<string, any>;
const run = promisify(execFile);

let api: ApiClient;

useServer(test, (started) => ({ api } = started));

async function importFile(bytes: Uint8Array, name: string, options: Json = {}): Promise<{ status: number; body: Json }> {
  const r = await api.post('/api/v1/dev/import/docx/file', { fileId: await api.uploadId(bytes, name), ...options });
  return { status: r.status, body: r.body };
}

async function imported(bytes: Uint8Array, name: string, options: Json = {}): Promise<{ document: Json; report: Json }> {
  const r = await importFile(bytes, name, options);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { document: Json; report: Json };
}

function renderPdf(config: Json): Promise<{ job: Json; bytes: Buffer }> {
  return renderAndDownload(api, '/api/v1/dev/render', { config }, 'PDF', 'application/pdf');
}

function content(doc: Json): any[] {
  return doc.sections.flatMap((s: Json) => s.content);
}

/** The text of every element but the table, in order. */
function texts(doc: Json): string[] {
  return content(doc).filter((e) => e.type !== 'table').map((e) => e.text);
}

/** A Word template written by python-docx: placeholders in a heading, text, a table cell, the header, split across runs, and invalid ones. */
async function templateDocx(): Promise<Buffer> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'quire-import-tpl-'));
  const script = `
import sys, docx
d = docx.Document()
d.sections[0].header.paragraphs[0].text = 'Invoice for \${customer}'
d.add_heading('Invoice {{ customer }}', level=1)
d.add_paragraph('Dear {{customer}}, the total is \${total}.')
p = d.add_paragraph('Reference: ')
p.add_run('{{order.')
p.add_run('id}} end')
p = d.add_paragraph('Signed: ')
p.add_run('{{sig').bold = True
p.add_run('ner}}')
d.add_paragraph('Not placeholders: {{ not a name! }} and \${also bad}')
t = d.add_table(rows=1, cols=2)
t.cell(0, 0).text = 'Total'
t.cell(0, 1).text = '\${total}'
d.save(sys.argv[1])
`;
  try {
    await writeFile(path.join(work, 'make.py'), script);
    await run('/usr/bin/python3', [path.join(work, 'make.py'), path.join(work, 'template.docx')], { timeout: 60_000 });
    const bytes = await readFile(path.join(work, 'template.docx'));
    // The file really splits the placeholders across runs, as Word does.
    const xml = await (await JSZip.loadAsync(bytes)).file('word/document.xml')!.async('string');
    assert.ok(xml.includes('>{{order.</w:t>') && xml.includes('>id}} end</w:t>') && xml.includes('>{{sig</w:t>'), 'fixture splits placeholders across runs');
    return bytes;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

test('keeps {{name}} and ${name} placeholders of a Word template as live variables, also split across runs, lists them in the report and renders their values', async () => {
  const { document, report } = await imported(await templateDocx(), 'invoice-template.docx');
  assert.equal(texts(document), [
    'Invoice {{customer}}',
    'Dear {{customer}}, the total is {{total}}.',
    'Reference: {{order.id}} end',
    'Signed: **{{signer}}**',
    'Not placeholders: \\{{ not a name! }} and \\${also bad}',
  ]);
  assert.equal(content(document).find((e) => e.type === 'table').rows, [['Total', '{{total}}']]);
  assert.is(document.defaults.header.text, 'Invoice for {{customer}}');
  assert.equal(report.variables, [
    { name: 'customer', occurrences: 3 },
    { name: 'total', occurrences: 2 },
    { name: 'order.id', occurrences: 1 },
    { name: 'signer', occurrences: 1 },
  ]);
  assert.equal(document.variables, { customer: '', total: '', 'order.id': '', signer: '' }, 'each variable declared with an empty value');
  assert.is(report.score, 100);

  // As imported it renders without UNKNOWN_VARIABLE warnings; with values filled in, pdftotext reads them.
  assert.equal((await renderPdf(document)).job.warnings, []);
  const values = { customer: 'ACME Ltd', total: '1,234.50 EUR', 'order.id': 'PO-778', signer: 'Ada Signer' };
  const text = (await popplerOutput('pdftotext', [], (await renderPdf({ ...document, variables: values })).bytes)).replace(/\s+/g, ' ');
  for (const s of ['Invoice for ACME Ltd', 'Invoice ACME Ltd', 'Dear ACME Ltd, the total is 1,234.50 EUR.', 'Reference: PO-778 end', 'Signed: Ada Signer', 'Not placeholders: {{ not a name! }} and ${also bad}', 'Total 1,234.50 EUR']) {
    assert.ok(text.includes(s), `PDF text lacks "${s}": ${text}`);
  }
  assert.not.ok(/\{\{(customer|total|order\.id|signer)|\$\{total/.test(text), text);
});

test('with placeholders "literal" keeps the braces as escaped text, declares no variables, and refuses an unknown option value with 400', async () => {
  const docx = await templateDocx();
  const { document, report } = await imported(docx, 'invoice-template.docx', { placeholders: 'literal' });
  assert.equal(texts(document), [
    'Invoice \\{{ customer }}',
    'Dear \\{{customer}}, the total is \\${total}.',
    'Reference: \\{{order.id}} end',
    'Signed: **\\{{sig**ner}}',
    'Not placeholders: \\{{ not a name! }} and \\${also bad}',
  ]);
  assert.is(document.defaults.header.text, 'Invoice for ${customer}', 'header text is plain text, kept as written');
  assert.equal(report.variables, []);
  assert.is(document.variables, undefined);
  const text = (await popplerOutput('pdftotext', [], (await renderPdf(document)).bytes)).replace(/\s+/g, ' ');
  for (const s of ['Invoice {{ customer }}', 'Dear {{customer}}, the total is ${total}.', 'Reference: {{order.id}} end', 'Signed: {{signer}}']) {
    assert.ok(text.includes(s), `PDF text lacks "${s}": ${text}`);
  }

  const bad = await importFile(docx, 'invoice-template.docx', { placeholders: 'keep' });
  assert.is(bad.status, 400, JSON.stringify(bad.body));
  assert.ok(JSON.stringify(bad.body).includes('placeholders'), JSON.stringify(bad.body));
});

test.run();
