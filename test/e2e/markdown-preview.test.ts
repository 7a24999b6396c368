// POST /render/markdown/preview: page images of Extended Markdown answered at once as PNG (read back by an independent
// decoder), free (the balance and the ledger do not move), with the render's 400s at line and column, and a per-key budget (429).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, OWNER_KEY, startServer, tempDir, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { decodePng, meanDifference, pngSize } from '../helpers/image-readers.js';

const API = '/api/v1/dev';
const PREVIEW = `${API}/render/markdown/preview`;
const PER_MINUTE = 8;
const dataDir = tempDir('quire-md-preview-');
const TWO_PAGES = '# First page\n\nHello, {{who}}.\n\n::pagebreak\n\n# Second page\n\nThe end.\n';

let server: RunningServer;
let api: ApiClient;

test.before(async () => {
  server = await startServer({ dataDir, env: { QUIRE_PREVIEWS_PER_MINUTE: String(PER_MINUTE) } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server?.stop();
  cleanup(dataDir);
});

async function balance(): Promise<{ available: number; entries: number }> {
  const r = await api.get(`${API}/credits?limit=100`);
  assert.is(r.status, 200);
  return { available: r.body.available, entries: r.body.entries.length };
}

test('answers page 1 as a 96 dpi A4 PNG at once, pages by ?page=, with the request variables, and charges nothing', async () => {
  const before = await balance();
  const one = await api.post(PREVIEW, { content: TWO_PAGES, variables: { who: 'Ada' } });
  assert.is(one.status, 200, one.bytes.toString());
  assert.is(one.headers.get('content-type'), 'image/png');
  assert.is(one.headers.get('cache-control'), 'no-store');
  assert.is(Number(one.headers.get('content-length')), one.bytes.length);
  assert.equal(pngSize(one.bytes), { width: 794, height: 1123 });
  const first = decodePng(one.bytes);

  const two = await api.post(`${PREVIEW}?page=2`, { content: TWO_PAGES, variables: { who: 'Ada' } });
  assert.is(two.status, 200);
  assert.ok(meanDifference(first, decodePng(two.bytes)) > 0.001, 'page 2 is another page');

  // Another value of the variable is another page 1; the same request is the same image.
  const other = await api.post(PREVIEW, { content: TWO_PAGES, variables: { who: 'Grace Brewster Murray Hopper, rear admiral' } });
  assert.ok(meanDifference(first, decodePng(other.bytes)) > 0.0004, 'the variable is drawn');
  const again = await api.post(PREVIEW, { content: TWO_PAGES, variables: { who: 'Ada' } });
  assert.equal(decodePng(again.bytes).grey, first.grey);

  assert.equal(await balance(), before, 'no credits charged, no ledger entry');
});

test('answers the render route\'s 400 with line and column for bad Markdown, and 400 for a page past the end or not a number', async () => {
  const bad = await api.post(PREVIEW, { content: '# Title\n\n::frobnicate{x=1}\n' });
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'VALIDATION_FAILED');
  const issue = bad.body.errors.find((e: any) => e.code === 'INVALID_DIRECTIVE');
  assert.ok(issue, JSON.stringify(bad.body.errors));
  assert.equal([issue.line, issue.column], [3, 1]);

  const past = await api.post(`${PREVIEW}?page=9`, { content: TWO_PAGES });
  assert.is(past.status, 400);
  assert.equal(past.body.errors.map((e: any) => [e.path, e.code]), [['query.page', 'PAGE_OUT_OF_RANGE']]);

  const word = await api.post(`${PREVIEW}?page=two`, { content: TWO_PAGES });
  assert.is(word.status, 400);
  assert.is(word.body.errors[0].path, 'query.page');

  const noContent = await api.post(PREVIEW, { markdown: TWO_PAGES });
  assert.is(noContent.status, 400);
  const unknownStyle = await api.post(PREVIEW, { content: TWO_PAGES, stylePresetId: 'no-such-style' });
  assert.is(unknownStyle.status, 400);
});

test('answers 429 with Retry-After once a key spent its previews of the minute, while another key still previews', async () => {
  let refused = null;
  for (let n = 0; n <= PER_MINUTE && !refused; n++) {
    const r = await api.post(PREVIEW, { content: '# Quick\n' });
    if (r.status === 429) refused = r;
    else assert.is(r.status, 200);
  }
  assert.ok(refused, `429 within ${PER_MINUTE + 1} previews`);
  assert.is(refused!.body.code, 'RATE_LIMITED');
  assert.ok(Number(refused!.headers.get('retry-after')) >= 1);
  assert.is(refused!.headers.get('ratelimit-limit'), String(PER_MINUTE));
  assert.is(refused!.headers.get('ratelimit-remaining'), '0');

  const created = await api.post(`${API}/api-keys`, { name: 'second', role: 'member' });
  assert.is(created.status, 201);
  const other = await api.withKey(created.body.key).post(PREVIEW, { content: '# Quick\n' });
  assert.is(other.status, 200);
  assert.equal(pngSize(other.bytes), { width: 794, height: 1123 });
});

test.run();
