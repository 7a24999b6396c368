// Renders one sample document with each built-in style preset through a started server and writes page 1 to docs/images/styles/<slug>.png.
//
//   npm run build && node dist/scripts/render-style-previews.js
//
// Needs `pdftoppm` (poppler-utils). The server runs on a free loopback port with a throw-away data dir.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT_DIR = path.join(ROOT, 'docs/images/styles');
const API = '/api/v1/dev';

/** Headings, inline markup, a citation, a table, lists and a quote: what a preset changes the look of. */
export const SAMPLE_DOCUMENT = {
  document: { type: 'pdf', filename: 'style-preview', title: 'Quarterly Operations Review' },
  sections: [
    {
      type: 'flow',
      content: [
        { type: 'h1', text: 'Quarterly Operations Review' },
        {
          type: 'text',
          text: 'This review covers the **third quarter**. Throughput rose while costs held steady, and the new intake process cut the median response time by a third. Figures follow the *house conventions* for charts and tables @[tufte2001].',
        },
        { type: 'h2', text: 'Key figures' },
        {
          type: 'table',
          caption: 'Operations by region, Q3',
          headerRows: 1,
          columns: [{ width: '2fr' }, { align: 'right' }, { align: 'right' }, { align: 'right' }],
          rows: [
            ['Region', 'Orders', 'Revenue (k€)', 'Change'],
            ['North', 1240, '318.4', '+6.1 %'],
            ['South', 980, '251.0', '+2.4 %'],
            ['East', 1512, '402.7', '+9.8 %'],
            ['West', 1105, '287.9', '−1.2 %'],
          ],
        },
        { type: 'h2', text: 'Highlights' },
        {
          type: 'list',
          items: ['Intake automated for all standard requests', { text: 'Two new distribution partners', items: ['Nordlog (from July)', 'Ostfracht (from September)'] }, 'Customer satisfaction at 4.6 of 5'],
        },
        { type: 'quote', text: 'The fastest quarter we have had, without a single missed delivery window.', attribution: 'Head of Logistics' },
        { type: 'h3', text: 'Next steps' },
        { type: 'list', ordered: true, items: ['Extend the intake process to custom orders', 'Review warehouse capacity for the holiday peak', 'Report progress in the January review'] },
        { type: 'text', text: 'Questions about this review go to the operations office; the detailed tables are in the appendix.' },
      ],
    },
  ],
  citations: [
    { id: 'tufte2001', type: 'book', title: 'The Visual Display of Quantitative Information', author: [{ family: 'Tufte', given: 'Edward R.' }], issued: { 'date-parts': [[2001]] }, publisher: 'Graphics Press' },
  ],
};

interface Server {
  baseUrl: string;
  stop(): Promise<void>;
}

async function startServer(key: string, dataDir: string): Promise<Server> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', HOST: '127.0.0.1', QUIRE_DATA_DIR: dataDir, QUIRE_BOOTSTRAP_API_KEY: key, QUIRE_RATE_LIMIT_PER_MINUTE: '0' };
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist/server/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stderr!.on('data', (d) => (out += d));
  const exited = once(proc, 'exit');
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 30 s:\n${out}`)), 30_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /"port":(\d+)[^\n]*Quire listening/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.on('exit', (code) => reject(new Error(`the server exited with ${code}:\n${out}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

async function call(server: Server, key: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: any; bytes: Buffer }> {
  const res = await fetch(url.startsWith('http') ? url : server.baseUrl + url, {
    method,
    headers: { 'X-API-Key': key, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(bytes.toString('utf8')) : null;
  return { status: res.status, json, bytes };
}

async function renderPdf(server: Server, key: string, defaults: unknown): Promise<Buffer> {
  const created = await call(server, key, 'POST', `${API}/render`, { config: { ...SAMPLE_DOCUMENT, defaults } });
  if (created.status !== 202) throw new Error(`POST /render answered ${created.status}: ${created.bytes.toString()}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = (await call(server, key, 'GET', `${API}/render/${created.json.jobId}`)).json;
    if (job.status === 'FAILED') throw new Error(`the render failed: ${job.error}`);
    if (job.status === 'COMPLETED') {
      if (job.warnings?.length) console.warn(`  warnings: ${JSON.stringify(job.warnings)}`);
      return (await call(server, key, 'GET', `${API}/render/${job.jobId}/download`)).bytes;
    }
    if (Date.now() > deadline) throw new Error('the render did not finish in 60 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const key = `ak_${randomBytes(32).toString('hex')}`;
  const work = mkdtempSync(path.join(tmpdir(), 'quire-style-previews-'));
  const server = await startServer(key, path.join(work, 'data'));
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    const list = await call(server, key, 'GET', `${API}/styles?source=system`);
    if (list.status !== 200) throw new Error(`GET /styles answered ${list.status}: ${list.bytes.toString()}`);
    for (const preset of list.json.items as Array<{ id: string; definition: unknown }>) {
      const slug = preset.id.replace(/^system:/, '');
      const pdfPath = path.join(work, `${slug}.pdf`);
      writeFileSync(pdfPath, await renderPdf(server, key, preset.definition));
      execFileSync('pdftoppm', ['-r', '50', '-png', '-f', '1', '-l', '1', '-singlefile', pdfPath, path.join(OUT_DIR, slug)]);
      console.log(`${preset.id} → docs/images/styles/${slug}.png`);
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
