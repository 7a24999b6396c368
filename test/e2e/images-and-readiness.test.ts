// Temporary image uploads (types by content, safe SVG, pixel limits, not tool files) and the readiness check of a document's source.
// Longer than 400 lines: two related surfaces (image uploads and the readiness check) share one started server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import { startServer, admin, OWNER_KEY, ROOT, cleanup, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient, type ApiResponse } from '../helpers/api-client.js';
import { makePdf } from '../fixtures/pdfs.js';
import { READINESS_CODES, SCORE_PENALTY } from '../../document/readiness.js';

const dataDir = tempDir();
const MAX_IMAGE_BYTES = 1024 * 1024;
let server: RunningServer;
let api: ApiClient;
let otherOrg: ApiClient;

test.before(async () => {
  const first = await startServer({ dataDir });
  await first.stop();
  const created = await admin(dataDir, ['org', 'create', '--name', 'Other Org', '--credits', '10']);
  assert.is(created.code, 0, created.stderr);
  const otherKey = await admin(dataDir, ['key', 'create', '--org', created.json.id, '--role', 'owner']);
  server = await startServer({ dataDir, env: { QUIRE_MAX_IMAGE_BYTES: String(MAX_IMAGE_BYTES) } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  otherOrg = new ApiClient(server.baseUrl, otherKey.json.key);
});

test.after(async () => {
  await server.stop();
  cleanup(dataDir);
});

// ---------------------------------------------------------------- fixtures

/**
 * Encoded on this thread: @napi-rs/canvas 0.1's async encode() reads the canvas on the thread pool without keeping it
 * alive, and a garbage collection meanwhile frees it under the encoder (use after free: a SIGSEGV that ends the test
 * file with no word; fixed upstream in 1.0, Brooooooklyn/canvas#1314).
 */
async function canvasImage(format: 'png' | 'jpeg' | 'webp' | 'gif', width: number, height: number): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const g = canvas.getContext('2d');
  g.fillStyle = '#0a3d62';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#f6b93b';
  g.fillRect(width / 4, height / 4, width / 2, height / 2);
  return format === 'png' ? canvas.encodeSync('png') : format === 'gif' ? canvas.encodeSync('gif') : canvas.encodeSync(format, 80);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A tiny PNG whose header claims width × height: a decompression bomb as far as any decoder can tell. */
function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(Buffer.alloc(1024))), pngChunk('IEND', Buffer.alloc(0))]);
}

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80"><rect width="120" height="80" fill="#0a3d62"/></svg>';

async function uploadImage(client: ApiClient, bytes: Uint8Array | string, filename: string): Promise<ApiResponse> {
  const form = new FormData();
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)]), filename);
  const res = await fetch(`${client.baseUrl}/api/v1/dev/images/upload`, { method: 'POST', headers: client.key ? { 'X-API-Key': client.key } : {}, body: form });
  const buf = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body: buf.length ? JSON.parse(buf.toString('utf8')) : null, bytes: buf };
}

const balance = async () => {
  const r = await api.get('/api/v1/dev/credits');
  return { balance: r.body.balance as number, entries: (r.body.entries as unknown[]).length };
};

// ---------------------------------------------------------------- image uploads

const accepted: Array<[string, string, () => Promise<Buffer> | Buffer, number | null, number | null]> = [
  ['a PNG', 'image/png', () => canvasImage('png', 64, 48), 64, 48],
  ['a JPEG', 'image/jpeg', () => canvasImage('jpeg', 40, 30), 40, 30],
  ['a GIF', 'image/gif', () => canvasImage('gif', 16, 12), 16, 12],
  ['a WebP', 'image/webp', () => canvasImage('webp', 33, 21), 33, 21],
  ['an SVG', 'image/svg+xml', () => Buffer.from(SVG), 120, 80],
  [
    'an SVG after a BOM, an XML declaration and a comment, with #fragment and data: references',
    'image/svg+xml',
    () =>
      Buffer.from(
        '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n' +
          '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 5">' +
          '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>' +
          '<rect width="10" height="5" fill="url(#g)"/><use xlink:href="#g"/>' +
          '<image href="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAUwAOw==" width="1" height="1"/></svg>',
      ),
    10,
    5,
  ],
];

