// POST /tools/convert/html-to-pdf through HTTP: page settings checked with poppler (pdftotext, pdfinfo, pdftoppm,
// pdfimages); every request of the page aimed at loopback canaries to prove nothing leaves the URL policy.
// Longer than 400 lines: one Chromium-backed server serves every page-setting, sub-resource and refusal test (Chromium's start is the slow part).
// test-stores: once (Chromium's page settings and the URL policy; its jobs and output files reach the store as every tools test's do).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCanvas } from '@napi-rs/canvas';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { startCanary, startSite, type Canary } from '../helpers/loopback-canary.js';
import { makePdf } from '../fixtures/pdfs.js';
import { UrlPolicy } from '../../sdk/url-policy.js';
import { fetchResource, UrlRefusedError } from '../../sdk/outbound-http.js';

const run = promisify(execFile);
const ROUTE = '/api/v1/dev/tools/convert/html-to-pdf';
/** Short enough for the hanging-page test, long enough for every honest page here. */
const PAGE_LOAD_MS = 10_000;

let server: RunningServer;
let api: ApiClient;
let scratch: string;

test.before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'quire-html-test-'));
  // Uploads up to 60 MB, so that the plugin's own 50 MB limit is what refuses the large file.
  server = await startServer({ config: { maxUploadBytes: 60 * 1024 * 1024, plugins: { 'html-to-pdf': { settings: { pageLoadTimeoutMs: PAGE_LOAD_MS } } } } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
  await rm(scratch, { recursive: true, force: true });
});

// ---------- helpers: the API and poppler ----------

async function convert(client: ApiClient, html: string | Buffer, options: Record<string, unknown> = {}): Promise<{ job: any; pdf: Buffer | null }> {
  const fileId = await client.uploadId(typeof html === 'string' ? Buffer.from(html) : html, 'page.html');
  const created = await client.post(ROUTE, { fileId, ...options });
  assert.is(created.status, 202, created.bytes.toString());
  const job = await client.waitForJob(created.body.id, 180_000);
  if (job.status !== 'COMPLETED') return { job, pdf: null };
  const dl = await client.download(job.downloadUrl);
  assert.is(dl.status, 200);
  return { job, pdf: dl.bytes };
}

async function converted(html: string, options: Record<string, unknown> = {}, client = api): Promise<{ job: any; pdf: Buffer }> {
  const { job, pdf } = await convert(client, html, options);
  assert.is(job.status, 'COMPLETED', job.error);
  return { job, pdf: pdf! };
}

let n = 0;
async function saved(pdf: Buffer): Promise<string> {
  const file = path.join(scratch, `out-${++n}.pdf`);
  await writeFile(file, pdf);
  return file;
}

/** pdftotext of one page (or all), whitespace collapsed. */
async function pdfText(pdf: Buffer, page?: number): Promise<string> {
  const range = page ? ['-f', String(page), '-l', String(page)] : [];
  const { stdout } = await run('pdftotext', [...range, await saved(pdf), '-']);
  return stdout.replace(/\s+/g, ' ').trim();
}

async function pdfInfo(pdf: Buffer): Promise<{ pages: number; width: number; height: number }> {
  const { stdout } = await run('pdfinfo', [await saved(pdf)]);
  const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(stdout)!;
  return { pages: Number(/Pages:\s+(\d+)/.exec(stdout)![1]), width: Number(size[1]), height: Number(size[2]) };
}

