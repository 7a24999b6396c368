// Extended Markdown over HTTP: POST /render/validate/markdown and POST /render/markdown against a started server,
// the PDFs read back by poppler (pdftotext, pdfinfo, pdffonts) and the style presets compared with golden images.
// test-stores: once (Extended Markdown rendering and validation; its jobs reach the store as render.test's do).
// Longer than 400 lines: one started server serves every Extended Markdown HTTP test (validation, rendering, front matter, presets), each read back with poppler.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, OWNER_KEY, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { compareWithGolden, firstPagePng, run } from '../helpers/golden.js';
import { MarkdownValidationSchema } from '../../contracts/render.js';
import { compileSchema } from '../../contracts/schema.js';

type Json = Record<string, any>;

const VALIDATE = '/api/v1/dev/render/validate/markdown';
const RENDER_MD = '/api/v1/dev/render/markdown';
const isValidation = compileSchema(MarkdownValidationSchema);

// Private targets are allowed so that the webhook receiver on loopback can be reached.
let server: RunningServer;
let api: ApiClient;
let work: string;

test.before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'quire-md-'));
  server = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------- helpers

async function validate(body: Json, query = ''): Promise<Json> {
  const r = await api.post(VALIDATE + query, body);
  assert.is(r.status, 200, r.bytes.toString());
  assert.ok(isValidation(r.body), JSON.stringify(isValidation.errors));
  return r.body as Json;
}

