// The public form page over plain HTTP, as a browser without JavaScript uses it: the page and its headers, the CSRF
// pair, the honeypot, the per-form rate limit, body limits, values kept and escaped on a 422 page and literal in the
// PDF (pdftotext), table rows added and removed by buttons, the preview, the receipt and download, and every ended
// link as its own page (404, 410).
// Longer than 400 lines: one server and one document serve every behaviour of the page; each test a few exchanges.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, OWNER_KEY, startServer, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { redPng } from '../helpers/render-jobs.js';
import { pdftotextLayout } from '../helpers/poppler.js';
import { createForm, everyKindDocument, FormVisitor, hiddenValue, pngBomb, unescapeHtml } from '../helpers/public-form.js';
import { receiver, until } from '../helpers/webhook-receiver.js';

type Json = Record<string, any>;
const API = '/api/v1/dev';

let server: RunningServer;
let api: ApiClient;
let docId: string;
let form: Json;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const visitor = (f: Json = form) => new FormVisitor(server.baseUrl, f.publicUrl);

async function records(formId: string): Promise<Json[]> {
  const r = await api.get(`${API}/records?formId=${formId}`);
  assert.is(r.status, 200, r.bytes.toString());
  return r.body.items;
}

/** Fields every valid submission of the every-kind form needs (the required name). */
function validFields(name = 'Ada Lovelace'): Array<[string, string]> {
  return [
    ['client_name', name],
    ['notes', 'Line one\nLine two'],
    ['due_date', '2026-05-01'],
    ['amount', '42'],
    ['size', 'L'],
    ['express', 'true'],
    ['tasks', 'Plan\nShip'],
    ['lines[0][Item]', 'Desk'],
    ['lines[0][Qty]', '3'],
  ];
}