/** Word boxes of page 1 from `pdftotext -bbox`, in points from the top-left corner. */
async function wordBoxes(pdf: Buffer): Promise<Array<{ word: string; xMin: number; yMin: number }>> {
  const { stdout } = await run('pdftotext', ['-bbox', '-f', '1', '-l', '1', await saved(pdf), '-']);
  return [...stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">([^<]*)<\/word>/g)].map((m) => ({ word: m[3]!, xMin: Number(m[1]), yMin: Number(m[2]) }));
}

/** RGB of a pixel of page 1 rendered by pdftoppm at 20 dpi, at a fraction of the page's width and height. */
async function pixel(pdf: Buffer, fx: number, fy: number): Promise<[number, number, number]> {
  const prefix = path.join(scratch, `px-${++n}`);
  await run('pdftoppm', ['-r', '20', '-f', '1', '-l', '1', '-singlefile', await saved(pdf), prefix]);
  const ppm = await readFile(`${prefix}.ppm`);
  // P6 header: "P6\n<width> <height>\n255\n", then RGB triples.
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'))!;
  const [w, h] = [Number(header[1]), Number(header[2])];
  const at = header[0].length + (Math.floor(fy * h) * w + Math.floor(fx * w)) * 3;
  return [ppm[at]!, ppm[at + 1]!, ppm[at + 2]!];
}

const MM = 72 / 25.4;

// ---------- output and page settings ----------

test('prints the uploaded HTML to a PDF whose text pdftotext reads back, named after the upload', async () => {
  const { job, pdf } = await converted('<!doctype html><html><head><meta charset="utf-8"><title>Invoice 42</title></head><body><h1>Invoice 42</h1><p>Grüße from Zürich — total €1,234.50</p></body></html>');
  assert.is(job.action, 'convert.html-to-pdf');
  assert.equal(job.result.subresources, { loaded: 0, refused: 0, failed: 0 });
  const file = await api.get(`/api/v1/dev/tools/files/${job.outputFileId}`);
  assert.is(file.body.mimeType, 'application/pdf');
  assert.is(file.body.filename, 'page.pdf');
  const text = await pdfText(pdf);
  assert.ok(text.includes('Invoice 42'), text);
  assert.ok(text.includes('Grüße from Zürich — total €1,234.50'), text);
  const { stdout } = await run('pdfinfo', [await saved(pdf)]);
  assert.match(stdout, /Title:\s+Invoice 42/);
});

test('reads a legacy charset named by <meta charset>', async () => {
  const html = Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>Caf'), Buffer.from([0xe9]), Buffer.from(' cr'), Buffer.from([0xe8]), Buffer.from('me</p></body></html>')]);
  const { job, pdf } = await convert(api, html);
  assert.is(job.status, 'COMPLETED', job.error);
  assert.ok((await pdfText(pdf!)).includes('Café crème'));
});

test('format and landscape set the page size (A4 by default, Letter landscape, A5)', async () => {
  const html = '<p>size</p>';
  const a4 = await pdfInfo((await converted(html)).pdf);
  assert.ok(Math.abs(a4.width - 595.92) < 1 && Math.abs(a4.height - 841.92) < 1, JSON.stringify(a4));
  const letter = await pdfInfo((await converted(html, { format: 'Letter', landscape: true })).pdf);
  assert.ok(Math.abs(letter.width - 792) < 1 && Math.abs(letter.height - 612) < 1, JSON.stringify(letter));
  const a5 = await pdfInfo((await converted(html, { format: 'A5' })).pdf);
  assert.ok(Math.abs(a5.width - 419.5) < 1.5 && Math.abs(a5.height - 595.3) < 1.5, JSON.stringify(a5));
});

test('margins move the content: text starts at the left and top margins in every unit', async () => {
  const html = '<body style="margin:0"><p style="margin:0;font-size:20px">MARGINWORD</p></body>';
  for (const [margin, left, top] of [
    [{ left: '40mm', top: '30mm' }, 40 * MM, 30 * MM],
    [{ left: '2in', top: '1in' }, 144, 72],
    [{ left: '3cm', top: '96px' }, 30 * MM, 72],
  ] as const) {
    const boxes = await wordBoxes((await converted(html, { margin })).pdf);
    const word = boxes.find((b) => b.word === 'MARGINWORD')!;
    assert.ok(word, JSON.stringify(boxes));
    assert.ok(word.xMin >= left - 0.5 && word.xMin < left + 4, `${JSON.stringify(margin)}: x ${word.xMin} vs ${left}`);
    // A glyph box starts a little above its line box (the font's ascent), hence the slack above.
    assert.ok(word.yMin >= top - 2 && word.yMin < top + 12, `${JSON.stringify(margin)}: y ${word.yMin} vs ${top}`);
  }
});

test('header and footer templates repeat on every page with page numbers, total pages and title', async () => {
  const pages = [1, 2, 3].map((i) => `<section style="page-break-after:${i < 3 ? 'always' : 'auto'}">Body of section ${i}</section>`).join('');
  const { pdf } = await converted(`<html><head><title>Quarterly Report</title></head><body>${pages}</body></html>`, {
    margin: { top: '25mm', bottom: '25mm' },
    headerTemplate: '<div style="font-size:10px;width:100%;text-align:center">HDR <span class="title"></span> / <span class="pageNumber"></span></div>',
    footerTemplate: '<div style="font-size:10px;width:100%;text-align:center">Page {{page}} of {{ pages }} {{unknown}}</div>',
  });
  assert.is((await pdfInfo(pdf)).pages, 3);
  for (const p of [1, 2, 3]) {
    const text = await pdfText(pdf, p);
    assert.ok(text.includes(`Body of section ${p}`), text);
    assert.ok(text.includes(`HDR Quarterly Report / ${p}`), text);
    // Unknown tokens stay as written.
    assert.ok(text.includes(`Page ${p} of 3 {{unknown}}`), text);
  }
});

test('a footer alone gets no default Chromium header (no date or title at the top)', async () => {
  const { pdf } = await converted('<html><head><title>ShouldNotAppear</title></head><body>Lone footer body</body></html>', {
    margin: { top: '25mm', bottom: '25mm' },
    footerTemplate: '<div style="font-size:10px">Only footer {{page}}</div>',
  });
  const text = await pdfText(pdf);
  assert.ok(text.includes('Only footer 1'), text);
  assert.not.ok(text.includes('ShouldNotAppear'), text);
});

test('emulatedMediaType picks the @media rules: print by default, screen on request', async () => {
  const html = '<style>@media print { .s { display: none } } @media screen { .p { display: none } }</style><p class="p">PRINTRULES</p><p class="s">SCREENRULES</p>';
  const print = await pdfText((await converted(html)).pdf);
  assert.ok(print.includes('PRINTRULES') && !print.includes('SCREENRULES'), print);
  const screen = await pdfText((await converted(html, { emulatedMediaType: 'screen' })).pdf);
  assert.ok(screen.includes('SCREENRULES') && !screen.includes('PRINTRULES'), screen);
});

test('preferCssPageSize lets @page size win over format and landscape', async () => {
  const html = '<style>@page { size: 100mm 150mm }</style><p>css page</p>';
  const preferred = await pdfInfo((await converted(html, { preferCssPageSize: true, format: 'Letter', landscape: true })).pdf);
  assert.ok(Math.abs(preferred.width - 100 * MM) < 1 && Math.abs(preferred.height - 150 * MM) < 1, JSON.stringify(preferred));
  const ignored = await pdfInfo((await converted(html, { format: 'Letter' })).pdf);
  assert.ok(Math.abs(ignored.width - 612) < 1 && Math.abs(ignored.height - 792) < 1, JSON.stringify(ignored));
});

test('backgrounds are always printed (colour sampled from the rendered page)', async () => {
  const { pdf } = await converted('<body style="margin:0;background:#1e90ff"><div style="height:100mm;background:rgb(220,20,60)">x</div></body>', { margin: { top: '0mm', left: '0mm', right: '0mm', bottom: '0mm' } });
  const [r1, g1, b1] = await pixel(pdf, 0.5, 0.1); // inside the crimson div
  assert.ok(r1 > 180 && g1 < 60 && b1 < 90, `div pixel ${[r1, g1, b1]}`);
  const [r2, g2, b2] = await pixel(pdf, 0.5, 0.8); // body background
  assert.ok(r2 < 60 && g2 > 120 && b2 > 220, `body pixel ${[r2, g2, b2]}`);
});

// ---------- bad input ----------

test('bad margins and formats answer 400 naming each field and what is allowed', async () => {
  const fileId = await api.uploadId(Buffer.from('<p>x</p>'), 'x.html');
  const res = await api.post(ROUTE, { fileId, margin: { top: '1 cm', left: '5pt', middle: '1cm' }, format: 'A7', emulatedMediaType: 'tv' });
  assert.is(res.status, 400);
  assert.is(res.body.code, 'VALIDATION_FAILED');
  const byPath = Object.fromEntries(res.body.errors.map((e: { path: string; message: string }) => [e.path, e.message]));
  assert.match(byPath['margin.top'], /number followed by mm, cm, in or px/);
  assert.match(byPath['margin.left'], /number followed by mm, cm, in or px/);
  assert.match(byPath['margin.middle'], /not an allowed field/);
  assert.match(byPath.format, /must be one of .*"A4".*"Letter"/);
  assert.match(byPath.emulatedMediaType, /must be one of "print", "screen"/);
});

test('margins larger than the page fail the job with PAGE_SETTINGS_INVALID naming margin', async () => {
  const { job } = await convert(api, '<p>x</p>', { margin: { top: '160mm', bottom: '160mm' } });
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PAGE_SETTINGS_INVALID');
  assert.match(job.error, /margin/);
});

test('a file that is not HTML answers 415', async () => {
  const fileId = await api.uploadId(await makePdf(1), 'doc.pdf');
  const res = await api.post(ROUTE, { fileId });
  assert.is(res.status, 415);
  assert.match(res.body.detail, /text\/html/);
});

test('HTML over 50 MB answers 413 naming fileId and the limit', async () => {
  const filler = '<p>' + 'x'.repeat(1000) + '</p>\n';
  const html = '<!doctype html><html><body>' + filler.repeat(Math.ceil((50 * 1024 * 1024) / filler.length)) + '</body></html>';
  const fileId = await api.uploadId(Buffer.from(html), 'huge.html');
  const res = await api.post(ROUTE, { fileId });
  assert.is(res.status, 413);
  assert.is(res.body.code, 'PAYLOAD_TOO_LARGE');
  assert.match(res.body.detail, /^fileId: .* at most 52428800 bytes \(50 MB\)/);
});

// ---------- limits: hanging and crashing browsers ----------

test('a page that never finishes loading fails with PAGE_LOAD_TIMEOUT, and the next job still prints', async () => {
  const { job } = await convert(api, '<p>before</p><script>for (;;) {}</script>');
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PAGE_LOAD_TIMEOUT');
  assert.match(job.error, new RegExp(`within ${PAGE_LOAD_MS / 1000} s`));
  const { pdf } = await converted('<p>after the hang</p>');
  assert.ok((await pdfText(pdf)).includes('after the hang'));
});

test('every job gets its own context and page: what one page leaves behind does not reach the next job', async () => {
  await converted('<p>first</p><script>window.name = "LEFT-BY-THE-FIRST-JOB";</script>');
  const { pdf } = await converted('<p id="out"></p><script>document.getElementById("out").textContent = "name=[" + window.name + "] pages=" + history.length;</script>');
  assert.match(await pdfText(pdf), 'name=[] pages=1');
});

test('a browser killed between jobs is replaced: the next job prints', async () => {
  await converted('<p>warm up</p>');
  const browsers = await chromiumChildren(server.proc.pid!);
  assert.ok(browsers.length >= 1, 'a warm Chromium runs under the server');
  for (const b of browsers) process.kill(b.pid, 'SIGKILL');
  const { pdf } = await converted('<p>after the crash</p>');
  assert.ok((await pdfText(pdf)).includes('after the crash'));
  const after = await chromiumChildren(server.proc.pid!);
  const killed = browsers.map((b) => b.pid);
  assert.ok(after.length >= 1 && after.every((b) => !killed.includes(b.pid)), `new browsers ${JSON.stringify(after)} vs killed ${killed}`);
  // The dead browser's profile was removed when it was replaced (the killed browser that took the job, at least).
  const remaining = browsers.filter((b) => existsSync(b.profile));
  assert.ok(remaining.length < browsers.length, `profiles left: ${remaining.map((b) => b.profile)}`);
});

test('the warm browser serves recycleAfterJobs jobs, then a fresh one takes over and the old one is gone', async () => {
  const small = await startServer({ config: { plugins: { 'html-to-pdf': { pool: { maxThreads: 1 }, settings: { recycleAfterJobs: 2 } } } } });
  try {
    const client = new ApiClient(small.baseUrl, OWNER_KEY);
    const browsersAfter = async (i: number) => {
      await converted(`<p>job ${i}</p>`, {}, client);
      return (await chromiumChildren(small.proc.pid!)).map((b) => b.pid);
    };
    const first = await browsersAfter(1);
    assert.is(first.length, 1, `one browser for one thread: ${first}`);
    assert.equal(await browsersAfter(2), first, 'the second job used the warm browser');
    const third = await browsersAfter(3);
    assert.is(third.length, 1);
    assert.is.not(third[0], first[0], 'the third job got a fresh browser');
  } finally {
    await small.stop();
    cleanup(small.dataDir);
  }
});

/** Chromium browser processes whose parent is the server (one per warm worker thread), with their profile dir. */
async function chromiumChildren(parent: number): Promise<Array<{ pid: number; profile: string }>> {
  const { stdout } = await run('ps', ['-e', '-o', 'pid=,ppid=,args=']);
  return stdout
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => !!m && Number(m[2]) === parent && m[3]!.includes('chromium'))
    .map((m) => ({ pid: Number(m[1]), profile: /--user-data-dir=(\S+)/.exec(m[3]!)?.[1] ?? '' }))
    .filter((b) => b.profile.includes('quire-chromium-'));
}

