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

/** One line of the synthetic A4 page; every line reads the same but for its number. */
const a4Line = (k: number) => `Line ${k + 1}: the harbour office received 12 crates of apples on 23/09/2017 for EUR 1,234.50 in total.`;

/** The A4 page in the bundled Noto Sans (the canvas has no other font here: `sans-serif` drew every letter as a box). */
function a4Page(): GreyImage {
  registerFonts();
  const canvas = createCanvas(2480, 3508);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, 2480, 3508);
  ctx.translate(1240, 1754);
  ctx.rotate((1 * Math.PI) / 180);
  ctx.translate(-1240, -1754);
  ctx.fillStyle = 'black';
  ctx.font = '42px "Noto Sans"';
  for (let k = 0; k < 45; k++) ctx.fillText(a4Line(k), 250, 300 + k * 68);
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
  // An A4 page at 300 dpi, 45 lines of 10-point text, 1° askew: the issue's "OCR of an A4 scan ≤ 3 s on one core".
  const a4 = a4Page();
  const rows: string[][] = [];
  for (const engine of ENGINES) {
    const ocr = new PageOcr(engine, 1);
    try {
      await ocr.recognise(a4);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const page = await ocr.recognise(a4);
      const used = process.cpuUsage(cpu);
      // Word recall: the page's words found among the words read (each read word counts once).
      const read = new Map<string, number>();
      for (const w of page.words) read.set(w.text, (read.get(w.text) ?? 0) + 1);
      const expected = Array.from({ length: 45 }, (_, k) => a4Line(k).split(' ')).flat();
      const found = expected.filter((w) => {
        const left = read.get(w) ?? 0;
        if (left) read.set(w, left - 1);
        return left > 0;
      }).length;
      rows.push([engine, fmt(performance.now() - started, 0), fmt((used.user + used.system) / 1000, 0), String(page.words.length), `${fmt((100 * found) / expected.length, 0)}%`]);
    } finally {
      await ocr.close();
    }
  }
  console.log(`\nA4 page, 300 dpi (2480 × 3508), 45 lines of text, 1° askew\n`);
  console.log(table(['engine', 'wall ms', 'CPU ms', 'words', 'word recall'], rows));
  console.log(`\nRSS after the run: ${fmt(process.memoryUsage().rss / 1e6, 0)} MB`);
}

await main();
