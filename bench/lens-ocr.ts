// Compares Lens's OCR engines on the SROIE development receipts (../shared/data/sroie-dev, or LENS_OCR_SET):
// word-level recall of the key values in each engine's text (company words, the date and total strings),
// a plain regex's field scores over that text (the baseline of issue 25), and time per page on one core.
// Engines run in this process on the decoded scan, deskewed as Lens does; one page at a time, one thread.
// LENS_OCR_LIMIT=n reads only the first n receipts; LENS_OCR_ENGINES=tesseract,paddle picks engines.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadImage, createCanvas } from '@napi-rs/canvas';
import { buildLines, readingOrder } from '../plugins/lens/layout.js';
import { ocrRuns } from '../plugins/lens/pdf-text.js';
import { OCR_ENGINES, PageOcr, type OcrEngine } from '../plugins/lens/ocr.js';
import type { GreyImage } from '../plugins/lens/grey-image.js';
import { fmt, percentile, table } from './stats.js';
import { greyLevels } from '../engines/image/grey-levels.js';
import { registerFonts } from '../engines/office/pictures.js';

const SET = process.env.LENS_OCR_SET ?? path.resolve('..', 'shared', 'data', 'sroie-dev');
const LIMIT = Number(process.env.LENS_OCR_LIMIT ?? Infinity);
const ENGINES = (process.env.LENS_OCR_ENGINES?.split(',') ?? ['tesseract', 'paddle']).filter((e): e is OcrEngine => (OCR_ENGINES as readonly string[]).includes(e));
const DEBUG = !!process.env.LENS_BENCH_DEBUG;
/** The scans are treated as 300 dpi (the SROIE receipts are about that). */
const DPI = 300;

interface Key {
  company: string;
  date: string;
  total: string;
}

async function greyOf(file: string): Promise<GreyImage> {
  const img = await loadImage(readFileSync(file));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  return greyLevels(canvas);
}

/** Lower case, letters and digits only (the scoring rule of the set's README). */
const alnum = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const squeeze = (s: string) => s.toLowerCase().replace(/\s+/g, '');

/** A plain regex over OCR text, as a new user would write it: the baseline the layout-aware extraction must beat. */
function regexFields(lines: string[]): { company: string | null; date: string | null; total: number | null } {
  const text = lines.join('\n');
  const company = lines.find((l) => /\b(SDN\.?\s*BHD|BHD|ENTERPRISE|TRADING|LTD|PLT)\b/i.test(l)) ?? lines.find((l) => /[A-Za-z]{3}/.test(l)) ?? null;
  const d = /\b(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})\b/.exec(text);
  const date = d ? `${d[3]!.length === 2 ? `20${d[3]}` : d[3]}-${d[2]!.padStart(2, '0')}-${d[1]!.padStart(2, '0')}` : null;
  const totals = [...text.matchAll(/total[^\n\d]*?(\d{1,3}(?:,\d{3})*\.\d{2})/gi)].map((m) => Number(m[1]!.replace(/,/g, '')));
  return { company: company?.trim() ?? null, date, total: totals.length ? totals[totals.length - 1]! : null };
}