// ---------- the outbound URL policy: nothing leaks ----------

/** Every way a page can make a request, each aimed at `target`; a leak would put the canary's answer on the page. */
function leakPage(target: string, udpPort: number): string {
  const ws = target.replace(/^http/, 'ws');
  return `<!doctype html><html><head><title>leak test</title>
<link rel="stylesheet" href="${target}/style.css">
<link rel="prefetch" href="${target}/prefetch">
<link rel="preconnect" href="${target}">
<link rel="dns-prefetch" href="${target}">
<link rel="icon" href="${target}/favicon.ico">
<style>@import url("${target}/import.css"); @font-face { font-family: Leak; src: url("${target}/font.woff2"); } body { font-family: Leak, sans-serif; background-image: url("${target}/bg.png"); }</style>
</head><body>
<h1>VISIBLE-MARKER</h1>
<img src="${target}/img.png">
<img src="${target}/redirect-me">
<iframe src="file:///etc/passwd"></iframe>
<iframe src="${target}/frame.html"></iframe>
<object data="file:///etc/passwd"></object>
<embed src="file:///etc/hostname">
<video src="${target}/video.mp4" poster="${target}/poster.png"></video>
<script src="${target}/script.js"></script>
<div id="out"></div>
<script>
const out = (t) => { const p = document.createElement('p'); p.textContent = String(t); document.getElementById('out').append(p); };
try { const x = new XMLHttpRequest(); x.open('GET', '${target}/sync-xhr', false); x.send(); out(x.responseText); } catch (e) {}
try { const x = new XMLHttpRequest(); x.open('GET', 'file:///etc/passwd', false); x.send(); out(x.responseText); } catch (e) {}
fetch('${target}/fetch').then((r) => r.text()).then(out, () => {});
fetch('${target}/post', { method: 'POST', body: 'secret' }).then((r) => r.text()).then(out, () => {});
fetch('file:///etc/passwd').then((r) => r.text()).then(out, () => {});
try { const s = new WebSocket('${ws}/socket'); s.onmessage = (e) => out(e.data); } catch (e) {}
try { new EventSource('${target}/events').onmessage = (e) => out(e.data); } catch (e) {}
try { navigator.sendBeacon('${target}/beacon', 'x'); } catch (e) {}
try { window.open('${target}/popup'); } catch (e) {}
try { new Worker(URL.createObjectURL(new Blob(["fetch('${target}/worker').catch(() => {}); try { new WebSocket('${ws}/worker-socket'); } catch (e) {}"]))); } catch (e) {}
try { navigator.serviceWorker && navigator.serviceWorker.register('${target}/sw.js').catch(() => {}); } catch (e) {}
try { const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udpPort}' }, { urls: 'turn:127.0.0.1:${udpPort}?transport=udp', username: 'u', credential: 'c' }] }); pc.createDataChannel('x'); pc.createOffer().then((o) => pc.setLocalDescription(o)); } catch (e) {}
const f = document.createElement('iframe'); f.srcdoc = '<img src="${target}/srcdoc-img.png">'; document.body.append(f);
</script>
</body></html>`;
}

