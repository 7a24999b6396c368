// The SROIE receipt development set (../shared/data/sroie-dev, or LENS_SROIE_DIR) scored by its README's rules:
// each scan as a one-page PDF through POST /tools/lens/extract (company, date, total, iban; the default OCR engine),
// beside a plain regex over Tesseract's text (POST /tools/lens/ocr, `md`, ocrEngine tesseract): the first line with letters, the first
// d/m/y date read day first, the amount on the last line that says "total".
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiClient } from '../test/helpers/api-client.js';
import { lensJob, scannedPdf } from '../test/helpers/lens-fixtures.js';

type Json = any;

export const SROIE_FIELDS = {
  company: { type: 'string', description: 'name of the shop or company that issued the receipt' },
  date: { type: 'date', description: 'receipt date' },
  total: { type: 'number', description: 'total amount paid' },
  iban: { type: 'string', description: 'bank account IBAN' },
};

export interface SroieScores {
  n: number;
  quire: Record<'company' | 'date' | 'total' | 'iban', number>;
  baseline: Record<'company' | 'date' | 'total', number>;
  msPerPage: number[];
}

const folded = (s: unknown) => String(s ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');

/** The key's date read day first, as ISO. */
export function keyDate(s: string): string | null {
  const iso = /(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})/.exec(s);
  if (iso) return `${iso[1]}-${iso[2]!.padStart(2, '0')}-${iso[3]!.padStart(2, '0')}`;
  const m = /(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})/.exec(s);
  if (!m) return null;
  const y = m[3]!.length === 2 ? `20${m[3]}` : m[3]!;
  return `${y}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
}

const keyTotal = (s: string) => Number(s.replace(/[^\d.]/g, ''));

/** The plain-regex baseline over OCR text. */
export function baseline(md: string): { company: string | null; date: string | null; total: number | null } {
  const lines = md.replace(/\\(.)/g, '$1').split('\n').map((l) => l.replace(/^#+\s*|\|/g, ' ').trim()).filter(Boolean);
  const company = lines.find((l) => /[A-Za-z]{3}/.test(l)) ?? null;
  const dm = /(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})/.exec(md);
  const date = dm ? keyDate(dm[0]) : null;
  const totals = lines.filter((l) => /total/i.test(l) && /\d+\.\d{2}/.test(l));
  const last = totals[totals.length - 1];
  const amounts = last?.match(/\d[\d,]*\.\d{2}/g);
  return { company, date, total: amounts ? Number(amounts[amounts.length - 1]!.replace(/,/g, '')) : null };
}

export function sroieDir(): string | null {
  const dir = process.env.LENS_SROIE_DIR ?? path.resolve(process.cwd(), '../shared/data/sroie-dev');
  return existsSync(path.join(dir, 'key')) ? dir : null;
}

export async function scoreSroie(api: ApiClient, dir: string, debug: (...xs: unknown[]) => void): Promise<SroieScores> {
  const quire = { company: 0, date: 0, total: 0, iban: 0 };
  const base = { company: 0, date: 0, total: 0 };
  const msPerPage: number[] = [];
  const names = readdirSync(path.join(dir, 'key')).filter((f) => f.endsWith('.json')).sort();
  for (const f of names) {
    const key = JSON.parse(readFileSync(path.join(dir, 'key', f), 'utf8'));
    const jpg = readFileSync(path.join(dir, 'img', f.replace(/\.json$/, '.jpg')));
    const id = await api.uploadId(await scannedPdf([jpg]), f.replace(/\.json$/, '.pdf'));
    const job = await lensJob(api, 'extract', { fileId: id, fields: SROIE_FIELDS });
    msPerPage.push(Date.parse(job.completedAt) - Date.parse(job.startedAt));
    const data: Json = job.result?.data ?? {};
    const ok = {
      company: folded(data.company) === folded(key.company),
      date: data.date === keyDate(key.date),
      total: typeof data.total === 'number' && Math.abs(data.total - keyTotal(key.total)) < 0.005,
      iban: data.iban === null && (job.result?.fieldsMissing ?? []).includes('iban'),
    };
    for (const k of Object.keys(ok) as Array<keyof typeof ok>) if (ok[k]) quire[k]++;
    else debug(`  sroie ${f}.${k}: got ${JSON.stringify(data[k])}, want ${JSON.stringify(key[k] ?? null)}`);
    const ocr = await lensJob(api, 'ocr', { fileId: id, outputFormat: 'md', ocrEngine: 'tesseract' });
    const b = baseline(ocr.result?.content ?? '');
    if (folded(b.company) === folded(key.company)) base.company++;
    if (b.date === keyDate(key.date)) base.date++;
    if (b.total !== null && Math.abs(b.total - keyTotal(key.total)) < 0.005) base.total++;
  }
  const n = names.length;
  const per = <K extends string>(o: Record<K, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, (v as number) / n])) as Record<K, number>;
  return { n, quire: per(quire), baseline: per(base), msPerPage };
}