test.before(async () => {
  // Webhook deliveries go to a receiver on loopback, which the outbound URL policy refuses unless told otherwise.
  server = await startServer({ env: { QUIRE_ALLOW_PRIVATE_NETWORK: 'true' } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
  docId = await everyKindDocument(api);
  form = await createForm(api, docId, { title: 'Order <b>form</b>', description: 'Tell us "what" you need & when.', autoRender: true });
});

test.after(async () => {
  await server?.stop();
  if (server) cleanup(server.dataDir);
});

test('the page is HTML with a label for every input, named after the variables, and the owner’s texts escaped', async () => {
  const page = await visitor().open();
  assert.is(page.status, 200, page.html);
  assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.ok(page.html.startsWith('<!doctype html>'));
  assert.match(page.html, '<h1>Order &lt;b&gt;form&lt;/b&gt;</h1>');
  assert.match(page.html, 'Tell us &quot;what&quot; you need &amp; when.');
  for (const name of ['client_name', 'notes', 'due_date', 'amount', 'express', 'logo', 'tasks', 'lines[0][Item]', 'lines[0][Qty]']) {
    const input = new RegExp(`<(input|textarea)[^>]* id="([^"]+)" name="${name.replace(/[[\]]/g, '\\$&')}"`).exec(page.html) ?? new RegExp(`<(input|textarea)[^>]* name="${name.replace(/[[\]]/g, '\\$&')}"[^>]* id="([^"]+)"`).exec(page.html);
    const id = input?.[2] ?? new RegExp(`id="([^"]+)" name="${name.replace(/[[\]]/g, '\\$&')}"`).exec(page.html)?.[1];
    assert.ok(id, `an input named ${name}`);
    assert.match(page.html, `<label for="${id}">`, `a label for ${name}`);
  }
  assert.match(page.html, /<fieldset class="field" role="radiogroup" aria-required="true"><legend>Size <span class="req">\(required\)<\/span><\/legend>/, 'three choices are radios in a fieldset');
  assert.match(page.html, /<label for="f-0">Client name <span class="req">\(required\)<\/span><\/label>/, 'required is said in words');
  assert.match(page.html, /aria-describedby="f-0-help"/);
  assert.match(page.html, /enctype="multipart\/form-data"/, 'the form takes an image');
  assert.match(page.html, / novalidate/);
  assert.match(page.html, /<input type="text" id="hp-website" name="website" tabindex="-1" autocomplete="off" value="">/);
  assert.match(page.html, /<div class="hp" aria-hidden="true">/);
  assert.match(page.html, /name="lines\[0\]\[Item\]" value="Chair"/, "the document's table row is the first row");
});

test('the page has the security headers, a CSRF cookie for this form only, and assets cached for good', async () => {
  const page = await visitor().open();
  const h = page.headers;
  assert.is(h.get('cache-control'), 'no-store');
  assert.is(h.get('referrer-policy'), 'no-referrer');
  assert.is(h.get('x-content-type-options'), 'nosniff');
  assert.is(h.get('content-security-policy'), "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' blob: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  const cookie = h.get('set-cookie')!;
  assert.match(cookie, /^quire_form=[A-Za-z0-9_-]{43}; Path=\/f\/[^;]+; HttpOnly; SameSite=Strict$/);
  assert.match(cookie, `Path=/f/${form.id};`);
  for (const m of page.html.matchAll(/(?:href|src)="(\/f\/assets\/[^"]+)"/g)) {
    const r = await fetch(server.baseUrl + m[1]);
    assert.is(r.status, 200);
    assert.is(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(r.headers.get('content-type')!, m[1]!.endsWith('.css') ? 'text/css' : 'text/javascript');
  }
});

test('a post without the CSRF pair, with another pair, or from another site is refused with a page asking to reload', async () => {
  const v = visitor();
  await v.open();
  const noField = await v.post(validFields(), { csrf: false });
  assert.is(noField.status, 403);
  assert.match(noField.html, 'Please reload the form');
  const stranger = visitor();
  await stranger.open();
  const swapped = await v.post([['_csrf', stranger.csrf!], ...validFields()], { csrf: false });
  assert.is(swapped.status, 403, 'a field of another cookie');
  const noCookie = await new FormVisitor(server.baseUrl, form.publicUrl).post([['_csrf', v.csrf!], ...validFields()], { csrf: false });
  assert.is(noCookie.status, 403, 'no cookie');
  const crossSite = await v.post(validFields(), { headers: { 'Sec-Fetch-Site': 'cross-site' } });
  assert.is(crossSite.status, 403);
  assert.is(crossSite.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(await records(form.id), []);
});

test('a filled honeypot answers 400 and stores nothing', async () => {
  const v = visitor();
  await v.open();
  const r = await v.post([...validFields(), ['website', 'http://spam.example']]);
  assert.is(r.status, 400);
  assert.match(r.html, 'The form was not sent');
  assert.equal(await records(form.id), []);
});

test('injected markup is kept escaped on the 422 page, the error summary links each field, and the PDF shows it as text', async () => {
  const v = visitor();
  await v.open();
  const script = '<script>alert(1)</script>';
  const img = '"><img src=x onerror=alert(1)>';
  const bad = await v.post([['client_name', script], ['notes', img], ['amount', '5000'], ['tasks', script], ['lines[0][Item]', img], ['lines[0][Qty]', 'many'], ['size', 'L']]);
  assert.is(bad.status, 422, bad.html);
  assert.not.match(bad.html, '<script>alert');
  assert.not.match(bad.html, '<img src=x');
  assert.match(bad.html, 'value="&lt;script&gt;alert(1)&lt;/script&gt;"');
  assert.match(bad.html, '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</textarea>');
  assert.match(bad.html, /<div class="error-summary" id="error-summary" role="alert" tabindex="-1" autofocus/);
  const links = [...bad.html.matchAll(/<li><a href="#([^"]+)">([^<]+)<\/a><\/li>/g)].map((m) => [m[1], unescapeHtml(m[2]!)]);
  assert.equal(links, [
    ['f-3', 'Amount: enter a number of at most 1000.'],
    ['f-8-r0-c1', 'Lines, row 1, Qty: enter a number, such as 12 or 3.5.'],
  ]);
  assert.match(bad.html, /id="f-3" name="amount" aria-describedby="f-3-error" aria-invalid="true" value="5000"/);
  assert.equal(await records(form.id), []);

  const fields = validFields(script);
  fields[1] = ['notes', img];
  const sent = await v.post(fields, { files: [['logo', await redPng(), 'logo.png']] });
  assert.is(sent.status, 303, sent.html);
  const receipt = sent.headers.get('location')!;
  assert.match(receipt, new RegExp(`^/f/${form.id}/r/[0-9a-f-]{36}\\?token=[^&]+&receipt=[A-Za-z0-9_-]+$`));
  const [record] = await records(form.id);
  assert.is(record.values.client_name, script);
  assert.is(record.values.notes, img);
  assert.equal(record.values.lines, [{ Item: 'Desk', Qty: 3 }]);
  assert.equal(record.values.tasks, ['Plan', 'Ship']);
  assert.is(record.values.express, true);
  assert.is(record.values.logo.mimeType, 'image/png');
  assert.is(record.submitter.ip, null, 'no IP unless the form keeps it');
  assert.match(record.submitter.userAgent ?? '', /node|undici/i);

  let page = await v.open(receipt);
  for (let i = 0; i < 60 && !page.html.includes('id="download"'); i++) {
    assert.match(page.html, '<noscript><meta http-equiv="refresh" content="2"></noscript>');
    await sleep(500);
    page = await v.open(receipt);
  }
  assert.is(page.status, 200);
  assert.match(page.html, 'Your document is ready.');
  const download = await fetch(server.baseUrl + unescapeHtml(/id="download" href="([^"]+)"/.exec(page.html)![1]!));
  assert.is(download.status, 200);
  assert.is(download.headers.get('content-type'), 'application/pdf');
  const text = await pdftotextLayout(Buffer.from(await download.arrayBuffer()));
  assert.match(text, 'Order of <script>alert(1)</script>');
  assert.match(text, '"><img src=x onerror=alert(1)>');
  assert.match(text, 'Express delivery');
  assert.match(text, 'Desk');

  const wrong = await v.open(receipt.replace(/receipt=[^&]+/, 'receipt=AAAA'));
  assert.is(wrong.status, 404);
  assert.match(wrong.html, 'Form not found');
});

test('rows are added and removed by plain form posts, the values kept and nothing stored', async () => {
  const v = visitor();
  await v.open();
  const before = (await records(form.id)).length;
  const added = await v.post([['client_name', 'Kept name'], ['lines[0][Item]', 'Desk'], ['lines[0][Qty]', '1'], ['_action', 'add-row:lines']]);
  assert.is(added.status, 200);
  assert.match(added.html, /name="client_name"[^>]* value="Kept name"/);
  assert.match(added.html, 'name="lines[0][Item]" value="Desk"');
  assert.match(added.html, 'name="lines[1][Item]" value=""');
  const twice = await v.post([['lines[0][Item]', 'Desk'], ['lines[1][Item]', 'Lamp'], ['_action', 'add-row:lines']]);
  assert.match(twice.html, 'name="lines[2][Qty]"');
  assert.match(twice.html, 'aria-label="Remove row 3"');
  const removed = await v.post([['lines[0][Item]', 'Desk'], ['lines[1][Item]', 'Lamp'], ['lines[2][Item]', ''], ['_action', 'remove-row:lines:0']]);
  assert.is(removed.status, 200);
  assert.not.match(removed.html, 'name="lines[0][Item]"');
  assert.match(removed.html, 'name="lines[1][Item]" value="Lamp"');
  assert.is((await records(form.id)).length, before);
});

test('the preview is page 1 as PNG, over fetch and embedded in the page by the no-JavaScript button', async () => {
  const v = visitor();
  await v.open();
  const png = await fetch(`${server.baseUrl}/f/${form.id}/preview?token=${encodeURIComponent(new URL(form.publicUrl).searchParams.get('token')!)}`, {
    method: 'POST',
    headers: { Cookie: v.cookie!, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([['_csrf', v.csrf!], ['client_name', 'Preview person'], ['amount', 'not a number']]),
  });
  assert.is(png.status, 200);
  assert.is(png.headers.get('content-type'), 'image/png');
  assert.is(png.headers.get('cache-control'), 'no-store');
  const bytes = Buffer.from(await png.arrayBuffer());
  assert.equal([...bytes.subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.is(bytes.readUInt32BE(16), Math.round((595.28 / 72) * 60), 'A4 at 60 dpi');
  const page = await v.post([['client_name', 'Preview person'], ['_action', 'preview']]);
  assert.is(page.status, 200);
  assert.match(page.html, /<img id="preview-image" alt="[^"]+" src="data:image\/png;base64,[A-Za-z0-9+/=]+">/);
  const noCsrf = await v.post([['client_name', 'x']], { csrf: false, path: `/f/${form.id}/preview?token=${encodeURIComponent(new URL(form.publicUrl).searchParams.get('token')!)}` });
  assert.is(noCsrf.status, 403);
});

test('submissions over the form’s rate answer 429 with Retry-After', async () => {
  const limited = await createForm(api, docId, { submissionsPerMinute: 2 });
  const v = visitor(limited);
  await v.open();
  assert.is((await v.post([['client_name', '']])).status, 422);
  assert.is((await v.post([['client_name', '']])).status, 422);
  const third = await v.post(validFields());
  assert.is(third.status, 429);
  assert.ok(Number(third.headers.get('retry-after')) >= 1);
  assert.match(third.html, 'Too many submissions');
  assert.equal(await records(limited.id), []);
});

test("a submission's render reaches the organization's webhook endpoints as job.completed, its filloutId the record's id", async () => {
  const hook = await receiver();
  try {
    const ep = await api.post(`${API}/webhook-endpoints`, { url: hook.url, events: ['job.completed'] });
    assert.is(ep.status, 201, ep.bytes.toString());
    const v = visitor();
    await v.open();
    const sent = await v.post(validFields('Grace Hopper'));
    assert.is(sent.status, 303, sent.html);
    const [record] = await records(form.id);
    assert.type(record.jobId, 'string');
    await until(() => hook.calls.some((c) => c.body?.jobId === record.jobId), 20_000);
    const call = hook.calls.find((c) => c.body.jobId === record.jobId)!;
    assert.is(call.body.event, 'job.completed');
    assert.is(call.body.filloutId, record.id);
    assert.is(call.body.status, 'COMPLETED');
    assert.is((await api.request('DELETE', `${API}/webhook-endpoints/${ep.body.id}`)).status, 204);
  } finally {
    await hook.close();
  }
});

test('a form that keeps IPs and does not render: the record has the address, the receipt only thanks', async () => {
  const plain = await createForm(api, docId, { recordIp: true, locale: 'fr', labels: { 'receipt.title': 'Merci beaucoup' } });
  const v = visitor(plain);
  await v.open();
  const sent = await v.post(validFields('Marie Curie'), { headers: { 'Accept-Language': 'fr-FR' } });
  assert.is(sent.status, 303, sent.html);
  const [record] = await records(plain.id);
  assert.is(record.submitter.ip, '127.0.0.1');
  assert.is(record.submitter.locale, 'fr-FR');
  assert.is(record.jobId, null);
  const receipt = await v.open(sent.headers.get('location')!);
  assert.is(receipt.status, 200);
  assert.match(receipt.html, '<html lang="fr">');
  assert.match(receipt.html, '<h1>Merci beaucoup</h1>');
  assert.match(receipt.html, 'Vos réponses ont été reçues.');
  assert.not.match(receipt.html, 'id="download"');
  assert.not.match(receipt.html, 'http-equiv="refresh"');
  const status = await fetch(server.baseUrl + sent.headers.get('location')!.replace('?', '/status?'));
  assert.equal(await status.json(), { state: 'none' });
});

test('a render that cannot be queued (no credits) is said clearly on the receipt; the record is kept and nothing downloads', async () => {
  const poor = await startServer({ env: { QUIRE_BOOTSTRAP_CREDITS: '0' } });
  try {
    const poorApi = new ApiClient(poor.baseUrl, OWNER_KEY);
    const f = await createForm(poorApi, await everyKindDocument(poorApi), { autoRender: true });
    const v = new FormVisitor(poor.baseUrl, f.publicUrl);
    await v.open();
    const sent = await v.post(validFields());
    assert.is(sent.status, 303, sent.html);
    const receipt = sent.headers.get('location')!;
    const page = await v.open(receipt);
    assert.is(page.status, 200);
    assert.match(page.html, /<p class="error" role="alert">Your document could not be prepared\. Your answers were kept;/);
    assert.not.match(page.html, 'http-equiv="refresh"');
    const [record] = (await poorApi.get(`${API}/records?formId=${f.id}`)).body.items;
    assert.is(record.renderError.code, 'INSUFFICIENT_CREDITS');
    assert.equal(await (await fetch(poor.baseUrl + receipt.replace('?', '/status?'))).json(), { state: 'failed' });
    const download = await fetch(poor.baseUrl + receipt.replace('?', '/download?'), { redirect: 'manual' });
    assert.is(download.status, 404);
  } finally {
    await poor.stop();
    cleanup(poor.dataDir);
  }
});

test('bodies over the limits answer 413 pages', async () => {
  const v = visitor();
  await v.open();
  const big = await v.post([...validFields(), ['notes', 'x'.repeat(1024 * 1024 + 10)]]);
  assert.is(big.status, 413);
  assert.match(big.html, 'Too much data');
  const file = await v.post(validFields(), { files: [['logo', Buffer.alloc(10 * 1000 * 1000 + 1, 1), 'huge.png']] });
  assert.is(file.status, 413);
  const nine = Buffer.alloc(9 * 1000 * 1000, 1);
  const total = await v.post(validFields(), { files: [['logo', nine, 'a.png'], ['logo', nine, 'b.png'], ['logo', nine, 'c.png']] });
  assert.is(total.status, 413, 'three files under the file limit, over the total');
  const fields = await v.post(Array.from({ length: 2001 }, (_, i) => [`lines[${i}][Item]`, 'x'] as [string, string]));
  assert.is(fields.status, 413);
});

test('an SVG or a text file as the image is a 422 on that field; a header bomb is refused without decoding it', async () => {
  const v = visitor();
  await v.open();
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
  const r = await v.post(validFields(), { files: [['logo', svg, 'logo.png']] });
  assert.is(r.status, 422);
  assert.match(r.html, /<a href="#f-6">Logo: the file is not a PNG, JPEG, WebP or GIF image.<\/a>/);
  assert.match(r.html, /name="client_name"[^>]* value="Ada Lovelace"/, 'the other values are kept');
  const text = await v.post(validFields(), { files: [['logo', Buffer.from('GIF89a? no, just text'), 'a.gif']] });
  assert.is(text.status, 422);
  const bomb = await v.post(validFields(), { files: [['logo', pngBomb(), 'bomb.png']] });
  assert.is(bomb.status, 422);
  assert.match(bomb.html, 'Logo: the image is too large (100000 × 100000 pixels).');
  assert.is((await v.open()).status, 200, 'the server is still answering');
});

test('ended links are pages: unknown 404, revoked 410, rotated away 410, expired 410, document deleted 410', async () => {
  const unknown = await fetch(`${server.baseUrl}/f/00000000-0000-4000-8000-000000000000?token=x`, { headers: { 'Accept-Language': 'de-DE,de;q=0.9' } });
  assert.is(unknown.status, 404);
  assert.is(unknown.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(await unknown.text(), 'Formular nicht gefunden');
  const wrongToken = await fetch(`${server.baseUrl}/f/${form.id}?token=AAAA`);
  assert.is(wrongToken.status, 404);

  const revoked = await createForm(api, docId);
  assert.is((await api.post(`${API}/forms/${revoked.id}/revoke`, {})).status, 200);
  const r = await visitor(revoked).open();
  assert.is(r.status, 410);
  assert.match(r.html, 'Whoever sent you this form has closed it.');

  const rotated = await createForm(api, docId);
  const fresh = await api.post(`${API}/forms/${rotated.id}/rotate-token`, {});
  assert.is(fresh.status, 200);
  assert.is((await visitor(rotated).open()).status, 410, 'a link the owner replaced has ended');
  assert.is((await visitor(fresh.body).open()).status, 200);

  const expiring = await createForm(api, docId, { expiresAt: new Date(Date.now() + 1500).toISOString() });
  const ev = visitor(expiring);
  assert.is((await ev.open()).status, 200);
  await sleep(1700);
  const expired = await ev.post(validFields());
  assert.is(expired.status, 410);
  assert.match(expired.html, 'The link to this form has expired.');

  const otherDoc = await everyKindDocument(api, 'Doomed');
  const orphan = await createForm(api, otherDoc);
  assert.is((await api.request('DELETE', `${API}/documents/${otherDoc}`)).status, 204);
  const gone = await visitor(orphan).open();
  assert.is(gone.status, 410);
  assert.match(gone.html, 'This form is no longer available.');
  assert.not.match(gone.html, /at .*\.js:\d+/, 'no stack trace');
});

test('the public pages are in the OpenAPI document as HTML under the tag Public forms', async () => {
  const r = await api.get(`${API}/openapi.json`);
  const op = r.body.paths['/f/{formId}'];
  assert.equal(op.get.tags, ['Public forms']);
  assert.ok(op.get.responses['200'].content['text/html']);
  assert.ok(op.post.responses['422'].content['text/html']);
  assert.equal(op.get.security, []);
  assert.ok(r.body.paths['/f/{formId}/preview'].post.responses['200'].content['image/png']);
});

test('a page shown again keeps the CSRF field of the same cookie', async () => {
  const v = visitor();
  await v.open();
  const first = v.csrf;
  const again = await v.post([['_action', 'add-row:lines']]);
  assert.is(hiddenValue(again.html, '_csrf'), first);
});

test.run();