/** What a page must never show: the canary's answer or local files. */
function assertNothingLeaked(text: string): void {
  assert.ok(text.includes('VISIBLE-MARKER'), text);
  assert.not.ok(text.includes('CANARY-LEAKED'), text);
  assert.not.ok(/root:.*:0:0:/.test(text), text);
}

/** Connections still being torn down when the job finishes get a moment to arrive before the canary is read. */
const settle = () => new Promise((r) => setTimeout(r, 500));

test('under default settings no request of the page reaches a loopback canary, and nothing leaks into the PDF', async () => {
  const canary = await startCanary();
  try {
    const { job, pdf } = await converted(leakPage(canary.url, canary.udpPort), {
      margin: { top: '20mm', bottom: '20mm' },
      headerTemplate: `<img src="${canary.url}/header.png"><span style="font-size:8px">h</span>`,
      footerTemplate: `<img src="${canary.url}/footer.png"><span style="font-size:8px">f</span>`,
    });
    await settle();
    assert.equal(canary.hits, [], `the canary was reached: ${canary.hits.join(', ')}`);
    assertNothingLeaked(await pdfText(pdf));
    assert.is(job.result.subresources.loaded, 0);
    assert.ok(job.result.subresources.refused >= 5, JSON.stringify(job.result));
    const reasons = job.result.refused.map((r: { url: string; reason: string }) => `${r.url} → ${r.reason}`).join('\n');
    assert.match(reasons, /\/img\.png → .*127\.0\.0\.1, a loopback address; set QUIRE_ALLOW_PRIVATE_NETWORK=true/);
    assert.match(reasons, /\/style\.css → /);
    assert.match(reasons, /\/fetch → /);
  } finally {
    await canary.close();
  }
});

