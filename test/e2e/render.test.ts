// The render API end to end: POST /render → poll → download, with every output read back by poppler, qpdf and pdfjs.
// Longer than 400 lines: one started server serves all of the render endpoint's behaviours (each file starts its own, seconds apiece); sections below are by topic.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCanvas } from '@napi-rs/canvas';
import { startServer, admin, OWNER_KEY, cleanup, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { receiver, until } from '../helpers/webhook-receiver.js';
import { invoiceDocument } from '../fixtures/documents.js';
import { pdfPageTexts, qpdfCheck, pdfinfoPages } from '../fixtures/pdf-readers.js';
import { popplerOutput } from '../helpers/poppler.js';
import { PDF_PROFILES, RenderJobSchema } from '../../contracts/render.js';
import { encodeCanvas } from '../../engines/image/encode-canvas.js';

const RENDER = '/api/v1/dev/render';
const CM = 72 / 2.54;

// `prod` keeps the default outbound policy and holds two organizations; `dev` allows private targets so that
// loopback webhook receivers and image servers can be reached, and has render-odt disabled. startServer turns the rate limit off (polling).
const prodDir = tempDir();
let prod: RunningServer;
let dev: RunningServer;
let api: ApiClient;
let otherOrg: ApiClient;
let devApi: ApiClient;
let redPng: Buffer;

test.before(async () => {
  const prepareProd = async () => {
    // Created before the first start: the bootstrap key joins the oldest organization, "Main".
    const main = await admin(prodDir, ['org', 'create', '--name', 'Main', '--credits', '1000']);
    assert.is(main.code, 0, main.stderr);
    const other = await admin(prodDir, ['org', 'create', '--name', 'Other', '--credits', '10']);
    assert.is(other.code, 0, other.stderr);
    const key = await admin(prodDir, ['key', 'create', '--org', other.json.id, '--role', 'owner']);
    assert.is(key.code, 0, key.stderr);
    return { server: await startServer({ dataDir: prodDir }), otherKey: key.json.key as string };
  };
  const [p, d, png] = await Promise.all([prepareProd(), startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' }, config: { plugins: { 'render-odt': { enabled: false } } } }), redSquarePng()]);
  prod = p.server;
  dev = d;
  redPng = png;
  api = new ApiClient(prod.baseUrl, OWNER_KEY);
  otherOrg = new ApiClient(prod.baseUrl, p.otherKey);
  devApi = new ApiClient(dev.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await Promise.all([prod?.stop(), dev?.stop()]);
  cleanup(prodDir);
  if (dev) cleanup(dev.dataDir);
});

// ---------------------------------------------------------------- helpers

type Json = Record<string, any>;

function doc(content: Json[], document: Json = {}, extra: Json = {}): Json {
  return { document: { type: 'pdf', ...document }, sections: [{ type: 'flow', content }], ...extra };
}

async function waitForRender(client: ApiClient, jobId: string, timeoutMs = 30_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await client.get(`${RENDER}/${jobId}`);
    if (r.status !== 200) throw new Error(`render job ${jobId} answered ${r.status}: ${r.bytes.toString()}`);
    if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED') return r.body;
    if (Date.now() > deadline) throw new Error(`render job ${jobId} still ${r.body.status} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Creates a render job (expecting 202) and polls it to its end. */
async function renderJob(client: ApiClient, body: Json, query = ''): Promise<Json> {
  const created = await client.post(RENDER + query, body);
  if (created.status !== 202) throw new Error(`POST /render answered ${created.status}: ${created.bytes.toString()}`);
  return waitForRender(client, created.body.jobId);
}

/** Renders to completion and downloads the PDF through its downloadUrl. */
async function renderPdf(client: ApiClient, body: Json): Promise<{ job: Json; pdf: Buffer }> {
  const job = await renderJob(client, body);
  if (job.status !== 'COMPLETED') throw new Error(`render failed: ${job.errorCode} ${job.error}`);
  const dl = await client.withKey(null).download(job.downloadUrl);
  if (dl.status !== 200) throw new Error(`download answered ${dl.status}: ${dl.bytes.toString()}`);
  return { job, pdf: dl.bytes };
}

let invoice: Promise<{ created: ApiResponse; job: Json; pdf: Buffer }> | undefined;
/** The fixture invoice, rendered once and shared by the tests that read it. */
function renderedInvoice() {
  invoice ??= (async () => {
    const created = await api.post(RENDER, { config: invoiceDocument(1) });
    assert.is(created.status, 202, created.bytes.toString());
    const job = await waitForRender(api, created.body.jobId);
    const dl = await api.withKey(null).download(job.downloadUrl);
    return { created, job, pdf: dl.bytes };
  })();
  return invoice;
}

async function uploadImage(client: ApiClient, bytes: Uint8Array, filename: string): Promise<Json> {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), filename);
  const res = await fetch(client.baseUrl + '/api/v1/dev/images/upload', { method: 'POST', headers: { 'X-API-Key': client.key! }, body: form });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`image upload answered ${res.status}: ${JSON.stringify(body)}`);
  return body as Json;
}

async function redSquarePng(): Promise<Buffer> {
  const canvas = createCanvas(40, 30);
  const g = canvas.getContext('2d');
  g.fillStyle = '#cc0000';
  g.fillRect(0, 0, 40, 30);
  return encodeCanvas(canvas, 'png');
}

/** `pdfinfo` as a map of its `Key: value` lines. */
async function pdfinfo(pdf: Uint8Array): Promise<Record<string, string>> {
  const out = await popplerOutput('pdfinfo', [], pdf);
  return Object.fromEntries(out.split('\n').flatMap((line) => {
    const m = /^([^:]+):\s+(.*)$/.exec(line);
    return m ? [[m[1]!.trim(), m[2]!.trim()]] : [];
  }));
}

function pageSize(info: Record<string, string>): [number, number] {
  const m = /^([\d.]+) x ([\d.]+) pts/.exec(info['Page size'] ?? '');
  if (!m) throw new Error(`no page size in ${JSON.stringify(info)}`);
  return [Number(m[1]), Number(m[2])];
}

/** An XMP property as written in the file's metadata stream (element or attribute form), read by `pdfinfo -meta`. */
function xmpValue(xmp: string, name: string): string | null {
  return new RegExp(`<${name}>([^<]*)</${name}>|${name}="([^"]*)"`).exec(xmp)?.slice(1).find((v) => v !== undefined) ?? null;
}

/** Position of the first word of page 1 (pdftotext -bbox). */
async function firstWordBox(pdf: Uint8Array): Promise<{ word: string; xMin: number; yMin: number }> {
  const html = await popplerOutput('pdftotext', ['-bbox'], pdf);
  const m = /<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/.exec(html);
  if (!m) throw new Error('no words in the PDF');
  return { xMin: Number(m[1]), yMin: Number(m[2]), word: m[3]! };
}

/** The images of a PDF as `pdfimages -list` reports them (page, type, width, height). */
async function pdfImages(pdf: Uint8Array): Promise<Array<{ page: number; type: string; width: number; height: number }>> {
  const out = await popplerOutput('pdfimages', ['-list'], pdf);
  return out
    .split('\n')
    .slice(2)
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length > 4)
    .map((c) => ({ page: Number(c[0]), type: c[2]!, width: Number(c[3]), height: Number(c[4]) }));
}

async function balance(client: ApiClient): Promise<Json> {
  const r = await client.get('/api/v1/dev/credits');
  assert.is(r.status, 200);
  return r.body;
}

function codes(r: ApiResponse): string[] {
  return (r.body.errors ?? []).map((e: { code: string }) => e.code);
}

// ---------------------------------------------------------------- creation, polling, download

test('answers 202 with a Location header and the creation body of the spec', async () => {
  const { created } = await renderedInvoice();
  const body = created.body;
  assert.is(created.headers.get('location'), `${RENDER}/${body.jobId}`);
  assert.match(body.jobId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(Object.keys(body).sort(), Object.keys(RenderJobSchema.properties).sort(), 'the creation body holds exactly the documented fields');
  assert.is(body.status, 'PENDING');
  assert.is(body.format, 'PDF');
  assert.is(body.creditCost, 1);
  assert.is(body.filename, 'invoice-1.pdf');
  assert.is(body.filloutId, null);
  assert.is(body.downloadUrl, null);
  assert.is(body.error, null);
  assert.is(body.completedAt, null);
  assert.is(body.pdfProfile, 'standard');
  assert.is(body.pdfCompliance, null);
  assert.equal(body.warnings, []);
  assert.ok(!Number.isNaN(Date.parse(body.createdAt)));
});

test('polls to COMPLETED with progress 100, a page count, completedAt and a signed downloadUrl', async () => {
  const { created, job } = await renderedInvoice();
  assert.is(job.jobId, created.body.jobId);
  assert.is(job.status, 'COMPLETED');
  assert.is(job.progress, 100);
  assert.is(job.pageCount, 1);
  assert.is(job.error, null);
  assert.is(job.errorCode, null);
  assert.is(job.createdAt, created.body.createdAt);
  assert.ok(Date.parse(job.completedAt) >= Date.parse(job.createdAt));
  assert.match(job.downloadUrl, `${prod.baseUrl}${RENDER}/${job.jobId}/download?token=`);
  assert.equal(job.pdfCompliance, { profile: 'standard', tagged: true, pdfaPart: null, pdfaConformance: null, pdfuaPart: null, pdfVersion: '1.7' });
});

test('serves the PDF at downloadUrl without an API key, with the Content-Disposition file name', async () => {
  const { job } = await renderedInvoice();
  const dl = await api.withKey(null).download(job.downloadUrl);
  assert.is(dl.status, 200);
  assert.is(dl.headers.get('content-type'), 'application/pdf');
  assert.match(dl.headers.get('content-disposition') ?? '', 'filename="invoice-1.pdf"');
  assert.is(dl.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  const check = await qpdfCheck(dl.bytes);
  assert.ok(check.ok, check.output);
  assert.is(await pdfinfoPages(dl.bytes), job.pageCount);
});

test('refuses a tampered or missing download token with 401 and accepts the API key on the download path', async () => {
  const { job, pdf } = await renderedInvoice();
  const url = new URL(job.downloadUrl);
  const token = url.searchParams.get('token')!;
  const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
  const anon = api.withKey(null);
  const tampered = await anon.get(`${url.pathname}?token=${encodeURIComponent(flipped)}`);
  assert.is(tampered.status, 401);
  assert.is(tampered.body.code, 'UNAUTHENTICATED');
  assert.is((await anon.get(url.pathname)).status, 401);
  const withKey = await api.get(url.pathname);
  assert.is(withKey.status, 200);
  assert.ok(withKey.bytes.equals(pdf), 'the API key downloads the same bytes');
});

test('names the download document.pdf when the document has no filename', async () => {
  const created = await api.post(RENDER, { config: doc([{ type: 'text', text: 'No name' }]) });
  assert.is(created.status, 202);
  assert.is(created.body.filename, 'document.pdf');
  const job = await waitForRender(api, created.body.jobId);
  assert.is(job.filename, 'document.pdf');
  const dl = await api.download(`${prod.baseUrl}${RENDER}/${job.jobId}/download`, true);
  assert.is(dl.status, 200);
  assert.match(dl.headers.get('content-disposition') ?? '', 'filename="document.pdf"');
});

test('charges creditCost exactly once for a completed render and nothing for a failed one', async () => {
  const before = await balance(api);
  const created = await api.post(RENDER, { config: doc([{ type: 'text', text: 'Charged once' }]) });
  const job = await waitForRender(api, created.body.jobId);
  assert.is(job.status, 'COMPLETED');
  for (let i = 0; i < 3; i++) await api.get(`${RENDER}/${job.jobId}`);
  await api.download(job.downloadUrl);
  const after = await balance(api);
  assert.is(after.balance, before.balance - created.body.creditCost);
  assert.is(after.reserved, 0);
  const charges = after.entries.filter((e: Json) => e.jobId === job.jobId);
  assert.is(charges.length, 1);
  assert.is(charges[0].kind, 'charge');
  assert.is(charges[0].amount, -created.body.creditCost);

  const failed = await renderJob(api, { config: doc([{ type: 'math', latex: '\\frac{1}{' }]) });
  assert.is(failed.status, 'FAILED');
  const end = await balance(api);
  assert.is(end.balance, after.balance);
  assert.is(end.reserved, 0);
  assert.is(end.entries.filter((e: Json) => e.jobId === failed.jobId).length, 0);
});

// ---------------------------------------------------------------- what the PDF holds

test('prints the customer, every line item, the totals, and the header and footer with "Page 1 of 1" (pdftotext)', async () => {
  const { pdf } = await renderedInvoice();
  const config = invoiceDocument(1) as Json;
  const text = await popplerOutput('pdftotext', ['-layout'], pdf);
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  assert.is(lines[0], 'Quire Test Ltd', 'the header is the first line');
  assert.is(lines.at(-1), 'Quire Test Ltd · Registered in Ireland · Page 1 of 1', 'the footer is the last line');
  assert.ok(lines.includes('Invoice INV-00001'));
  assert.ok(lines.includes('ACME Ltd'));
  assert.ok(lines.includes('Date: 2026-11-22 · Due: 2026-12-22'));
  const [items, totals] = config.sections[0].content.filter((e: Json) => e.type === 'table') as Json[];
  for (const row of items!.rows.slice(1) as string[][]) {
    const pattern = row.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
    assert.match(text, new RegExp(pattern), `line item ${row[0]}`);
  }
  for (const [label, amount] of totals!.rows as string[][]) {
    assert.match(text, new RegExp(`${label!.replace(/\*/g, '')}\\s+${amount!.replace(/\*/g, '').replace('.', '\\.')}`));
  }
  // A second, independent reader agrees.
  const [page] = await pdfPageTexts(pdf);
  assert.match(page!, 'ACME Ltd');
  assert.match(page!, '7712.10');
  assert.match(page!, 'Page 1 of 1');
});

test('writes title, author, subject and keywords to the document information and an A4 page (pdfinfo)', async () => {
  const { pdf } = await renderedInvoice();
  const info = await pdfinfo(pdf);
  assert.is(info.Title, 'Invoice INV-00001');
  assert.is(info.Author, 'Quire Test Ltd');
  assert.is(info.Subject, 'Invoice');
  assert.is(info.Keywords, 'invoice, billing');
  assert.is(info.Tagged, 'yes');
  const [w, h] = pageSize(info);
  assert.ok(Math.abs(w - 595.28) < 0.01 && Math.abs(h - 841.89) < 0.01, info['Page size']);
});

test('writes the same metadata into the XMP stream (pdfinfo -meta)', async () => {
  const { pdf } = await renderedInvoice();
  const xmp = await popplerOutput('pdfinfo', ['-meta'], pdf);
  assert.match(xmp, /<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Invoice INV-00001<\/rdf:li><\/rdf:Alt><\/dc:title>/);
  assert.match(xmp, /<dc:creator><rdf:Seq><rdf:li>Quire Test Ltd<\/rdf:li><\/rdf:Seq><\/dc:creator>/);
  assert.match(xmp, /<dc:description><rdf:Alt><rdf:li xml:lang="x-default">Invoice<\/rdf:li><\/rdf:Alt><\/dc:description>/);
  assert.is(xmpValue(xmp, 'pdf:Keywords'), 'invoice, billing');
});

test('lays out Letter landscape as 792 x 612 points', async () => {
  const { pdf } = await renderPdf(api, { config: doc([{ type: 'text', text: 'Wide' }], { size: 'Letter', orientation: 'landscape' }) });
  const [w, h] = pageSize(await pdfinfo(pdf));
  assert.is(w, 792);
  assert.is(h, 612);
});

test('moves the text by exactly the difference of the margins', async () => {
  const content = [{ type: 'text', text: 'Marginal text' }];
  const [narrow, wide] = await Promise.all([
    renderPdf(api, { config: doc(content, { marginLeft: 1, marginTop: 1 }) }),
    renderPdf(api, { config: doc(content, { marginLeft: 5, marginTop: 3.5 }) }),
  ]);
  const a = await firstWordBox(narrow.pdf);
  const b = await firstWordBox(wide.pdf);
  assert.is(a.word, 'Marginal');
  assert.is(b.word, 'Marginal');
  assert.ok(Math.abs(a.xMin - 1 * CM) < 0.5, `text starts 1 cm from the left edge (${a.xMin} pt)`);
  assert.ok(Math.abs(b.xMin - a.xMin - 4 * CM) < 0.5, `4 cm more left margin moves the text ${b.xMin - a.xMin} pt`);
  assert.ok(Math.abs(b.yMin - a.yMin - 2.5 * CM) < 0.5, `2.5 cm more top margin moves the text ${b.yMin - a.yMin} pt`);
});

// ---------------------------------------------------------------- PDF profiles

test('renders every profile tagged, with its identification in the XMP of the file', async () => {
  const results = await Promise.all(PDF_PROFILES.map((p) => renderPdf(api, { config: invoiceDocument(2), pdfProfile: p })));
  for (const [i, profile] of PDF_PROFILES.entries()) {
    const { job, pdf } = results[i]!;
    const a = /^pdfa-(\d)b$/.exec(profile);
    const ua = profile === 'pdfua-1';
    assert.is(job.status, 'COMPLETED', profile);
    assert.is(job.pdfProfile, profile);
    assert.is(job.pdfCompliance.profile, profile);
    assert.is(job.pdfCompliance.tagged, true, profile);
    assert.is(job.pdfCompliance.pdfaPart, a ? Number(a[1]) : null, profile);
    assert.is(job.pdfCompliance.pdfaConformance, a ? 'B' : null, profile);
    assert.is(job.pdfCompliance.pdfuaPart, ua ? 1 : null, profile);
    // Independently: what poppler reads from the file itself.
    const info = await pdfinfo(pdf);
    assert.is(info.Tagged, 'yes', profile);
    assert.is(info['PDF version'], job.pdfCompliance.pdfVersion, profile);
    const xmp = await popplerOutput('pdfinfo', ['-meta'], pdf);
    assert.is(xmpValue(xmp, 'pdfaid:part'), a ? a[1]! : null, `${profile} pdfaid:part`);
    assert.is(xmpValue(xmp, 'pdfaid:conformance'), a ? 'B' : null, `${profile} pdfaid:conformance`);
    assert.is(xmpValue(xmp, 'pdfuaid:part'), ua ? '1' : null, `${profile} pdfuaid:part`);
    const check = await qpdfCheck(pdf);
    assert.ok(check.ok, `${profile}: ${check.output}`);
  }
  assert.is(results[PDF_PROFILES.indexOf('pdfa-1b')]!.job.pdfCompliance.pdfVersion, '1.4', 'PDF/A-1 is based on PDF 1.4');
});

test('fails a PDF/UA-1 render without document.title with PROFILE_UNMET naming config.document.title', async () => {
  const job = await renderJob(api, { config: doc([{ type: 'text', text: 'Untitled' }]), pdfProfile: 'pdfua-1' });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PROFILE_UNMET');
  assert.match(job.error, 'config.document.title');
  assert.match(job.error, 'pdfua-1');
  assert.is(job.downloadUrl, null);
  assert.is(job.pdfProfile, 'pdfua-1');
  assert.is(job.pdfCompliance, null);
});

test('fails a PDF/UA-1 render of an image with neither alt text nor a caption, naming its path', async () => {
  const image = await uploadImage(api, redPng, 'red.png');
  const job = await renderJob(api, {
    config: doc([{ type: 'text', text: 'Figure follows' }, { type: 'image', src: image.path, alt: 'A red square' }, { type: 'image', src: image.path, alt: '' }], { title: 'Images' }),
    pdfProfile: 'pdfua-1',
  });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PROFILE_UNMET');
  assert.match(job.error, 'config.sections[0].content[2].alt');
  assert.not.match(job.error, 'content[1]');
});

test('fails a PDF/UA-1 render listing every path that the readiness report gives as an error, and only those', async () => {
  const image = await uploadImage(api, redPng, 'red.png');
  const config = doc(
    [
      { type: 'h1', text: 'Report' },
      { type: 'image', src: image.path, alt: '' },
      { type: 'table', rows: [['a', 'b'], ['1', '2']] },
      { type: 'variableRef', name: 'logo' },
      { type: 'image', src: image.path, alt: 'Described' },
    ],
    {},
    { variables: { logo: { type: 'image', src: image.path } } },
  );
  const report = await api.post(`${RENDER}/readiness`, { config, pdfProfile: 'pdfua-1' });
  assert.is(report.status, 200, report.bytes.toString());
  const errorPaths = report.body.issues.filter((i: Json) => i.severity === 'error').map((i: Json) => i.path).sort();
  assert.equal(errorPaths, ['config.document.title', 'config.sections[0].content[1].alt', 'config.variables.logo.alt']);
  const job = await renderJob(api, { config, pdfProfile: 'pdfua-1' });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PROFILE_UNMET');
  for (const p of errorPaths) assert.ok(job.error.includes(p), `${p} in ${job.error}`);
  assert.not.match(job.error, 'content[4]');
  // A table without a header row is a warning of the report, and no reason to refuse the render.
  assert.not.match(job.error, 'headerRows');
  // Fixed as the report suggests, the same document renders.
  const fixed = structuredClone(config);
  fixed.document.title = 'Report';
  fixed.sections[0].content[1].alt = 'A red square';
  fixed.variables.logo.alt = 'Logo';
  const ready = await api.post(`${RENDER}/readiness`, { config: fixed, pdfProfile: 'pdfua-1' });
  assert.is(ready.body.status, 'ready', JSON.stringify(ready.body.issues));
  const { job: done } = await renderPdf(api, { config: fixed, pdfProfile: 'pdfua-1' });
  assert.is(done.pdfCompliance.pdfuaPart, 1);
});

test('hyphenates justified text by the rules of defaults.locale', async () => {
  const text = 'Die Donaudampfschifffahrtsgesellschaft beschäftigt Kapitäne, Schiffsingenieure und Verwaltungsangestellte in verschiedenen Niederlassungen entlang der Wasserstraße.';
  const lines = async (locale: string) => {
    const config = { document: { type: 'pdf' }, sections: [{ type: 'flow', columns: { count: 4 }, content: [{ type: 'text', align: 'justify', text }] }], defaults: { locale } };
    const { pdf } = await renderPdf(api, { config });
    return (await popplerOutput('pdftotext', ['-raw', '-enc', 'UTF-8'], pdf)).split('\n');
  };
  // Typst marks a break inside a word with a soft hyphen (U+00AD) at the end of the line.
  const [de, en] = await Promise.all([lines('de-DE'), lines('en-US')]);
  assert.ok(de.includes('fahrtsgesell\u00ad'), `German patterns: ${JSON.stringify(de)}`);
  assert.ok(de.includes('Schiffsingenieu\u00ad'), JSON.stringify(de));
  assert.ok(en.includes('fahrtsge\u00ad'), `English patterns break the same words elsewhere: ${JSON.stringify(en)}`);
  assert.not.ok(en.includes('Schiffsingenieu\u00ad'), JSON.stringify(en));
});

test('sans, serif and mono each come in regular, italic, bold and bold italic, with Greek and Cyrillic', async () => {
  const line = (family: string) => ({ type: 'text', text: `${family}: plain αβγ Привет, *italic*, **bold**, ***both***.`, style: { fontFamily: family } });
  const config = doc([line('sans'), line('serif'), line('mono'), { type: 'text', text: 'Code: `plain`, *`italic`*, **`bold`**, ***`both`***.' }, { type: 'code', code: 'λ → Ωμέγα; Привет' }], { title: 'Fonts' });
  const { job, pdf } = await renderPdf(api, { config });
  assert.equal(job.warnings, []);
  const fonts = await popplerOutput('pdffonts', [], pdf);
  for (const face of ['NotoSans-Regular', 'NotoSans-Italic', 'NotoSans-Bold', 'NotoSans-BoldItalic', 'NotoSerif-Regular', 'NotoSerif-Italic', 'NotoSerif-Bold', 'NotoSerif-BoldItalic', 'JetBrainsMono-Regular', 'JetBrainsMono-Italic', 'JetBrainsMono-Bold', 'JetBrainsMono-BoldItalic']) {
    assert.match(fonts, face, `${face} embedded:\n${fonts}`);
  }
  const text = (await popplerOutput('pdftotext', ['-enc', 'UTF-8'], pdf)).replace(/\s+/g, ' ');
  assert.match(text, 'mono: plain αβγ Привет, italic, bold, both.');
  assert.match(text, 'λ → Ωμέγα; Привет');
});

test('a font family that is not installed renders in the default font with a FONT_NOT_INSTALLED warning per place', async () => {
  const config = doc([{ type: 'text', text: 'Body.' }, { type: 'text', text: 'Styled.', style: { fontFamily: 'Comic Sans MS' } }], { title: 'Fonts' }, { defaults: { fonts: { family: 'Helvetica Neue' } } });
  const { job, pdf } = await renderPdf(api, { config });
  assert.equal(
    job.warnings.map((w: Json) => [w.path, w.code]),
    [
      ['config.defaults.fonts.family', 'FONT_NOT_INSTALLED'],
      ['config.sections[0].content[1].style.fontFamily', 'FONT_NOT_INSTALLED'],
    ],
  );
  assert.match(job.warnings[0].message, 'Helvetica Neue');
  const fonts = await popplerOutput('pdffonts', [], pdf);
  assert.match(fonts, 'NotoSans');
  assert.not.match(fonts, /Helvetica|Comic/);
});

test('accepts a caption in place of alt text under PDF/UA-1', async () => {
  const image = await uploadImage(api, redPng, 'red.png');
  const { job, pdf } = await renderPdf(api, {
    config: doc([{ type: 'image', src: image.path, alt: '', caption: 'A **red** square' }], { title: 'Captioned' }),
    pdfProfile: 'pdfua-1',
  });
  assert.is(job.pdfCompliance.pdfuaPart, 1);
  assert.match((await pdfPageTexts(pdf))[0]!, 'A red square');
  assert.is((await pdfImages(pdf)).filter((i) => i.type === 'image').length, 1);
});

// ---------------------------------------------------------------- validation

test('rejects a document that breaks the contract with 400 VALIDATION_FAILED and config paths', async () => {
  const r = await api.post(RENDER, { config: doc([{ type: 'text', text: 5 }]) });
  assert.is(r.status, 400);
  assert.is(r.headers.get('content-type'), 'application/problem+json');
  assert.is(r.body.code, 'VALIDATION_FAILED');
  assert.equal(r.body.errors, [{ path: 'config.sections[0].content[0].text', message: 'must be a string', code: 'INVALID_FIELD' }]);
  const size = await api.post(RENDER, { config: doc([], { size: 'B5' }) });
  assert.is(size.status, 400);
  assert.is(size.body.errors[0].path, 'config.document.size');
});

test('rejects duplicate anchor ids with 400 even without strict mode', async () => {
  for (const query of ['', '?strict=false']) {
    const r = await api.post(RENDER + query, { config: doc([{ type: 'h1', text: 'One', id: 'dup' }, { type: 'h2', text: 'Two', id: 'dup' }]) });
    assert.is(r.status, 400, query);
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.equal(codes(r), ['DUPLICATE_ANCHOR']);
    assert.is(r.body.errors[0].path, 'config.sections[0].content[1].id');
  }
});

const UNRESOLVED = doc([{ type: 'text', text: 'See [the missing part](#nowhere), @[nokey] and ~NOPE~.' }]);

test('renders broken references, undefined citations and abbreviations with warnings on the job', async () => {
  const created = await api.post(RENDER, { config: UNRESOLVED });
  assert.is(created.status, 202);
  const expected = ['BROKEN_REFERENCE', 'UNDEFINED_CITATION', 'UNDEFINED_ABBREVIATION'];
  assert.equal(created.body.warnings.map((w: Json) => w.code), expected);
  for (const w of created.body.warnings) assert.is(w.path, 'config.sections[0].content[0].text');
  const job = await waitForRender(api, created.body.jobId);
  assert.is(job.status, 'COMPLETED');
  assert.equal(job.warnings, created.body.warnings);
  const dl = await api.withKey(null).download(job.downloadUrl);
  const text = (await popplerOutput('pdftotext', [], dl.bytes)).replace(/\s+/g, ' ');
  assert.match(text, 'See the missing part,', 'a broken link prints as its label');
  // The unresolved keys stay visible (today as "[nokey]" and "NOPE"; docs/rendering.md says "as written").
  assert.match(text, 'nokey');
  assert.match(text, 'NOPE');
});

test('rejects the same references with 400 under ?strict=true, and an unreadable strict value', async () => {
  for (const query of ['?strict=true', '?strict=1', '?strict']) {
    const r = await api.post(RENDER + query, { config: UNRESOLVED });
    assert.is(r.status, 400, query);
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.equal(codes(r), ['BROKEN_REFERENCE', 'UNDEFINED_CITATION', 'UNDEFINED_ABBREVIATION'], query);
  }
  const maybe = await api.post(`${RENDER}?strict=maybe`, { config: doc([]) });
  assert.is(maybe.status, 400);
  assert.is(maybe.body.errors[0].path, 'query.strict');
});

test('a target the operator disabled answers 404 PLUGIN_DISABLED naming its plugin, and admits no job', async () => {
  // The dev server runs with render-odt disabled (test.before); pdf, docx and odt are all installed.
  const before = await balance(devApi);
  const r = await devApi.post(RENDER, { config: doc([{ type: 'text', text: 'x' }], { type: 'odt' }) });
  assert.is(r.status, 404, r.bytes.toString());
  assert.is(r.body.code, 'PLUGIN_DISABLED');
  assert.match(r.body.detail, 'render-odt');
  assert.is((await balance(devApi)).reserved, before.reserved, 'no job was admitted');
});

test('fails a render of a part it cannot draw (LaTeX the converter refuses) with INVALID_DOCUMENT naming its path', async () => {
  const job = await renderJob(api, { config: doc([{ type: 'text', text: 'Before' }, { type: 'math', latex: '\\frac{1}{' }]) });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'INVALID_DOCUMENT');
  assert.match(job.error, 'sections[0].content[1]');
  assert.match(job.error, 'LaTeX');
  const dl = await api.get(`${RENDER}/${job.jobId}/download`);
  assert.is(dl.status, 404);
  assert.match(dl.body.detail, 'FAILED');
});

test('refuses a render whose blockRef names no block of the organization with 400 BLOCK_UNAVAILABLE at its path, admitting nothing', async () => {
  const r = await api.post(RENDER, { config: doc([{ type: 'text', text: 'Before' }, { type: 'blockRef', blockId: 'legal-footer', mode: 'linked' }]) });
  assert.is(r.status, 400, r.bytes.toString());
  assert.equal(r.body.errors.map((e: Json) => [e.path, e.code]), [['config.sections[0].content[1]', 'BLOCK_UNAVAILABLE']]);
  assert.match(r.body.errors[0].message, 'reusable block legal-footer was not found');
});

test('rejects an unknown body field and an unknown pdfProfile with 400', async () => {
  const extra = await api.post(RENDER, { config: doc([]), format: 'PDF' });
  assert.is(extra.status, 400);
  assert.equal(extra.body.errors, [{ path: 'format', message: 'is not an allowed field', code: 'INVALID_FIELD' }]);
  const pdfx = await api.post(RENDER, { config: doc([]), pdfProfile: 'pdfx' });
  assert.is(pdfx.status, 400);
  assert.is(pdfx.body.code, 'VALIDATION_FAILED');
  assert.ok(pdfx.body.errors.length > 0 && pdfx.body.errors.every((e: Json) => e.path === 'pdfProfile'));
  const noConfig = await api.post(RENDER, { pdfProfile: 'standard' });
  assert.is(noConfig.status, 400);
});

// ---------------------------------------------------------------- images

test('draws an uploaded /temp-image (pdfimages finds it on the page)', async () => {
  const image = await uploadImage(api, redPng, 'red.png');
  assert.is(image.path, `/temp-image/${image.id}`);
  const { pdf } = await renderPdf(api, { config: doc([{ type: 'h1', text: 'Picture' }, { type: 'image', src: image.path, alt: 'A red square', width: 4 }], { title: 'Picture' }) });
  const images = (await pdfImages(pdf)).filter((i) => i.type === 'image');
  assert.equal(images, [{ page: 1, type: 'image', width: 40, height: 30 }]);
});

test("answers 400 for an unknown temp image, another organization's temp image and an /image/ reference", async () => {
  const theirs = await uploadImage(otherOrg, redPng, 'theirs.png');
  const sources = ['/temp-image/3f1c2a9e-0b1d-4c55-9a7e-2b4f6c8d0e11', theirs.path, '/image/7d3c2b1a'];
  const details: string[] = [];
  for (const src of sources) {
    const r = await api.post(RENDER, { config: doc([{ type: 'text', text: 'x' }, { type: 'image', src, alt: 'x' }]) });
    assert.is(r.status, 400, src);
    assert.equal(codes(r), ['IMAGE_NOT_FOUND'], src);
    assert.is(r.body.errors[0].path, 'config.sections[0].content[1].src', src);
    assert.match(r.body.errors[0].message, src);
    details.push(r.body.errors[0].message.replace(src, '<src>'));
  }
  assert.is(details[1], details[0], "another organization's image reads exactly like an unknown one");
  // The owner can use it.
  assert.is((await otherOrg.post(RENDER, { config: doc([{ type: 'image', src: theirs.path, alt: 'x' }]) })).status, 202);
});

test('refuses an image URL on a loopback address at creation, naming the image and the policy', async () => {
  const src = 'https://127.0.0.1:8443/x.png';
  const r = await api.post(RENDER, { config: doc([{ type: 'text', text: 'x' }, { type: 'image', src, alt: 'x' }]) });
  assert.is(r.status, 400);
  assert.equal(r.body.errors, [
    { path: 'config.sections[0].content[1].src', code: 'URL_REFUSED', message: 'the URL points to 127.0.0.1, a loopback address; set QUIRE_ALLOW_PRIVATE_NETWORK=true to allow private targets in development' },
  ]);
  const plainHttp = await api.post(RENDER, { config: doc([{ type: 'image', src: 'http://example.com/x.png', alt: 'x' }]) });
  assert.is(plainHttp.status, 400, 'only https URLs are images');
  assert.is(plainHttp.body.errors[0].path, 'config.sections[0].content[0].src');
});

test('fails the job, naming the image, when an allowed image URL cannot be fetched', async () => {
  // A plain-HTTP loopback server: the TLS handshake of the https:// fetch fails against it.
  const plain = http.createServer((_req, res) => res.end('not tls'));
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
  const src = `https://127.0.0.1:${(plain.address() as AddressInfo).port}/x.png`;
  try {
    const job = await renderJob(devApi, { config: doc([{ type: 'image', src, alt: 'x' }]) });
    assert.is(job.status, 'FAILED');
    assert.is(job.errorCode, 'INPUT_MISSING');
    assert.ok(job.error.startsWith(`Image ${src} could not be fetched: `), job.error);
  } finally {
    await new Promise((r) => plain.close(r));
  }
});

// ---------------------------------------------------------------- tenancy

test("hides another organization's render job: 404 on status and download", async () => {
  const { job } = await renderedInvoice();
  const status = await otherOrg.get(`${RENDER}/${job.jobId}`);
  assert.is(status.status, 404);
  assert.is(status.body.code, 'NOT_FOUND');
  assert.is((await otherOrg.get(`${RENDER}/${job.jobId}/download`)).status, 404);
  assert.is((await api.get(`${RENDER}/00000000-0000-4000-8000-000000000000`)).status, 404);
  assert.is((await api.get(`${RENDER}/not-a-job`)).status, 404);
});

test("refuses job A's download token on job B's path with 401", async () => {
  const { job: a } = await renderedInvoice();
  const b = await renderJob(api, { config: doc([{ type: 'text', text: 'B' }]) });
  const token = new URL(a.downloadUrl).searchParams.get('token')!;
  const r = await api.withKey(null).get(`${RENDER}/${b.jobId}/download?token=${encodeURIComponent(token)}`);
  assert.is(r.status, 401);
  assert.is(r.body.code, 'UNAUTHENTICATED');
});

// ---------------------------------------------------------------- webhooks

test('posts job.completed with exactly the render event fields', async () => {
  const hook = await receiver();
  try {
    const job = await renderJob(devApi, { config: invoiceDocument(7), webhook: { webhookUrl: hook.url } });
    assert.is(job.status, 'COMPLETED');
    await until(() => hook.calls.length === 1);
    const call = hook.calls[0]!;
    assert.is(call.headers['user-agent'], 'Quire-Webhook/1.0');
    assert.equal(call.body, { event: 'job.completed', jobType: 'render', jobId: job.jobId, status: 'COMPLETED', filename: 'invoice-7.pdf', completedAt: job.completedAt });
  } finally {
    await hook.close();
  }
});

test('posts job.failed with the error of a failed render', async () => {
  const hook = await receiver();
  try {
    const job = await renderJob(devApi, { config: doc([{ type: 'text', text: 'x' }]), pdfProfile: 'pdfua-1', webhook: { webhookUrl: hook.url } });
    assert.is(job.status, 'FAILED');
    await until(() => hook.calls.length === 1);
    assert.equal(hook.calls[0]!.body, { event: 'job.failed', jobType: 'render', jobId: job.jobId, status: 'FAILED', error: job.error, errorCode: 'PROFILE_UNMET', completedAt: job.completedAt });
  } finally {
    await hook.close();
  }
});

test('refuses a loopback webhook URL at creation under the default policy', async () => {
  const r = await api.post(RENDER, { config: doc([]), webhook: { webhookUrl: 'http://127.0.0.1:9/hook' } });
  assert.is(r.status, 400);
  assert.is(r.body.errors[0].path, 'webhook.webhookUrl');
});

// ---------------------------------------------------------------- OpenAPI

test('lists the three render routes in the OpenAPI document', async () => {
  const r = await api.get('/api/v1/dev/openapi.json');
  assert.is(r.status, 200);
  const paths = r.body.paths;
  assert.ok(paths[RENDER]?.post?.responses?.['202'], 'POST /render answers 202');
  assert.ok(paths[`${RENDER}/{jobId}`]?.get, 'GET /render/{jobId}');
  assert.ok(paths[`${RENDER}/{jobId}/download`]?.get, 'GET /render/{jobId}/download');
});

test.run();