/** The key's date read day-first as ISO. */
function isoDayFirst(s: string): string | null {
  const m = /(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})/.exec(s);
  if (!m) return null;
  return `${m[3]!.length === 2 ? `20${m[3]}` : m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
}

interface Score {
  companyWords: [number, number];
  date: number;
  total: number;
  regexCompany: number;
  regexDate: number;
  regexTotal: number;
  wallMs: number[];
  cpuMs: number[];
}

/** One line of the dense A4 page; every line reads the same but for its number. */
const a4Line = (k: number) => `Line ${k + 1}: the harbour office received 12 crates of apples on 23/09/2017 for EUR 1,234.50 in total.`;

/** A line drawn on a synthetic A4 page: its text, its font size in pixels at 300 dpi, and its top-left corner. */
interface PageLine {
  text: string;
  size: number;
  x: number;
  y: number;
}

/** The dense page: 45 lines of 10-point text across the page. */
const densePage: PageLine[] = Array.from({ length: 45 }, (_, k) => ({ text: a4Line(k), size: 42, x: 250, y: 300 + k * 68 }));

/** A one-page invoice: letterhead, addresses, a 14-item table, totals, terms and a footer in 8- to 16-point text. */
const invoicePage: PageLine[] = (() => {
  const lines: PageLine[] = [];
  const at = (text: string, size: number, x: number, y: number) => lines.push({ text, size, x, y });
  at('Harbour Hardware Supplies Ltd', 67, 250, 300);
  at('12 Quay Street, Portsmouth PO1 3AH', 42, 250, 400);
  at('VAT No. GB 123 4567 89', 42, 250, 460);
  at('INVOICE 2017-0923', 58, 1500, 300);
  at('Date: 23/09/2017', 42, 1500, 400);
  at('Due: 23/10/2017', 42, 1500, 460);
  at('Bill to: Northern Marine Services', 42, 250, 640);
  at('4 Dock Road, Southampton SO14 2AQ', 42, 250, 700);
  at('Item', 42, 250, 880);
  at('Qty', 42, 1350, 880);
  at('Price', 42, 1650, 880);
  at('Amount', 42, 1950, 880);
  const items = ['Brass hinges', 'Copper wire 2 mm', 'Stainless screws', 'Marine varnish', 'Rope 12 mm', 'Shackles', 'Deck cleats', 'Bilge pump', 'Fuel filter', 'Navigation light', 'Fender', 'Anchor chain', 'Cable ties', 'Sealant'];
  let subtotal = 0;
  items.forEach((name, k) => {
    const y = 960 + k * 66;
    const qty = (k % 5) + 1;
    const price = 4.5 + k * 3.25;
    subtotal += qty * price;
    at(name, 42, 250, y);
    at(String(qty), 42, 1350, y);
    at(price.toFixed(2), 42, 1650, y);
    at((qty * price).toFixed(2), 42, 1950, y);
  });
  const money = (v: number) => v.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  at(`Subtotal: ${money(subtotal)}`, 42, 1500, 1980);
  at(`VAT 20%: ${money(subtotal * 0.2)}`, 42, 1500, 2046);
  at(`Total due: GBP ${money(subtotal * 1.2)}`, 50, 1500, 2120);
  const terms = [
    'Payment by bank transfer to account 12345678, sort code 20-00-00, within 30 days of the invoice date.',
    'Please quote the invoice number with your payment. Goods remain our property until paid in full.',
    'Claims for damaged or missing goods must reach us within 7 days of delivery, with the delivery note.',
    'Late payments carry interest at 8% above the base rate under the Late Payment of Commercial Debts Act.',
    'Returns are accepted within 14 days in the original packaging; special orders cannot be returned.',
  ];
  terms.forEach((text, k) => at(text, 38, 250, 2320 + k * 60));
  at('Thank you for your business.', 42, 250, 2700);
  at('Harbour Hardware Supplies Ltd, registered in England and Wales No. 01234567.', 33, 250, 3250);
  at('Registered office: 12 Quay Street, Portsmouth PO1 3AH. accounts@harbour-hardware.example', 33, 250, 3300);
  return lines;
})();

/** A synthetic A4 page at 300 dpi, 1° askew, in the bundled Noto Sans (the canvas has no other font here). */
function a4Page(lines: PageLine[]): GreyImage {
  registerFonts();
  const canvas = createCanvas(2480, 3508);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, 2480, 3508);
  ctx.translate(1240, 1754);
  ctx.rotate((1 * Math.PI) / 180);
  ctx.translate(-1240, -1754);
  ctx.fillStyle = 'black';
  for (const line of lines) {
    ctx.font = `${line.size}px "Noto Sans"`;
    ctx.fillText(line.text, line.x, line.y);
  }
  const rgba = ctx.getImageData(0, 0, 2480, 3508).data;
  const data = new Uint8Array(2480 * 3508);
  for (let i = 0, j = 0; j < data.length; i += 4, j++) data[j] = rgba[i]!;
  return { width: 2480, height: 3508, data };
}

async function main(): Promise<void> {
  if (!existsSync(path.join(SET, 'img'))) {
    console.log(`lens-ocr: no receipts at ${SET} (set LENS_OCR_SET); skipped.`);
    return;
  }
  const names = readdirSync(path.join(SET, 'img')).filter((f) => f.endsWith('.jpg')).sort().slice(0, LIMIT);
  const scores = new Map<OcrEngine, Score>();
  for (const engine of ENGINES) {
    const s: Score = { companyWords: [0, 0], date: 0, total: 0, regexCompany: 0, regexDate: 0, regexTotal: 0, wallMs: [], cpuMs: [] };
    scores.set(engine, s);
    // One Tesseract thread: time per page on one core. A warm-up page first, so model loading is not timed.
    const ocr = new PageOcr(engine, 1);
    try {
      await ocr.recognise(await greyOf(path.join(SET, 'img', names[0]!)));
      for (const name of names) {
        const key = JSON.parse(readFileSync(path.join(SET, 'key', name.replace(/\.jpg$/, '.json')), 'utf8')) as Key;
        const grey = await greyOf(path.join(SET, 'img', name));
        const started = performance.now();
        const cpu = process.cpuUsage();
        const page = await ocr.recognise(grey);
        const used = process.cpuUsage(cpu);
        s.wallMs.push(performance.now() - started);
        s.cpuMs.push((used.user + used.system) / 1000);
        const [w, h] = [(grey.width * 72) / DPI, (grey.height * 72) / DPI];
        const lines = readingOrder(buildLines(ocrRuns(page, DPI, w, h)), w).map((l) => l.text);
        const text = lines.join('\n');
        const tokens = new Set(text.split(/\s+/).map(alnum).filter(Boolean));
        const words = key.company.split(/\s+/).map(alnum).filter(Boolean);
        const hit = words.filter((x) => tokens.has(x)).length;
        s.companyWords[0] += hit;
        s.companyWords[1] += words.length;
        const dateHit = squeeze(text).includes(squeeze(key.date));
        const totalHit = squeeze(text).includes(squeeze(key.total));
        s.date += dateHit ? 1 : 0;
        s.total += totalHit ? 1 : 0;
        const r = regexFields(lines);
        s.regexCompany += r.company && alnum(r.company) === alnum(key.company) ? 1 : 0;
        s.regexDate += r.date === isoDayFirst(key.date) ? 1 : 0;
        s.regexTotal += r.total !== null && Math.abs(r.total - Number(key.total.replace(/,/g, ''))) < 0.005 ? 1 : 0;
        if (DEBUG && (hit < words.length || !dateHit || !totalHit)) console.log(`${engine} ${name}: company ${hit}/${words.length} date ${dateHit} total ${totalHit}\n  key ${JSON.stringify(key)}\n  ${lines.join('\n  ')}`);
      }
    } finally {
      await ocr.close();
    }
  }
  const n = names.length;
  const pct = (x: number) => `${fmt((100 * x) / n, 0)}%`;
  console.log(`\nLens OCR engines on ${n} SROIE dev receipts (${SET}); one page at a time, one thread\n`);
  console.log(
    table(
      ['engine', 'company words', 'date string', 'total string', 'regex company', 'regex date', 'regex total', 'wall ms/page p50', 'p95', 'CPU ms/page mean'],
      [...scores].map(([engine, s]) => [
        engine,
        `${fmt((100 * s.companyWords[0]) / Math.max(1, s.companyWords[1]), 0)}%`,
        pct(s.date),
        pct(s.total),
        pct(s.regexCompany),
        pct(s.regexDate),
        pct(s.regexTotal),
        fmt(percentile(s.wallMs, 50), 0),
        fmt(percentile(s.wallMs, 95), 0),
        fmt(s.cpuMs.reduce((a, b) => a + b, 0) / Math.max(1, s.cpuMs.length), 0),
      ]),
    ),
  );
  // Two A4 pages at 300 dpi, 1° askew: the dense page (the issue's "OCR of an A4 scan ≤ 3 s on one core" at its
  // hardest) and a one-page invoice.
  const pages: Array<[string, PageLine[]]> = [
    ['dense text', densePage],
    ['invoice', invoicePage],
  ];
  const rows: string[][] = [];
  for (const engine of ENGINES) {
    const ocr = new PageOcr(engine, 1);
    try {
      for (const [name, lines] of pages) {
        const image = a4Page(lines);
        await ocr.recognise(image);
        const cpu = process.cpuUsage();
        const started = performance.now();
        const page = await ocr.recognise(image);
        const used = process.cpuUsage(cpu);
        // Word recall: the page's words found among the words read (each read word counts once).
        const read = new Map<string, number>();
        for (const w of page.words) read.set(w.text, (read.get(w.text) ?? 0) + 1);
        const expected = lines.flatMap((l) => l.text.split(' '));
        const found = expected.filter((w) => {
          const left = read.get(w) ?? 0;
          if (left) read.set(w, left - 1);
          return left > 0;
        }).length;
        rows.push([engine, `${name}, ${lines.reduce((n, l) => n + l.text.length, 0)} characters`, fmt(performance.now() - started, 0), fmt((used.user + used.system) / 1000, 0), String(page.words.length), `${fmt((100 * found) / expected.length, 0)}%`]);
      }
    } finally {
      await ocr.close();
    }
  }
  console.log(`\nA4 pages, 300 dpi (2480 × 3508), 1° askew\n`);
  console.log(table(['engine', 'page', 'wall ms', 'CPU ms', 'words', 'word recall'], rows));
  console.log(`\nRSS after the run: ${fmt(process.memoryUsage().rss / 1e6, 0)} MB`);
}

await main();