test('"localhost" and other spellings of loopback are refused as well', async () => {
  const canary = await startCanary();
  try {
    const spellings = [`http://localhost:${canary.port}`, `http://2130706433:${canary.port}`, `http://127.1:${canary.port}`, `http://[::ffff:127.0.0.1]:${canary.port}`, `http://0.0.0.0:${canary.port}`, `http://app.localhost:${canary.port}`];
    const html = `<p>VISIBLE-MARKER</p>${spellings.map((s, i) => `<img src="${s}/img-${i}.png">`).join('')}`;
    const { job, pdf } = await converted(html);
    await settle();
    assert.equal(canary.hits, []);
    assertNothingLeaked(await pdfText(pdf));
    assert.is(job.result.subresources.refused, spellings.length, JSON.stringify(job.result));
  } finally {
    await canary.close();
  }
});

test('the policy refuses metadata, private and link-local destinations and names that resolve to them, without connecting', async () => {
  // Asking the policy (and the fetch the page's requests go through) with a resolver, so no packet leaves loopback.
  const resolver = async (host: string) => (host === 'intranet.example' ? [{ address: '10.1.2.3', family: 4 as const }] : host === 'rebind.example' ? [{ address: '93.184.215.14', family: 4 as const }, { address: '169.254.169.254', family: 4 as const }] : []);
  for (const allowPrivateNetwork of [false, true]) {
    const policy = new UrlPolicy({ allowPrivateNetwork, resolver });
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://metadata.google.internal/', 'http://[fd00:ec2::254]/', 'http://rebind.example/']) {
      assert.is((await policy.check(url)).allowed, false, `${url} (allowPrivateNetwork ${allowPrivateNetwork})`);
      const err = await fetchResource(policy, url, { method: 'GET', headers: {}, timeoutMs: 2000, maxBytes: 100 }).catch((e: unknown) => e);
      assert.ok(err instanceof UrlRefusedError && !err.unresolved, `${url}: ${err}`);
    }
  }
  const strict = new UrlPolicy({ allowPrivateNetwork: false, resolver });
  for (const url of ['http://10.0.0.5/', 'http://192.168.1.1/', 'http://172.16.0.1/', 'http://169.254.1.1/', 'http://100.64.0.1/', 'http://[fe80::1]/', 'http://intranet.example/']) {
    assert.is((await strict.check(url)).allowed, false, url);
    const err = await fetchResource(strict, url, { method: 'GET', headers: {}, timeoutMs: 2000, maxBytes: 100 }).catch((e: unknown) => e);
    assert.ok(err instanceof UrlRefusedError, `${url}: ${err}`);
  }
});

