// Hostile PDFs given to fill-form, unlock, watermark and metadata: each job fails cleanly and fast with a PDF_* code, costs nothing, and the server keeps serving.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, OWNER_KEY, cleanup, type RunningServer } from '../helpers/quire-server.js';
import { ApiClient } from '../helpers/api-client.js';
import { assemblePdf, decompressionBombPdf, deepReferenceChainPdf, deeplyNestedPdf, encryptedPdf, makePdf, pageTreeCyclePdf, truncatedPdf } from '../fixtures/pdfs.js';
import { pdfPageTexts } from '../fixtures/pdf-readers.js';

const TOOLS = ['pdf-fill-form', 'pdf-unlock', 'pdf-watermark', 'pdf-metadata'] as const;
const DEADLINE_MS = 20_000;
let server: RunningServer;
let api: ApiClient;

test.before(async () => {
  // A short deadline: a hostile file must be refused on inspection, well before it.
  const plugins = Object.fromEntries(TOOLS.map((id) => [id, { pool: { timeoutMs: DEADLINE_MS } }]));
  server = await startServer({ config: { plugins } });
  api = new ApiClient(server.baseUrl, OWNER_KEY);
});

test.after(async () => {
  await server.stop();
  cleanup(server.dataDir);
});

const balance = async () => (await api.get('/api/v1/dev/credits')).body.balance as number;

/** One request per tool for the uploaded file `id`. */
function requests(id: string): Array<[string, Record<string, unknown>]> {
  return [
    ['/api/v1/dev/tools/pdf/fill-form', { fileId: id, fields: { name: 'x' } }],
    ['/api/v1/dev/tools/pdf/unlock', { fileId: id, password: 'pw' }],
    ['/api/v1/dev/tools/pdf/watermark', { fileId: id, text: 'HOSTILE' }],
    ['/api/v1/dev/tools/pdf/metadata', { fileId: id }],
  ];
}

async function runAll(bytes: Uint8Array, name: string): Promise<Array<{ path: string; job: any }>> {
  const id = await api.uploadId(bytes, `${name}.pdf`);
  return Promise.all(
    requests(id).map(async ([path, body]) => {
      const created = await api.post(path, body);
      assert.is(created.status, 202, `${path}: ${created.bytes.toString()}`);
      return { path, job: await api.waitForJob(created.body.id, 60_000) };
    }),
  );
}

/** A one-page form whose field /Kids loop back (field 4 → widget 5 → field 4). */
function fieldKidsCyclePdf(): Uint8Array {
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [5 0 R] >>',
    '<< /T (outer) /FT /Tx /Kids [5 0 R] >>',
    '<< /T (inner) /Parent 4 0 R /Kids [4 0 R] /Subtype /Widget /Rect [10 10 100 30] /P 3 0 R >>',
  ]);
}

/** A one-page form whose field's /Parent chain loops (4 → 5 → 4), which a fully-qualified-name walk follows forever. */
function fieldParentCyclePdf(): Uint8Array {
  return assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [4 0 R] >>',
    '<< /T (name) /FT /Tx /Parent 5 0 R /Subtype /Widget /Rect [10 10 100 30] /P 3 0 R >>',
    '<< /T (loop) /Parent 4 0 R >>',
  ]);
}

/** A one-page form whose one field sits `depth` levels down a chain of parent fields. */
function deepFieldTreePdf(depth = 40): Uint8Array {
  const first = 4;
  const fields = Array.from({ length: depth }, (_, k) => {
    const parent = k === 0 ? '' : ` /Parent ${first + k - 1} 0 R`;
    return k + 1 < depth ? `<< /T (f${k})${parent} /Kids [${first + k + 1} 0 R] >>` : `<< /T (leaf)${parent} /FT /Tx /Subtype /Widget /Rect [10 10 100 30] /P 3 0 R >>`;
  });
  return assemblePdf([
    `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${first} 0 R] >> >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Annots [${first + depth - 1} 0 R] >>`,
    ...fields,
  ]);
}

const cases: Array<[string, () => Promise<Uint8Array> | Uint8Array, RegExp]> = [
  ['a decompression bomb', () => decompressionBombPdf(), /bomb|inflate/i],
  ['a two-layer decompression bomb', () => decompressionBombPdf({ layers: 2 }), /bomb|inflate/i],
  ['a page-tree cycle', () => pageTreeCyclePdf(), /loops|page tree/i],
  ['50,000-deep nesting', () => deeplyNestedPdf(50_000), /nest|deep/i],
  ['a 30,000-long reference chain', () => deepReferenceChainPdf(30_000), /.+/],
  ['a truncated file', () => truncatedPdf(), /readable|truncat|damaged/i],
];