async function waitForRender(jobId: string): Promise<Json> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await api.get(`/api/v1/dev/render/${jobId}`);
    assert.is(r.status, 200, r.bytes.toString());
    if (r.body.status === 'COMPLETED' || r.body.status === 'FAILED') return r.body;
    if (Date.now() > deadline) throw new Error(`render ${jobId} still ${r.body.status} after 60 s`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** POST /render/markdown (expecting 202), polled to COMPLETED; the PDF is written to the work dir for poppler. */
async function renderMarkdown(body: Json, query = ''): Promise<{ job: Json; file: string }> {
  const created = await api.post(RENDER_MD + query, body);
  assert.is(created.status, 202, created.bytes.toString());
  assert.is(created.headers.get('location'), `/api/v1/dev/render/${created.body.jobId}`);
  const job = await waitForRender(created.body.jobId);
  assert.is(job.status, 'COMPLETED', `${job.errorCode}: ${job.error}`);
  const download = await api.download(job.downloadUrl);
  assert.is(download.status, 200);
  const file = path.join(work, `${job.jobId}.pdf`);
  writeFileSync(file, download.bytes);
  return { job, file };
}

const text = async (file: string) => (await run('pdftotext', ['-enc', 'UTF-8', file, '-'])).toString('utf8').replace(/\s+/g, ' ');
const info = async (file: string) => (await run('pdfinfo', ['-enc', 'UTF-8', file])).toString('utf8');
const fonts = async (file: string) => (await run('pdffonts', [file])).toString('utf8');
const balance = async () => (await api.get('/api/v1/dev/credits')).body.balance as number;

const codes = (issues: Json[]) => issues.map((i) => i.code);

// ---------------------------------------------------------------- validation

const GOOD = `---
document:
  title: Quarterly note
variables:
  client: ACME
abbreviations:
  API: Application Programming Interface
citations: [{ "id": "smith2020", "type": "book", "title": "On documents", "author": [{ "family": "Smith", "given": "Ann" }], "issued": { "date-parts": [[2020]] } }]
---

# Overview {#overview}

Prepared for {{client}} about the ~API~, as @[smith2020, p. 12] argues.[^n] See [the overview](#overview).

[^n]: A footnote.

::bibliography
`;

test('validates a correct document: valid, no errors, no warnings, no credits charged', async () => {
  const before = await balance();
  const result = await validate({ content: GOOD });
  assert.equal(result, { valid: true, errors: [], warnings: [] });
  assert.is(await balance(), before);
});

test('places every error and warning in the source with path, code, line and column', async () => {
  const content = [
    '# Title {#a}', // 1
    '', // 2
    '## Again {#a}', // 3
    '', // 4
    'Text.', // 5
    '', // 6
    '::frobnicate{x=1}', // 7
    '', // 8
    '<div>raw</div>', // 9
  ].join('\n');
  const result = await validate({ content });
  assert.is(result.valid, false);
  const dup = result.errors.find((e: Json) => e.code === 'DUPLICATE_ANCHOR');
  assert.ok(dup, JSON.stringify(result.errors));
  assert.is(dup.line, 3);
  assert.is(dup.path, 'sections[0].content[1].id');
  const directive = result.errors.find((e: Json) => e.code === 'INVALID_DIRECTIVE');
  assert.ok(directive, JSON.stringify(result.errors));
  assert.is(directive.line, 7);
  assert.match(directive.message, /frobnicate/);
  const html = result.warnings.find((i: Json) => i.code === 'RAW_HTML_IGNORED');
  assert.ok(html, JSON.stringify(result.warnings));
  assert.is(html.line, 9);
  // References are resolved once the document is otherwise valid; without strict they are warnings, each on its line.
  const refs = await validate({ content: '# Title {#a}\n\nText.\n\nSee [nowhere](#missing), ~NOPE~ and @[ghost].\n' });
  assert.is(refs.valid, true);
  for (const code of ['BROKEN_REFERENCE', 'UNDEFINED_ABBREVIATION', 'UNDEFINED_CITATION']) {
    const w = refs.warnings.find((i: Json) => i.code === code);
    assert.ok(w, `${code} in ${JSON.stringify(refs.warnings)}`);
    assert.is(w.line, 5, code);
    assert.is(w.path, 'sections[0].content[2].text');
  }
});

test('strict mode turns unresolved references into errors; duplicate anchors are errors either way', async () => {
  const content = '# A {#a}\n\nSee [x](#nope), ~KEY~, @[who] and {{unknown}}.\n';
  const loose = await validate({ content });
  assert.is(loose.valid, true);
  assert.equal(codes(loose.warnings).sort(), ['BROKEN_REFERENCE', 'UNDEFINED_ABBREVIATION', 'UNDEFINED_CITATION', 'UNKNOWN_VARIABLE']);
  const strict = await validate({ content }, '?strict=true');
  assert.is(strict.valid, false);
  assert.equal(codes(strict.errors).sort(), ['BROKEN_REFERENCE', 'UNDEFINED_ABBREVIATION', 'UNDEFINED_CITATION', 'UNKNOWN_VARIABLE']);
  const dup = await validate({ content: '# A {#x}\n\n# B {#x}\n' });
  assert.is(dup.valid, false);
  assert.equal(codes(dup.errors), ['DUPLICATE_ANCHOR']);
});

test('reports malformed front matter, unclosed directives and limits with positions', async () => {
  const yaml = await validate({ content: '---\ndocument: [unclosed\n---\n\nText\n' });
  assert.is(yaml.valid, false);
  assert.is(yaml.errors[0].code, 'INVALID_FRONT_MATTER');
  assert.ok(yaml.errors[0].line >= 2, JSON.stringify(yaml.errors));
  const key = await validate({ content: '---\ntitel: misplaced\n---\n\nText\n' });
  assert.equal(codes(key.errors), ['INVALID_FRONT_MATTER']);
  assert.is(key.errors[0].line, 2);
  assert.match(key.errors[0].message, /document:/);
  assert.match(key.errors[0].message, /title \(document\.title\).*lang \(defaults\.locale\)/);
  const limits = await validate({ content: '---\ndocument:\n  title: ok\n  marginTop: 11\n---\n\nText\n' });
  assert.equal(codes(limits.errors), ['LIMIT_EXCEEDED']);
  assert.is(limits.errors[0].path, 'document.marginTop');
  assert.is(limits.errors[0].line, 4);
  const unclosed = await validate({ content: ':::page{align=center}\n# Cover\n' });
  assert.ok(unclosed.errors.length + unclosed.warnings.length > 0, 'an unclosed directive is reported');
});

test('hostile sources answer with errors, and the server keeps serving', async () => {
  const deep = await validate({ content: `${'>'.repeat(10_000)} deep\n` });
  assert.is(deep.valid, false);
  assert.equal(codes(deep.errors), ['LIMIT_EXCEEDED']);
  const nestedLists = await validate({ content: `${'- '.repeat(10_000)}item\n` });
  assert.is(nestedLists.valid, false);
  const big = await validate({ content: 'x'.repeat(1024 * 1024 + 1) });
  assert.equal(codes(big.errors), ['LIMIT_EXCEEDED']);
  assert.match(big.errors[0].message, /1048576 bytes/);
  const longLine = await validate({ content: `${'plain words on one very long line '.repeat(1_400)}\n` });
  assert.is(longLine.valid, true);
  const emphasis = await validate({ content: `${'word *and* _more_ '.repeat(20_000)}\n` });
  assert.equal(codes(emphasis.errors), ['LIMIT_EXCEEDED']);
  assert.is((await api.get('/readyz')).status, 200);
});

test('answers 400 naming the field for a body of the wrong shape, an unknown style preset or a bad strict', async () => {
  const cases: Array<[Json | string, string, string]> = [
    [{}, '', 'content'],
    [{ content: 42 }, '', 'content'],
    [{ content: '# x', document: 'pdf' }, '', 'document'],
    [{ content: '# x', citations: {} }, '', 'citations'],
    [{ content: '# x', extra: true }, '', 'extra'],
    [{ content: '# x', stylePresetId: 'system:no-such-style' }, '', 'stylePresetId'],
    [{ content: '# x' }, '?strict=maybe', 'query.strict'],
  ];
  for (const [body, query, field] of cases) {
    for (const endpoint of [VALIDATE, RENDER_MD]) {
      const r = await api.post(endpoint + query, body);
      assert.is(r.status, 400, `${endpoint} ${JSON.stringify(body)}: ${r.bytes.toString()}`);
      assert.is(r.body.code, 'VALIDATION_FAILED');
      assert.ok(r.body.errors.some((e: Json) => e.path.includes(field)), `${field} in ${JSON.stringify(r.body.errors)}`);
    }
  }
  const style = await api.post(VALIDATE, { content: '# x', stylePresetId: 'system:no-such-style' });
  assert.is(style.body.errors[0].code, 'STYLE_NOT_FOUND');
  const unauthenticated = await api.withKey(null).post(VALIDATE, { content: '# x' });
  assert.is(unauthenticated.status, 401);
});

test('errors about request fields name the field and carry no source position', async () => {
  const result = await validate({ content: '# Hi\n', document: { title: 'x'.repeat(201) }, style: { fonts: { size: 500 } }, defaults: { colors: { primary: 'blue' } } });
  assert.is(result.valid, false);
  const byPath = Object.fromEntries(result.errors.map((e: Json) => [e.path, e]));
  assert.ok(byPath['document.title'], JSON.stringify(result.errors));
  assert.ok(byPath['style.fonts.size'], JSON.stringify(result.errors));
  assert.ok(byPath['defaults.colors.primary'], JSON.stringify(result.errors));
  for (const e of result.errors) assert.is(e.line, undefined, JSON.stringify(e));
});

// ---------------------------------------------------------------- rendering

test('renders Markdown to a PDF whose text and metadata say what the source says; charged once on completion', async () => {
  const content = `---
document:
  title: Annual report
  author: Quire tests
  subject: Extended Markdown
  keywords: [alpha, beta]
  size: Letter
  filename: annual-report
variables:
  year: "2026"
---

# Results for {{year}}

Revenue grew **strongly** and the ~API~ shipped.[^1]

| Quarter | Revenue |
|---|--:|
| Q1 | 10 |
| Q2 | 12 |

- first point
- second point

[^1]: Footnote text here.
`;
  const before = await balance();
  const { job, file } = await renderMarkdown({ content, abbreviations: { API: 'Application Programming Interface' } }, '?strict=true');
  assert.is(job.format, 'PDF');
  assert.is(job.filename, 'annual-report.pdf');
  assert.equal(job.warnings, []);
  const words = await text(file);
  for (const expected of ['Results for 2026', 'Revenue grew strongly', 'API', 'Quarter', 'Q2', 'first point', 'second point', 'Footnote text here.']) {
    assert.ok(words.includes(expected), `"${expected}" in ${words}`);
  }
  const meta = await info(file);
  assert.match(meta, /Title:\s+Annual report/);
  assert.match(meta, /Author:\s+Quire tests/);
  assert.match(meta, /Subject:\s+Extended Markdown/);
  assert.match(meta, /Keywords:\s+alpha, beta/);
  assert.match(meta, /Page size:\s+612 x 792 pts \(letter\)/);
  assert.is(await balance(), before - job.creditCost);
});

test('reads Pandoc, Jekyll, Hugo and Obsidian front matter keys as document settings: PDF Title, Author, Subject (the abstract), Keywords and the ISO date', async () => {
  const content = ['---', 'title: Field notes', 'subtitle: Spring count', 'author:', '  - Ada Lovelace', '  - Alan Turing', 'date: 2024-05-01', 'keywords: birds, spring', 'abstract: What we saw.', 'lang: de-DE', '---', '', 'Body text.', ''].join('\n');
  assert.equal(await validate({ content }), { valid: true, errors: [], warnings: [] });
  const { file } = await renderMarkdown({ content });
  const meta = await info(file);
  assert.match(meta, /Title:\s+Field notes\n/);
  assert.match(meta, /Author:\s+Ada Lovelace, Alan Turing\n/);
  assert.match(meta, /Subject:\s+What we saw\.\n/);
  assert.match(meta, /Keywords:\s+birds, spring\n/);
  assert.match(meta, /CreationDate:\s+Wed May\s+1 00:00:00 2024 UTC\n/);
  // A date that is not an ISO date stays text: the PDF's date is the render's.
  const { file: other } = await renderMarkdown({ content: '---\ndate: Spring 2024\n---\n\nBody.\n' });
  assert.match(await info(other), new RegExp(`CreationDate:.* ${new Date().getUTCFullYear()} UTC`));
});

test('a setting given both as an alias and under document: or defaults: with different values is an error naming both keys and lines; the same value twice is not', async () => {
  const title = await validate({ content: '---\ntitle: A\ndocument:\n  title: B\n---\n\nText\n' });
  assert.equal(title.errors.map((e: Json) => [e.code, e.path, e.line]), [['INVALID_FRONT_MATTER', '(front matter)', 2]]);
  assert.match(title.errors[0].message, /title \(line 2\) and document\.title \(line 4\)/);
  const lang = await validate({ content: '---\ndefaults:\n  locale: fr-FR\nlang: de-DE\n---\n\nText\n' });
  assert.equal(lang.errors.map((e: Json) => [e.code, e.line]), [['INVALID_FRONT_MATTER', 4]]);
  assert.match(lang.errors[0].message, /lang \(line 4\) and defaults\.locale \(line 3\)/);
  assert.equal(await validate({ content: '---\ntitle: Same\nkeywords: a, b\ndocument:\n  title: Same\n  keywords: [a, b]\n---\n\nText\n' }), { valid: true, errors: [], warnings: [] });
  // An alias's value is checked as the setting it stands for, and placed on the alias's line.
  const long = await validate({ content: `---\nsubtitle: ok\nauthor: ${'x'.repeat(101)}\n---\n\nText\n` });
  assert.equal(long.errors.map((e: Json) => [e.code, e.path, e.line]), [['LIMIT_EXCEEDED', 'document.author', 3]]);
  const locale = await validate({ content: '---\nlang: not a tag\n---\n\nText\n' });
  assert.equal(locale.errors.map((e: Json) => [e.path, e.line]), [['defaults.locale', 2]]);
});

test('request fields go over the front matter: document field by field, variables key by key', async () => {
  const content = `---
document:
  title: From front matter
  author: Front matter author
  size: A5
variables:
  who: front matter
  kept: kept value
---

Hello {{who}}, {{kept}}.
`;
  const { file } = await renderMarkdown({ content, document: { title: 'From the request', orientation: 'landscape' }, variables: { who: 'request' } });
  const words = await text(file);
  assert.ok(words.includes('Hello request, kept value.'), words);
  const meta = await info(file);
  assert.match(meta, /Title:\s+From the request/);
  assert.match(meta, /Author:\s+Front matter author/);
  // A5 landscape: 595 × 420 pt.
  assert.match(meta, /Page size:\s+595\.\d+ x 419\.\d+ pts/);
});

test('strict render: unresolved references answer 400 with positions; otherwise they are warnings on the job', async () => {
  const content = 'Intro.\n\nSee [there](#nowhere).\n';
  const refused = await api.post(`${RENDER_MD}?strict=true`, { content });
  assert.is(refused.status, 400, refused.bytes.toString());
  assert.equal(refused.body.errors.map((e: Json) => [e.code, e.line]), [['BROKEN_REFERENCE', 3]]);
  assert.match(refused.body.detail, /line 3/);
  const { job } = await renderMarkdown({ content });
  assert.equal(job.warnings.map((w: Json) => [w.code, w.line]), [['BROKEN_REFERENCE', 3]]);
  const invalid = await api.post(RENDER_MD, { content: '# A {#x}\n\n# B {#x}\n' });
  assert.is(invalid.status, 400);
  assert.equal(invalid.body.errors.map((e: Json) => e.code), ['DUPLICATE_ANCHOR']);
});

test('sends the job.completed webhook for a Markdown render', async () => {
  const received: Json[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const port = (receiver.address() as AddressInfo).port;
    const { job } = await renderMarkdown({ content: '# Hook\n', webhook: { webhookUrl: `http://127.0.0.1:${port}/hook` } });
    const deadline = Date.now() + 10_000;
    while (!received.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(received, [{ event: 'job.completed', jobType: 'render', jobId: job.jobId, status: 'COMPLETED', filename: 'document.pdf', completedAt: job.completedAt }]);
  } finally {
    receiver.close();
  }
});

// ---------------------------------------------------------------- style presets

const STYLED = `---
document:
  title: Styled sample
---

# Quarterly review

This paragraph shows the body font, its size and the spacing between paragraphs of the chosen style.

## Figures

| Item | Amount |
|---|--:|
| Licences | 1,200 |
| Support | 300 |

> A quotation set apart from the text.
`;

test('style presets change the look visibly; inline defaults go over the preset', async () => {
  const serif = await renderMarkdown({ content: STYLED, stylePresetId: 'system:classic-serif' });
  const sans = await renderMarkdown({ content: STYLED, stylePresetId: 'system:modern-report' });
  assert.match(await fonts(serif.file), /NotoSerif/);
  assert.not.match(await fonts(sans.file), /NotoSerif/);
  assert.match(await fonts(sans.file), /NotoSans/);
  await compareWithGolden('markdown-style-classic-serif', await firstPagePng(serif.file));
  await compareWithGolden('markdown-style-modern-report', await firstPagePng(sans.file));
  // The same preset, with the body font overridden inline: the serif comes back.
  const overridden = await renderMarkdown({ content: STYLED, stylePresetId: 'system:modern-report', defaults: { fonts: { family: 'Noto Serif' } } });
  assert.match(await fonts(overridden.file), /NotoSerif/);
});

test('a workspace preset applies to Markdown renders', async () => {
  const created = await api.post('/api/v1/dev/styles', { name: 'Mono body', definition: { fonts: { family: 'Noto Sans Mono', size: 10 } } });
  assert.is(created.status, 201, created.bytes.toString());
  const { file } = await renderMarkdown({ content: '# Mono\n\nBody text in the preset font.\n', stylePresetId: created.body.id });
  assert.match(await fonts(file), /NotoSansMono/);
  const result = await validate({ content: '# x\n', stylePresetId: created.body.id });
  assert.is(result.valid, true);
});

test.run();