test('without chromium on the PATH the plugin is unavailable: 503 PLUGIN_UNAVAILABLE naming chromium', async () => {
  const bare = await startServer({ env: { PATH: '/nonexistent' } });
  try {
    const client = new ApiClient(bare.baseUrl, OWNER_KEY);
    const listed = (await client.get('/api/v1/dev/plugins')).body.items as Array<{ id: string; state: string; missing: string[] }>;
    const entry = listed.find((p) => p.id === 'html-to-pdf');
    assert.is(entry?.state, 'unavailable', JSON.stringify(listed));
    assert.equal(entry?.missing, ['chromium']);
    const fileId = await client.uploadId(Buffer.from('<p>x</p>'), 'x.html');
    const res = await client.post(ROUTE, { fileId });
    assert.is(res.status, 503);
    assert.is(res.body.code, 'PLUGIN_UNAVAILABLE');
    assert.match(res.body.detail, /chromium/);
  } finally {
    await bare.stop();
    cleanup(bare.dataDir);
  }
});

// ---------- allowed private network: the fetch path works, hop by hop ----------

/** A loopback canary on a port the policy always refuses (a non-HTTP protocol's), for redirects to end at. */
async function blockedPortCanary(): Promise<Canary> {
  for (const port of [6666, 6667, 6668, 6669, 6665, 6679, 6697, 10080, 4190, 3659]) {
    try {
      return await startCanary(port);
    } catch {
      /* taken; try the next blocked port */
    }
  }
  throw new Error('no blocked port was free for the canary');
}