for (const [name, make, pattern] of cases) {
  // "Fast" is checked without timing: a job that ran into the 20 s deadline would fail with DEADLINE_EXCEEDED, not a PDF_* code.
  test(`fails or safely completes every PDF tool for ${name}, on inspection, charging only what completed`, async () => {
    const before = await balance();
    const results = await runAll(await make(), name.replace(/\W+/g, '-'));
    let completed = 0;
    for (const { path, job } of results) {
      if (job.status === 'COMPLETED') {
        // Only a file that is well-formed apart from its depth may pass (watermark and metadata never
        // follow the reference chain); anything refused is refused by inspection, with a PDF code.
        assert.is(name, 'a 30,000-long reference chain', `${path} completed for ${name}`);
        completed++;
        continue;
      }
      assert.is(job.status, 'FAILED', path);
      assert.match(job.errorCode, /^PDF_[A-Z_]+$/, `${path}: ${job.errorCode} ${job.error}`);
      assert.match(job.error, pattern, `${path}: ${job.error}`);
      assert.not.match(job.error, /deadline/i);
      assert.is(job.outputFileId, null);
    }
    assert.is(await balance(), before - completed);
    assert.is((await api.get('/readyz')).status, 200);
  });
}

test('unlock refuses a decompression bomb hidden inside encryption, once it is decrypted', async () => {
  const locked = await encryptedPdf({ password: 'pw', source: decompressionBombPdf() });
  const id = await api.uploadId(locked, 'locked-bomb.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/unlock', { fileId: id, password: 'pw' })).body.id);
  assert.is(job.status, 'FAILED');
  assert.is(job.errorCode, 'PDF_DECOMPRESSION_BOMB');
});

for (const [name, make] of [
  ['field /Kids that loop', fieldKidsCyclePdf],
  ['a field /Parent chain that loops', fieldParentCyclePdf],
] as const) {
  test(`fill-form and metadata fail cleanly on a form with ${name}`, async () => {
    const id = await api.uploadId(make(), 'loop-form.pdf');
    for (const [path, body] of [requests(id)[0]!, requests(id)[3]!]) {
      const job = await api.waitForJob((await api.post(path, body)).body.id);
      assert.is(job.status, 'FAILED', path);
      assert.is(job.errorCode, 'PDF_UNREADABLE', `${path}: ${job.errorCode} ${job.error}`);
      assert.match(job.error, /form field|\/Parent/);
    }
  });
}

test('fill-form and metadata refuse a form whose fields nest 40 levels deep with PDF_TOO_COMPLEX', async () => {
  const id = await api.uploadId(deepFieldTreePdf(40), 'deep-form.pdf');
  for (const [path, body] of [requests(id)[0]!, requests(id)[3]!]) {
    const job = await api.waitForJob((await api.post(path, body)).body.id);
    assert.is(job.errorCode, 'PDF_TOO_COMPLEX', `${path}: ${job.error}`);
    assert.match(job.error, 'form fields more than 32 levels deep');
  }
});

test('fuzzed and cut-off files end every job as COMPLETED or a PDF_* failure, never a crash or a timeout', async () => {
  const source = Buffer.from(await makePdf(3, { label: 'Fuzz', objectStreams: false }));
  let seed = 20261124;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const variants: Buffer[] = [];
  for (let v = 0; v < 6; v++) {
    const bytes = Buffer.from(source);
    for (let k = 0; k < 12; k++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
    variants.push(bytes);
  }
  for (const fraction of [0.3, 0.7, 0.95]) variants.push(source.subarray(0, Math.floor(source.length * fraction)));
  for (const [i, bytes] of variants.entries()) {
    for (const { path, job } of await runAll(bytes, `fuzz-${i}`)) {
      if (job.status === 'COMPLETED') continue;
      assert.is(job.status, 'FAILED');
      assert.match(job.errorCode, /^(PDF_|FORM_|QPDF_)[A-Z_]+$/, `variant ${i}, ${path}: ${job.errorCode} ${job.error}`);
    }
  }
  assert.is((await api.get('/readyz')).status, 200);
});

test('keeps serving ordinary jobs after the hostile ones', async () => {
  const id = await api.uploadId(await makePdf(2, { label: 'After' }), 'after.pdf');
  const job = await api.waitForJob((await api.post('/api/v1/dev/tools/pdf/watermark', { fileId: id, text: 'STILL HERE' })).body.id);
  assert.is(job.status, 'COMPLETED', job.error);
  const texts = await pdfPageTexts((await api.download(job.downloadUrl)).bytes);
  assert.match(texts[1]!, 'STILL HERE');
});

test.run();
