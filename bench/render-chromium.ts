// The render benchmark's peer: the fixture invoice as an HTML template, printed to PDF by headless Chromium (puppeteer-core).
import { existsSync } from 'node:fs';
import { invoiceDocument } from '../test/fixtures/documents.js';

export const CHROMIUM = process.env.QUIRE_BENCH_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

type Json = Record<string, any>;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The subset of inline markup the invoice uses: variables, **bold**, line breaks. */
function inline(text: string, vars: Record<string, string>): string {
  const filled = text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => vars[name] ?? '');
  return escapeHtml(filled).replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>').replace(/\n/g, '<br>');
}

function tableHtml(el: Json, vars: Record<string, string>): string {
  const cols = el.columns as Array<{ width: string | number; align?: string }>;
  const numeric = cols.map((c) => (typeof c.width === 'number' ? c.width : Number.parseFloat(c.width)));
  const total = numeric.reduce((a, b) => a + b, 0);
  const colgroup = `<colgroup>${numeric.map((w) => `<col style="width:${((w / total) * 100).toFixed(1)}%">`).join('')}</colgroup>`;
  const rows = (el.rows as unknown[][]).map((row, r) => {
    const tag = r < (el.headerRows ?? 0) ? 'th' : 'td';
    return `<tr>${row.map((cell, i) => `<${tag} style="text-align:${cols[i]?.align ?? 'left'}">${inline(String(cell), vars)}</${tag}>`).join('')}</tr>`;
  });
  const head = el.headerRows ? `<thead>${rows.slice(0, el.headerRows).join('')}</thead>` : '';
  return `<table class="${el.align === 'right' ? 'totals' : 'items'}">${colgroup}${head}<tbody>${rows.slice(el.headerRows ?? 0).join('')}</tbody></table>`;
}

/** The same invoice as `invoiceDocument(n)`, written the way an HTML-template service would hold it. */
export function invoiceHtml(n: number): string {
  const doc = invoiceDocument(n) as Json;
  const vars = doc.variables as Record<string, string>;
  const body = (doc.sections[0].content as Json[])
    .map((el) => {
      if (el.type === 'h1') return `<h1>${inline(el.text, vars)}</h1>`;
      if (el.type === 'text') return `<p style="text-align:${el.align ?? 'left'}">${inline(el.text, vars)}</p>`;
      if (el.type === 'table') return tableHtml(el, vars);
      return '';
    })
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.document.title)}</title><style>
body { font-family: 'Noto Sans', 'DejaVu Sans', sans-serif; font-size: 10.5pt; color: #000; }
h1 { font-size: 16pt; margin: 0 0 10pt; }
table { border-collapse: collapse; margin: 8pt 0; }
table.items { width: 100%; }
table.totals { margin-left: auto; width: 45%; }
th, td { padding: 3pt 5pt; border-bottom: 0.5pt solid #999; }
table.items tbody tr:nth-child(odd) { background: #eee; }
</style></head><body>
${body}
</body></html>`;
}

export const HEADER = '<div style="font-size:8pt;width:100%;text-align:right;margin-right:2cm">Quire Test Ltd</div>';
export const FOOTER = '<div style="font-size:8pt;width:100%;text-align:center">Quire Test Ltd · Registered in Ireland · Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';

export interface PeerResult {
  version: string;
  times: number[];
  bytes: number;
}

/** The A4 print every peer run makes: 2 cm margins, backgrounds, and the invoice's header and footer. */
export function printA4(page: import('puppeteer-core').Page, html: string): Promise<Uint8Array> {
  return page.setContent(html).then(() => page.pdf({ format: 'A4', printBackground: true, margin: { top: '2cm', bottom: '2cm', left: '2cm', right: '2cm' }, displayHeaderFooter: true, headerTemplate: HEADER, footerTemplate: FOOTER }));
}

/** `fn` with one browser and one page kept open, and the browser's version; null when Chromium is not installed. */
export async function withChromiumPage<T>(fn: (page: import('puppeteer-core').Page, version: string) => Promise<T>): Promise<T | null> {
  if (!existsSync(CHROMIUM)) return null;
  const { default: puppeteer } = await import('puppeteer-core');
  // render-pdf's FONTCONFIG_FILE (set in this process once the manifest loads) lists no system fonts;
  // Chromium would inherit it and print the text with no font at all.
  const { FONTCONFIG_FILE: _renderPdfFonts, ...env } = process.env;
  // pipe: the DevTools protocol over the child's file descriptors, so no port is opened at all.
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, pipe: true, args: ARGS, env });
  try {
    return await fn(await browser.newPage(), await browser.version());
  } finally {
    await browser.close();
  }
}

/** Each run is `page.setContent(html)` + `page.pdf()` on the one page. Null when Chromium is not installed. */
export function chromiumPeer(runs: number, warmup: number): Promise<PeerResult | null> {
  return withChromiumPage(async (page, version) => {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < warmup + runs; i++) {
      const started = performance.now();
      const pdf = await printA4(page, invoiceHtml(1_000_000 + i));
      if (i >= warmup) times.push(performance.now() - started);
      bytes = pdf.byteLength;
      if (i === 0 && !/FontFile2|FontFile3/.test(Buffer.from(pdf).toString('latin1'))) throw new Error('Chromium printed the invoice without embedding a font (is fontconfig finding any?)');
    }
    return { version, times, bytes };
  });
}