for (const [name, mimeType, make, width, height] of accepted) {
  test(`accepts ${name} as ${mimeType} with its size and a /temp-image path valid 24 hours`, async () => {
    const bytes = await make();
    const r = await uploadImage(api, bytes, 'picture.bin');
    assert.is(r.status, 201, r.bytes.toString());
    assert.equal(Object.keys(r.body).sort(), ['createdAt', 'expiresAt', 'height', 'id', 'mimeType', 'path', 'sizeBytes', 'width']);
    assert.match(r.body.id, /^[0-9a-f-]{36}$/);
    assert.is(r.body.path, `/temp-image/${r.body.id}`);
    assert.is(r.body.mimeType, mimeType);
    assert.is(r.body.sizeBytes, bytes.length);
    assert.is(r.body.width, width);
    assert.is(r.body.height, height);
    assert.is(Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt), 24 * 3600 * 1000);
  });
}

test('answers 415 UNSUPPORTED_MEDIA_TYPE for a text file or a PDF named .png, naming the accepted types', async () => {
  for (const [bytes, detected] of [
    [Buffer.from('just some notes\n'), 'text/plain'],
    [Buffer.from(await makePdf(1)), 'application/pdf'],
    [Buffer.from('<html><body><svg></svg></body></html>'), 'text/plain'],
  ] as const) {
    const r = await uploadImage(api, bytes, 'photo.png');
    assert.is(r.status, 415, r.bytes.toString());
    assert.is(r.body.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(r.body.detail, detected);
    assert.match(r.body.detail, 'PNG, JPEG, GIF, WebP or SVG');
  }
});

const unsafeSvgs: Array<[string, string, RegExp]> = [
  [
    'a DOCTYPE with ENTITY declarations (billion laughs)',
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>',
    /DOCTYPE/,
  ],
  ['an ENTITY declaration after the root', '<svg xmlns="http://www.w3.org/2000/svg"><!ENTITY x SYSTEM "file:///etc/passwd"></svg>', /ENTITY/],
  ['a <script> element', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', /script/],
  ['an event handler attribute', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>', /onload/],
  ['an external xlink:href', '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="https://example.com/a.png"/></svg>', /xlink:href="https:\/\/example\.com\/a\.png"/],
  ['a local file href written with character references', '<svg xmlns="http://www.w3.org/2000/svg"><image href="&#102;ile:///etc/passwd"/></svg>', /file:\/\/\/etc\/passwd/],
  ['a CSS url() to another host', '<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill: url(http://example.com/x.svg#p)"/></svg>', /url\(http:\/\/example\.com/],
  ['an xml-stylesheet', '<?xml-stylesheet href="https://example.com/a.css"?><svg xmlns="http://www.w3.org/2000/svg"/>', /stylesheet/],
];

for (const [name, svg, detail] of unsafeSvgs) {
  test(`refuses an SVG with ${name} with 400 UNSAFE_SVG`, async () => {
    const r = await uploadImage(api, svg, 'drawing.svg');
    assert.is(r.status, 400, r.bytes.toString());
    assert.is(r.body.code, 'VALIDATION_FAILED');
    assert.equal(r.body.errors.map((e: { path: string; code: string }) => [e.path, e.code]), [['file', 'UNSAFE_SVG']]);
    assert.match(r.body.detail, detail);
  });
}

test('answers an SVG built to make a pattern scan quadratic (200,000 unclosed url( ) within seconds', async () => {
  const started = Date.now();
  const r = await uploadImage(api, `<svg xmlns="http://www.w3.org/2000/svg"><style>${'url( '.repeat(200_000)}</style></svg>`, 'slow.svg');
  assert.is(r.status, 400);
  assert.is(r.body.errors[0].code, 'UNSAFE_SVG');
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
});

test('refuses a PNG whose header claims 100000 × 100000 pixels with 400 naming the size and the limit', async () => {
  const r = await uploadImage(api, pngClaiming(100_000, 100_000), 'bomb.png');
  assert.is(r.status, 400, r.bytes.toString());
  assert.is(r.body.code, 'VALIDATION_FAILED');
  assert.match(r.body.detail, '100000 × 100000 pixels');
  assert.match(r.body.detail, '20000 pixels on a side and 50 megapixels');
  assert.is(r.body.errors[0].code, 'LIMIT_EXCEEDED');
});

test('refuses an image within the side limit but over the pixel count, and accepts one just under it', async () => {
  // 10,000 × 6,000: both sides under 20,000, the 60 megapixels over the 50 allowed.
  const wide = await uploadImage(api, pngClaiming(10_000, 6_000), 'wide.png');
  assert.is(wide.status, 400, wide.bytes.toString());
  assert.match(wide.body.detail, '10000 × 6000 pixels (60 megapixels)');
  assert.is(wide.body.errors[0].code, 'LIMIT_EXCEEDED');
  const under = await uploadImage(api, pngClaiming(10_000, 5_000), 'under.png');
  assert.is(under.status, 201, under.bytes.toString());
});

test('refuses a long thin image over the side limit and an SVG embedding a pixel bomb', async () => {
  const thin = await uploadImage(api, pngClaiming(20_001, 1), 'strip.png');
  assert.is(thin.status, 400);
  assert.match(thin.body.detail, '20001 × 1');
  const inner = pngClaiming(60_000, 60_000).toString('base64');
  const svg = await uploadImage(api, `<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,${inner}"/></svg>`, 'wrapped.svg');
  assert.is(svg.status, 400, svg.bytes.toString());
  assert.match(svg.body.detail, 'embedded in the SVG');
  assert.is(svg.body.errors[0].code, 'LIMIT_EXCEEDED');
});

test('answers 413 for an image over QUIRE_MAX_IMAGE_BYTES and 400 for a damaged header', async () => {
  const big = Buffer.concat([await canvasImage('png', 8, 8), Buffer.alloc(MAX_IMAGE_BYTES + 1024)]);
  const r = await uploadImage(api, big, 'big.png');
  assert.is(r.status, 413);
  assert.is(r.body.code, 'PAYLOAD_TOO_LARGE');
  assert.match(r.body.detail, String(MAX_IMAGE_BYTES));
  const truncated = (await canvasImage('jpeg', 32, 32)).subarray(0, 40);
  const damaged = await uploadImage(api, truncated, 'cut.jpg');
  assert.is(damaged.status, 400, damaged.bytes.toString());
  assert.is(damaged.body.errors[0].code, 'INVALID_IMAGE');
});

test('keeps images apart from tool files: /tools/files/{id} and its download answer 404, in every organization', async () => {
  const id = (await uploadImage(api, await canvasImage('png', 4, 4), 'a.png')).body.id as string;
  for (const client of [api, otherOrg]) {
    for (const p of [`/api/v1/dev/tools/files/${id}`, `/api/v1/dev/tools/files/${id}/download`]) {
      const r = await client.get(p);
      assert.is(r.status, 404, p);
      assert.is(r.body.code, 'NOT_FOUND');
    }
  }
});

test('requires an API key and charges no credits for uploads', async () => {
  const before = await balance();
  assert.is((await uploadImage(api.withKey(null), await canvasImage('png', 4, 4), 'a.png')).status, 401);
  assert.is((await uploadImage(otherOrg, await canvasImage('png', 4, 4), 'b.png')).status, 201);
  assert.is((await uploadImage(api, Buffer.from(SVG), 'c.svg')).status, 201);
  assert.equal(await balance(), before);
});

// ---------------------------------------------------------------- readiness

const READINESS = '/api/v1/dev/render/readiness';

const goodDocument = {
  document: { type: 'pdf', title: 'Annual report', author: 'Ann Smith', subject: 'Results of 2024', keywords: ['report', '2024'] },
  defaults: { locale: 'en-GB' },
  variables: { logo: { type: 'image', src: '/temp-image/3f1c2a9e-0b1d-4c55-9a7e-2b4f6c8d0e11', alt: 'ACME logo' }, items: { type: 'table', rows: [{ item: 'Pen', price: 2 }] } },
  sections: [
    {
      type: 'flow',
      content: [
        { type: 'h1', text: 'Annual report', id: 'top' },
        { type: 'variableRef', name: 'logo' },
        { type: 'text', text: 'Back to [the top](#top); see [our site](https://example.com).' },
        { type: 'h2', text: 'Figures' },
        { type: 'image', src: '/temp-image/3f1c2a9e-0b1d-4c55-9a7e-2b4f6c8d0e11', alt: 'The team in front of the office' },
        { type: 'chart', chartType: 'bar', title: 'Revenue', data: { labels: ['Q1'], series: [{ name: '2024', values: [1] }] } },
        { type: 'table', headerRows: 1, rows: [['Region', 'Q1'], ['North', 10]] },
        { type: 'table', rowsFrom: 'items' },
        { type: 'h3', text: 'Details' },
      ],
    },
  ],
};

const badDocument = {
  document: { type: 'pdf' },
  sections: [
    {
      type: 'flow',
      content: [
        { type: 'h1', text: 'Report' },
        { type: 'image', src: '/temp-image/3f1c2a9e-0b1d-4c55-9a7e-2b4f6c8d0e11', alt: '' },
        { type: 'h3', text: 'Too deep' },
        { type: 'table', rows: [['Region', 'Q1'], ['North', 10]] },
      ],
    },
  ],
};

const issueAt = (report: any, code: string) => report.issues.filter((i: { code: string }) => i.code === code).map((i: { path: string; severity: string }) => [i.path, i.severity]);

test('reports a well-made document as ready with score 100 and the spec shape', async () => {
  const before = await balance();
  const r = await api.post(READINESS, { config: goodDocument, pdfProfile: 'pdfua-1' });
  assert.is(r.status, 200, r.bytes.toString());
  const report = r.body;
  assert.equal(Object.keys(report).sort(), ['capabilities', 'checkedAt', 'issues', 'requiresRenderInspection', 'scope', 'score', 'scoreLabel', 'status', 'summary']);
  assert.is(report.scope, 'semantic_source');
  assert.is(report.scoreLabel, 'semantic_source_score');
  assert.is(report.requiresRenderInspection, true);
  assert.equal(report.issues, []);
  assert.is(report.status, 'ready');
  assert.is(report.score, 100);
  assert.ok(Math.abs(Date.parse(report.checkedAt) - Date.now()) < 60_000);
  assert.equal(report.summary, { errors: 0, warnings: 0, images: 2, tables: 2, headings: 3 });
  assert.equal(Object.keys(report.capabilities).sort(), ['pdfA', 'pdfUa', 'renderedOutputChecks', 'semanticSourceChecks', 'taggedPdf']);
  assert.is(report.capabilities.semanticSourceChecks.status, 'foundation');
  assert.is(report.capabilities.renderedOutputChecks.status, 'not_available');
  assert.is(report.capabilities.taggedPdf.status, 'available');
  for (const c of Object.values<{ description: string }>(report.capabilities)) assert.ok(c.description.length > 20);
  assert.equal(await balance(), before);
});

test('reports each problem of a poor document under pdfua-1 with its code, severity and path', async () => {
  const r = await api.post(READINESS, { config: badDocument, pdfProfile: 'pdfua-1' });
  assert.is(r.status, 200, r.bytes.toString());
  const report = r.body;
  assert.equal(issueAt(report, 'MISSING_TITLE'), [['config.document.title', 'error']]);
  assert.equal(issueAt(report, 'IMAGE_DECORATIVE'), [['config.sections[0].content[1].alt', 'error']]);
  assert.equal(issueAt(report, 'HEADING_LEVEL_SKIPPED'), [['config.sections[0].content[2].type', 'warning']]);
  // PDF/UA-1 says header cells must be tagged as such, not that every table has them: a layout table passes.
  assert.equal(issueAt(report, 'TABLE_MISSING_HEADER'), [['config.sections[0].content[3].headerRows', 'warning']]);
  assert.equal(issueAt(report, 'MISSING_LANGUAGE'), [['config.defaults.locale', 'warning']]);
  assert.equal(issueAt(report, 'MISSING_AUTHOR'), [['config.document.author', 'info']]);
  assert.is(report.status, 'not_ready');
  for (const i of report.issues) {
    assert.ok(i.message && i.suggestion, i.code);
    assert.ok(i.code in READINESS_CODES, i.code);
  }
  const count = (s: string) => report.issues.filter((i: { severity: string }) => i.severity === s).length;
  assert.is(report.summary.errors, 2);
  assert.is(report.summary.warnings, count('warning'));
  assert.is(report.score, Math.max(0, 100 - SCORE_PENALTY.error * 2 - SCORE_PENALTY.warning * count('warning') - SCORE_PENALTY.info * count('info')));
  assert.equal(report.summary, { errors: 2, warnings: count('warning'), images: 1, tables: 1, headings: 2 });
});

test('makes a missing title and header rows warnings without pdfua-1, so the same document is ready', async () => {
  const r = await api.post(READINESS, { config: badDocument });
  assert.equal(issueAt(r.body, 'MISSING_TITLE'), [['config.document.title', 'warning']]);
  assert.equal(issueAt(r.body, 'TABLE_MISSING_HEADER'), [['config.sections[0].content[3].headerRows', 'warning']]);
  assert.is(r.body.status, 'ready');
  assert.is(r.body.summary.errors, 0);
});

test('checks heading order, chart titles, image variables, link texts and references', async () => {
  const config = {
    document: { type: 'pdf', title: 'T' },
    defaults: { locale: 'en' },
    variables: { 'brand.logo': { type: 'image', src: '/image/abc', alt: ' ' } },
    sections: [
      { type: 'page', content: [{ type: 'h2', text: 'Cover' }] },
      {
        type: 'flow',
        content: [
          { type: 'h1', text: 'One' },
          { type: 'h1', text: 'Two' },
          { type: 'chart', chartType: 'pie', data: { labels: ['a', 'b'], series: [{ name: 's', values: [1, 2] }] } },
          { type: 'text', text: 'See [](https://example.com) and [x](#nowhere) and ~API~ and {{missing}}; `[](#in-code)` is code.' },
          { type: 'image', src: '/image/abc', alt: 'IMG_0042.JPG', caption: 'A photo' },
          { type: 'image', src: '/image/abc', alt: '', caption: 'The hall' },
        ],
      },
    ],
  };
  const r = await api.post(READINESS, { config });
  assert.is(r.status, 200, r.bytes.toString());
  assert.equal(issueAt(r.body, 'FIRST_HEADING_NOT_H1'), [['config.sections[0].content[0].type', 'warning']]);
  assert.equal(issueAt(r.body, 'MULTIPLE_H1'), [['config.sections[1].content[1].type', 'info']]);
  assert.equal(issueAt(r.body, 'HEADING_LEVEL_SKIPPED'), []);
  assert.equal(issueAt(r.body, 'CHART_MISSING_TITLE'), [['config.sections[1].content[2].title', 'warning']]);
  assert.equal(issueAt(r.body, 'IMAGE_VARIABLE_MISSING_ALT'), [['config.variables["brand.logo"].alt', 'warning']]);
  assert.equal(issueAt(r.body, 'EMPTY_LINK_LABEL'), [['config.sections[1].content[3].text', 'warning']]);
  assert.equal(issueAt(r.body, 'BROKEN_REFERENCE'), [['config.sections[1].content[3].text', 'warning']]);
  assert.equal(issueAt(r.body, 'UNDEFINED_ABBREVIATION'), [['config.sections[1].content[3].text', 'warning']]);
  assert.equal(issueAt(r.body, 'UNKNOWN_VARIABLE'), [['config.sections[1].content[3].text', 'warning']]);
  assert.equal(issueAt(r.body, 'IMAGE_ALT_FILENAME'), [['config.sections[1].content[4].alt', 'warning']]);
  assert.equal(issueAt(r.body, 'IMAGE_ALT_CAPTION_ONLY'), [['config.sections[1].content[5].alt', 'info']]);
  assert.is(r.body.status, 'ready');
});

test('warns that a PDF profile does not apply to a DOCX document, and reports NO_HEADINGS', async () => {
  const r = await api.post(READINESS, { config: { document: { type: 'docx', title: 'Letter' }, sections: [{ type: 'flow', content: [{ type: 'text', text: 'Hello.' }] }] }, pdfProfile: 'pdfa-2b' });
  assert.equal(issueAt(r.body, 'PDF_PROFILE_NOT_APPLICABLE'), [['pdfProfile', 'warning']]);
  assert.equal(issueAt(r.body, 'NO_HEADINGS'), [['config.sections', 'info']]);
});

test('answers 400 VALIDATION_FAILED with config-prefixed paths for an invalid document, and for a bad pdfProfile', async () => {
  const r = await api.post(READINESS, { config: { document: { type: 'pdf', size: 'B5' }, sections: [{ type: 'flow', content: [{ type: 'image', src: 'x.png' }] }] } });
  assert.is(r.status, 400, r.bytes.toString());
  assert.is(r.body.code, 'VALIDATION_FAILED');
  const paths = r.body.errors.map((e: { path: string }) => e.path);
  assert.ok(paths.includes('config.document.size'), paths.join(', '));
  assert.ok(paths.includes('config.sections[0].content[0].src'), paths.join(', '));
  assert.ok(paths.includes('config.sections[0].content[0].alt'), paths.join(', '));
  const missing = await api.post(READINESS, { pdfProfile: 'standard' });
  assert.is(missing.status, 400);
  assert.equal(missing.body.errors.map((e: { path: string }) => e.path), ['config']);
  const profile = await api.post(READINESS, { config: goodDocument, pdfProfile: 'pdfx-4' });
  assert.is(profile.status, 400);
  assert.is(profile.body.errors[0].path, 'pdfProfile');
  assert.match(profile.body.errors[0].message, 'pdfua-1');
  const extra = await api.post(READINESS, { config: goodDocument, strict: true });
  assert.is(extra.status, 400);
  assert.is(extra.body.errors[0].path, 'strict');
});

test('accepts and ignores a webhook, creates no job and charges no credits', async () => {
  const before = await balance();
  const r = await api.post(READINESS, { config: goodDocument, webhook: { webhookUrl: 'https://example.com/hook' } });
  assert.is(r.status, 200, r.bytes.toString());
  assert.is(r.headers.get('location'), null);
  assert.is(r.body.status, 'ready');
  assert.equal(await balance(), before);
  assert.is((await api.withKey(null).post(READINESS, { config: goodDocument })).status, 401);
});

// ---------------------------------------------------------------- docs and OpenAPI

test('documents every readiness code in docs/api.md with its severity', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  for (const [code, def] of Object.entries(READINESS_CODES)) {
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${code}\` |`));
    assert.ok(row, `${code} is not in docs/api.md`);
    assert.ok(row!.includes(def.severity), `${code}: severity ${def.severity} is not in its row`);
  }
});

test('publishes both routes in the OpenAPI document with their response schemas', async () => {
  const doc = (await api.withKey(null).get('/api/v1/dev/openapi.json')).body;
  const upload = doc.paths['/api/v1/dev/images/upload'].post;
  assert.ok(upload.requestBody.content['multipart/form-data']);
  assert.equal(Object.keys(upload.responses['201'].content['application/json'].schema.properties).sort(), ['createdAt', 'expiresAt', 'height', 'id', 'mimeType', 'path', 'sizeBytes', 'width']);
  const readiness = doc.paths['/api/v1/dev/render/readiness'].post;
  assert.ok(readiness.requestBody.content['application/json'].schema.properties.config.properties.sections);
  assert.ok(readiness.requestBody.content['application/json'].schema.properties.pdfProfile.enum.includes('pdfua-1'));
  assert.ok(readiness.responses['200'].content['application/json'].schema.properties.capabilities);
});

test.run();