test('with allowPrivateNetwork a loopback stylesheet, web page, image and redirect load through the policy; refused hops and WebSockets still go nowhere', async () => {
  const png = createCanvas(64, 64);
  const ctx = png.getContext('2d');
  ctx.fillStyle = '#00c000';
  ctx.fillRect(0, 0, 64, 64);
  const canary = await blockedPortCanary();
  const site = await startSite({
    '/style.css': [200, { 'Content-Type': 'text/css' }, '.styled::after { content: "CSS-LOADED"; } .bg { background: rgb(0, 0, 200); height: 40mm; }'],
    '/moved.css': [302, { Location: '/target.css' }, ''],
    '/target.css': [200, { 'Content-Type': 'text/css' }, '.moved::after { content: "REDIRECTED-CSS"; }'],
    '/logo.png': [200, { 'Content-Type': 'image/png' }, png.toBuffer('image/png')],
    '/frame.html': [200, { 'Content-Type': 'text/html' }, '<p>FRAME-TEXT</p><img src="/logo.png" width="20">'],
    '/to-blocked-port': [302, { Location: `${canary.url}/stolen` }, ''],
    '/to-file': [301, { Location: 'file:///etc/passwd' }, ''],
    '/data.txt': [200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' }, 'FETCHED-TEXT'],
    '/big.png': [200, { 'Content-Type': 'image/png' }, Buffer.alloc(300_000, 1)],
  });
  // Limits low enough for the second page to pass them (the first page makes about a dozen requests).
  const open = await startServer({ config: { allowPrivateNetwork: true, plugins: { 'html-to-pdf': { settings: { maxRequests: 20, maxResourceBytes: 200_000 } } } } });
  try {
    const client = new ApiClient(open.baseUrl, OWNER_KEY);
    const html = `<!doctype html><html><head><link rel="stylesheet" href="${site.url}/style.css"><link rel="stylesheet" href="${site.url}/moved.css"></head><body>
<p class="styled">A</p><p class="moved">B</p>
<img src="${site.url}/logo.png" style="width:30mm">
<iframe src="${site.url}/frame.html"></iframe>
<img src="${site.url}/to-blocked-port"><img src="${site.url}/to-file">
<div class="bg"></div>
<script>
const x = new XMLHttpRequest(); x.open('GET', '${site.url}/data.txt', false); x.send(); document.body.append(x.responseText);
try { new WebSocket('${canary.url.replace('http', 'ws')}/socket'); } catch (e) {}
try { new WebSocket('${site.url.replace('http', 'ws')}/socket'); } catch (e) {}
</script></body></html>`;
    const { job, pdf } = await converted(html, {}, client);
    await settle();
    const text = await pdfText(pdf);
    for (const expected of ['CSS-LOADED', 'REDIRECTED-CSS', 'FRAME-TEXT', 'FETCHED-TEXT']) assert.ok(text.includes(expected), `${expected} missing: ${text}`);
    // The hops the browser took, each fetched (and checked) separately.
    for (const p of ['/style.css', '/moved.css', '/target.css', '/logo.png', '/frame.html', '/to-blocked-port', '/to-file', '/data.txt']) assert.ok(site.requests.includes(p), `${p} not requested: ${site.requests}`);
    // The image is in the PDF (pdfimages lists it), and green pixels are drawn.
    const { stdout } = await run('pdfimages', ['-list', await saved(pdf)]);
    assert.ok(stdout.trim().split('\n').length >= 3, stdout);
    // Redirects to a refused destination were refused hop by hop; no WebSocket ever connected.
    assert.equal(canary.hits, [], `the canary was reached: ${canary.hits.join(', ')}`);
    assert.ok(!site.requests.some((p) => p.includes('socket')), `a WebSocket reached the site: ${site.requests}`);
    const reasons = job.result.refused.map((r: { url: string; reason: string }) => `${r.url} → ${r.reason}`).join('\n');
    assert.match(reasons, /\/stolen → .*port \d+, which is reserved for a non-HTTP protocol/);
    assert.ok(job.result.subresources.loaded >= 8, JSON.stringify(job.result));

    // The operator's limits: a resource over maxResourceBytes fails, requests past maxRequests are refused.
    const many = Array.from({ length: 30 }, (_, i) => `<img src="${site.url}/logo.png?n=${i}" width="5">`).join('');
    const limited = await converted(`<p>LIMITS-PAGE</p><img src="${site.url}/big.png">${many}`, {}, client);
    assert.ok((await pdfText(limited.pdf)).includes('LIMITS-PAGE'));
    const { subresources, failed, refused } = limited.job.result;
    assert.is(subresources.loaded + subresources.failed, 20, JSON.stringify(subresources));
    assert.is(subresources.refused, 11, JSON.stringify(subresources));
    assert.ok(failed.some((f: { url: string; reason: string }) => f.url.endsWith('/big.png') && /larger than the 200000-byte limit of one resource/.test(f.reason)), JSON.stringify(failed));
    assert.ok(refused.every((r: { reason: string }) => r.reason === 'the page made more than 20 requests'), JSON.stringify(refused));
  } finally {
    await open.stop();
    cleanup(open.dataDir);
    await site.close();
    await canary.close();
  }
});

test.run();
