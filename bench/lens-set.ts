// The labelled evaluation set of bench/lens.ts, generated from a seed: invoices in three layouts, receipts in
// two, letters, contracts, forms, reports and a three-column newsletter, with varied vendors, numbering
// schemes, date formats and currency styles. Each document comes as document JSON (rendered by Quire to
// PDF, DOCX or ODT, or to a page image for a scan) with its truth: the fields it holds, its category and the
// text it was made from (the OCR reference, in reading order).

import { createCanvas, loadImage } from '@napi-rs/canvas';
import { encodeCanvas } from '../engines/image/encode-canvas.js';

type Json = any;

/** mulberry32: a small, well-known seeded generator, so the set is the same on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
function shuffle<T>(r: Rand, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Text for Quire's inline markup: characters that open markup are escaped, so the page shows `s` as written. */
export function mk(s: string): string {
  return s.replace(/[\\*_`[\]$~^@{}]/g, (c) => `\\${c}`);
}

const VENDORS = ['Northwind Traders', 'Blue Harbour GmbH', 'Kestrel Print Co', 'Lumen Studio', 'Oakridge Supplies Ltd', 'Maison Verte SARL', 'Pixel & Pine LLC', 'Fjord Logistics AS', 'Copperleaf Consulting', 'Sunrise Bakery Wholesale', 'Atlas Office Furniture', 'Redwood Analytics Inc'];
const CUSTOMERS = ['Contoso Ltd', 'Alpine Sports AG', 'Fabrikam Inc', 'Tailspin Toys', 'Wingtip Partners', 'Litware Labs', 'Adventure Works', 'Proseware Ltd', 'Margie Travel', 'Trey Research'];
const STREETS = ['12 Harbour Road, Bristol', 'Hafenstrasse 8, 20457 Hamburg', '400 Main Street, Springfield', '7 Rue des Lilas, 69003 Lyon', 'Storgata 21, 0184 Oslo', 'Unit 4, Mill Lane, Leeds'];
const ITEMS = ['Consulting services', 'Travel expenses', 'Annual licence', 'Printing of brochures', 'Office chairs', 'Data analysis', 'Delivery and freight', 'Design workshop', 'Server hosting', 'Catering for event', 'Translation services', 'Maintenance visit'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A date in one of several written forms (all unambiguous to a reader: dotted dates are day first). */
function dateText(r: Rand, iso: string, style = int(r, 0, 5)): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const mon = MONTHS[m - 1]!;
  switch (style) {
    case 0:
      return `${mon} ${d}, ${y}`;
    case 1:
      return `${d} ${mon} ${y}`;
    case 2:
      return iso;
    case 3:
      return `${String(d).padStart(2, '0')}.${String(m).padStart(2, '0')}.${y}`;
    case 4:
      return `${d} ${mon.slice(0, 3)} ${y}`;
    default:
      return `${mon.slice(0, 3)}. ${d}, ${y}`;
  }
}

function isoDate(r: Rand): string {
  return `${int(r, 2022, 2025)}-${String(int(r, 1, 12)).padStart(2, '0')}-${String(int(r, 1, 28)).padStart(2, '0')}`;
}

function addDays(iso: string, days: number): string {
  const t = new Date(`${iso}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + days);
  return t.toISOString().slice(0, 10);
}

/** An amount in one of several currency styles: "EUR 1,234.50", "1.234,50 €", "$1,234.50", "£560.75", "CHF 1'234.50", "1 234,50 SEK". */
function money(amount: number, style: number): string {
  const [int_, dec] = amount.toFixed(2).split('.') as [string, string];
  const group = (sep: string) => int_.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  switch (style) {
    case 0:
      return `EUR ${group(',')}.${dec}`;
    case 1:
      return `${group('.')},${dec} €`;
    case 2:
      return `$${group(',')}.${dec}`;
    case 3:
      return `£${group(',')}.${dec}`;
    case 4:
      return `CHF ${group("'")}.${dec}`;
    default:
      return `${group(' ')},${dec} SEK`;
  }
}

function invoiceNumber(r: Rand, year: string): string {
  return pick(r, [`INV-${year}-${String(int(r, 1, 9999)).padStart(4, '0')}`, `RE-${int(r, 10000, 99999)}`, `A-${String(int(r, 1, 999)).padStart(5, '0')}`, `${year}/${int(r, 100, 999)}`, `F${year}-${String(int(r, 1, 300)).padStart(4, '0')}`, `${int(r, 100000, 999999)}`]);
}

export interface Labelled {
  name: string;
  category: string;
  doc: Json;
  /** The text the page shows, in reading order (the OCR reference). */
  reference: string;
  /** Field values as the engine should report them; null: the field is not in the document. */
  fields: Record<string, string | number | null>;
}

export const INVOICE_FIELDS = {
  invoice_number: { type: 'string' },
  invoice_date: { type: 'date', description: 'date the invoice was issued' },
  due_date: { type: 'date', description: 'payment due date' },
  total: { type: 'number', description: 'total amount due' },
  customer: { type: 'string', description: 'bill to, the customer billed' },
  vendor: { type: 'string', description: 'the company issuing the invoice' },
  purchase_order: { type: 'string', description: 'PO number' },
} as const;

export const RECEIPT_FIELDS = {
  vendor: { type: 'string', description: 'store or merchant name' },
  date: { type: 'date', description: 'date of purchase' },
  total: { type: 'number', description: 'total paid' },
} as const;

/** Reference text of a document: its strings in document order, tables row by row. */
function referenceOf(doc: Json): string {
  const parts: string[] = [];
  for (const section of doc.sections) {
    for (const el of section.content) {
      if (el.type === 'table') for (const row of el.rows) parts.push(row.map(unmk).join(' '));
      else if (el.type === 'list') parts.push(...el.items.map(unmk));
      else parts.push(unmk(el.text));
    }
  }
  return parts.join('\n');
}

function unmk(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

/** An invoice in layout 0 (label lines), 1 (letterhead and key–value table) or 2 (column-header table). */
export function invoice(seed: number, layout: number, type = 'pdf'): Labelled {
  const r = random(seed);
  const vendor = pick(r, VENDORS);
  const customer = pick(r, CUSTOMERS);
  const date = isoDate(r);
  const due = addDays(date, pick(r, [14, 30, 45]));
  const style = int(r, 0, 5);
  const number = invoiceNumber(r, date.slice(0, 4));
  const cur = int(r, 0, 5);
  const lines = shuffle(r, ITEMS).slice(0, int(r, 2, 4)).map((d) => ({ d, q: int(r, 1, 12), p: int(r, 1500, 90000) / 100 }));
  const net = lines.reduce((s, l) => s + Math.round(l.q * l.p * 100), 0) / 100;
  const taxRate = pick(r, [0, 7, 19, 20]);
  const tax = Math.round(net * taxRate) / 100;
  const total = Math.round((net + tax) * 100) / 100;
  const po = r() < 0.5 ? `PO-${int(r, 1000, 9999)}` : null;
  const address = pick(r, STREETS);
  const items = [['Description', 'Qty', 'Amount'], ...lines.map((l) => [l.d, String(l.q), money(l.q * l.p, cur)])];
  const sums: string[][] = [['Subtotal', money(net, cur)], ...(taxRate ? [[`VAT ${taxRate}%`, money(tax, cur)]] : [])];
  const d1 = dateText(r, date, style);
  const d2 = dateText(r, due, style);
  let content: Json[];
  if (layout === 0) {
    content = [
      { type: 'h1', text: 'Invoice' },
      { type: 'text', text: mk(`From: ${vendor}, ${address}`) },
      { type: 'text', text: mk(`Bill to: ${customer}`) },
      { type: 'text', text: mk(`Invoice number: ${number}`) },
      { type: 'text', text: mk(`Invoice date: ${d1}`) },
      { type: 'text', text: mk(`Due date: ${d2}`) },
      ...(po ? [{ type: 'text', text: mk(`Purchase order: ${po}`) }] : []),
      { type: 'h2', text: 'Items' },
      { type: 'table', headerRows: 1, rows: items.map((row) => row.map(mk)) },
      { type: 'text', text: mk(`Total amount due: ${money(total, cur)}`) },
      { type: 'text', text: 'Please pay by bank transfer within the terms stated. Thank you for your business.' },
    ];
  } else if (layout === 1) {
    const meta = shuffle(r, [['Invoice No.', number], ['Date', d1], ['Payment due', d2], ['Customer', customer], ...(po ? [['Your PO', po]] : [])]);
    content = [
      { type: 'h1', text: mk(vendor) },
      { type: 'text', text: mk(address) },
      { type: 'h2', text: 'INVOICE' },
      { type: 'table', headerRows: 0, rows: meta.map((row) => row.map(mk)) },
      { type: 'table', headerRows: 1, rows: items.map((row) => row.map(mk)) },
      { type: 'table', headerRows: 0, rows: [...sums, ['Total due', money(total, cur)]].map((row) => row.map(mk)) },
      { type: 'text', text: mk(`Payment terms: ${pick(r, ['net 14', 'net 30', 'due on receipt'])}. Questions about this invoice: accounts@${vendor.split(' ')[0]!.toLowerCase()}.example`) },
    ];
  } else {
    content = [
      { type: 'h1', text: 'Tax Invoice' },
      { type: 'text', text: mk(`Supplier: ${vendor}, ${address}`) },
      { type: 'text', text: mk(`Billed to: ${customer}`) },
      { type: 'table', headerRows: 1, rows: [['Invoice #', 'Issue date', 'Due date', ...(po ? ['PO number'] : [])], [number, d1, d2, ...(po ? [po] : [])]].map((row) => row.map(mk)) },
      { type: 'table', headerRows: 1, rows: items.map((row) => row.map(mk)) },
      { type: 'table', headerRows: 0, rows: [...sums, ['Balance due', money(total, cur)]].map((row) => row.map(mk)) },
      { type: 'text', text: 'Thank you. Late payments may incur interest as permitted by law.' },
    ];
  }
  const doc = { document: { type, title: `Invoice ${number}`, size: pick(r, ['A4', 'Letter']) }, sections: [{ type: 'flow', content }] };
  return {
    name: `invoice-${seed}-L${layout}${type === 'pdf' ? '' : `.${type}`}`,
    category: 'invoice',
    doc,
    reference: referenceOf(doc),
    fields: { invoice_number: number, invoice_date: date, due_date: due, total, customer, vendor, purchase_order: po },
  };
}

const STORES = ['Corner Grocer', 'Café Lumière', 'Hardware Hub', 'Green Leaf Market', 'Bookworm Books', 'City Pharmacy', 'Harbour Fish Bar', 'Metro Electronics'];
const GOODS = ['Milk 1L', 'Bread', 'Coffee beans', 'Apples 1kg', 'Batteries AA', 'Notebook', 'Cappuccino', 'Croissant', 'Screws pack', 'Shampoo', 'Orange juice', 'Cheddar'];

/** A till receipt in layout 0 (labelled date and total) or 1 (bare date line, TOTAL row). */
export function receipt(seed: number, layout: number, type = 'pdf'): Labelled {
  const r = random(seed);
  const store = pick(r, STORES);
  const date = isoDate(r);
  const cur = pick(r, [0, 2, 3, 1]);
  const lines = shuffle(r, GOODS).slice(0, int(r, 3, 6)).map((g) => [g, int(r, 80, 2500) / 100] as const);
  const total = Math.round(lines.reduce((s, [, p]) => s + p * 100, 0)) / 100;
  const time = `${int(r, 8, 20)}:${String(int(r, 0, 59)).padStart(2, '0')}`;
  const rows = lines.map(([g, p]) => [g, money(p, cur)]);
  const content: Json[] =
    layout === 0
      ? [
          { type: 'h1', text: mk(store) },
          { type: 'text', text: mk(pick(r, STREETS)) },
          { type: 'text', text: mk(`Date: ${dateText(r, date, pick(r, [1, 2, 3]))}`) },
          { type: 'text', text: `Time: ${time}` },
          { type: 'table', headerRows: 0, rows: rows.map((row) => row.map(mk)) },
          { type: 'text', text: mk(`Total: ${money(total, cur)}`) },
          { type: 'text', text: `Paid by card, ending ${int(r, 1000, 9999)}` },
          { type: 'text', text: 'Thank you for shopping with us!' },
        ]
      : [
          { type: 'h2', text: mk(store) },
          { type: 'text', text: `Receipt ${int(r, 1000, 99999)}` },
          { type: 'text', text: mk(`${dateText(r, date, pick(r, [0, 2, 4]))} ${time}`) },
          { type: 'table', headerRows: 0, rows: [...rows, ['TOTAL', money(total, cur)], ['CASH', money(Math.ceil(total / 10) * 10, cur)]].map((row) => row.map(mk)) },
          { type: 'text', text: 'No refunds without this receipt. Thank you, come again.' },
        ];
  const doc = { document: { type, size: 'A5' }, sections: [{ type: 'flow', content }] };
  return { name: `receipt-${seed}-L${layout}`, category: 'receipt', doc, reference: referenceOf(doc), fields: { vendor: store, date, total } };
}

const PEOPLE = ['Ms Jones', 'Mr Okafor', 'Dr Lindqvist', 'Mrs Patel', 'Professor Novak', 'Mr Dubois'];
const SIGNERS = ['Peter Smith', 'Anna Berg', 'Li Wei', 'Carlos Mendes', 'Fatima Haddad'];

export function letter(seed: number, type = 'pdf'): Labelled {
  const r = random(seed);
  const body = pick(r, [
    'I am writing to thank you for your kind hospitality during our visit last week. The tour of the workshop was a highlight for the whole team.',
    'Further to our telephone conversation, I confirm that your appointment has been moved to the following Tuesday at ten o’clock.',
    'We are pleased to inform you that your application for membership has been approved. Your card will arrive by post within two weeks.',
    'With reference to your letter of last month, please find enclosed the documents you requested, together with a copy of the agreed schedule.',
  ]);
  const content = [
    { type: 'text', text: mk(`${pick(r, SIGNERS)}, ${pick(r, STREETS)}`) },
    { type: 'text', text: dateText(r, isoDate(r), 1) },
    { type: 'text', text: mk(`Dear ${pick(r, PEOPLE)},`) },
    { type: 'text', text: body },
    { type: 'text', text: pick(r, ['Please do not hesitate to contact me if you have any questions.', 'I look forward to hearing from you.', 'Thank you again for your help.']) },
    { type: 'text', text: pick(r, ['Yours sincerely,', 'Kind regards,', 'Yours faithfully,', 'Best wishes,']) },
    { type: 'text', text: mk(pick(r, SIGNERS)) },
  ];
  const doc = { document: { type, size: 'A4' }, sections: [{ type: 'flow', content }] };
  return { name: `letter-${seed}`, category: 'letter', doc, reference: referenceOf(doc), fields: {} };
}

export function contract(seed: number, type = 'pdf'): Labelled {
  const r = random(seed);
  const kind = pick(r, ['Service Agreement', 'Lease Agreement', 'Non-Disclosure Agreement', 'Consulting Contract', 'Supply Agreement']);
  const clauses = shuffle(r, [
    'The Supplier shall provide the services described in Schedule 1 with reasonable skill and care.',
    'Either party may terminate this agreement by giving thirty days written notice to the other party.',
    'Each party shall keep the confidential information of the other party secret and shall not disclose it.',
    'This agreement is governed by the laws of England and Wales.',
    'The Tenant shall pay the rent monthly in advance on the first day of each month.',
    'Neither party shall be liable for any failure caused by events beyond its reasonable control.',
    'Any amendment to this agreement must be made in writing and signed by both parties.',
  ]).slice(0, int(r, 3, 5));
  const content = [
    { type: 'h1', text: kind },
    { type: 'text', text: mk(`This agreement is made on ${dateText(r, isoDate(r), 1)} between ${pick(r, VENDORS)} and ${pick(r, CUSTOMERS)} (the parties).`) },
    ...clauses.map((c, i) => ({ type: 'text', text: `${i + 1}. ${c}` })),
    { type: 'text', text: 'Signed for and on behalf of each party:' },
  ];
  const doc = { document: { type, size: 'A4' }, sections: [{ type: 'flow', content }] };
  return { name: `contract-${seed}`, category: 'contract', doc, reference: referenceOf(doc), fields: {} };
}

export function form(seed: number, type = 'pdf'): Labelled {
  const r = random(seed);
  const title = pick(r, ['Membership Application Form', 'Change of Address Form', 'Patient Registration Form', 'Expense Claim Form', 'Equipment Loan Request']);
  const fields = shuffle(r, ['Full name', 'Date of birth', 'Address', 'Postcode', 'Telephone', 'Email', 'Membership number', 'Department', 'Reason for request', 'Preferred start date']).slice(0, int(r, 4, 7));
  const content = [
    { type: 'h1', text: title },
    { type: 'text', text: pick(r, ['Please complete all sections in block capitals.', 'Please fill in this form and return it to the office.', 'Complete the applicant section and sign below.']) },
    { type: 'h2', text: 'Section A: Applicant details' },
    ...fields.map((f) => ({ type: 'text', text: `${f}: ______________________` })),
    { type: 'text', text: pick(r, ['Tick if you agree to be contacted: [ ] Yes [ ] No', 'Office use only: received [ ] approved [ ]']).replace(/[[\]]/g, (c) => `\\${c}`) },
    { type: 'text', text: 'Signature of applicant: ______________  Date: __________' },
  ];
  const doc = { document: { type, size: 'A4' }, sections: [{ type: 'flow', content }] };
  return { name: `form-${seed}`, category: 'form', doc, reference: referenceOf(doc), fields: {} };
}

export function report(seed: number, type = 'pdf'): Labelled {
  const r = random(seed);
  const topic = pick(r, ['Quarterly sales', 'Site inspection', 'Customer survey', 'Energy use', 'Annual safety']);
  const content = [
    { type: 'h1', text: `${topic} report ${int(r, 2021, 2025)}` },
    { type: 'h2', text: 'Summary' },
    { type: 'text', text: pick(r, ['Revenue grew by twelve percent over the quarter, led by the northern region.', 'Two of the twelve rooms inspected need repairs to their windows.', 'Most respondents rated the service as good or very good.']) },
    { type: 'h2', text: pick(r, ['Findings', 'Results', 'Analysis']) },
    { type: 'text', text: pick(r, ['Costs rose slightly while churn fell; the analysis below breaks the figures down by region.', 'The results are shown in the table below, with the previous period for comparison.', 'Energy use per square metre fell for the third year in a row.']) },
    { type: 'table', headerRows: 1, rows: [['Region', 'This period', 'Last period'], ['North', String(int(r, 100, 900)), String(int(r, 100, 900))], ['South', String(int(r, 100, 900)), String(int(r, 100, 900))]] },
    { type: 'h2', text: 'Conclusion' },
    { type: 'text', text: pick(r, ['The figures support the plan for next year.', 'We recommend repeating the survey in six months.', 'No further action is needed at this stage.']) },
  ];
  const doc = { document: { type, size: 'A4' }, sections: [{ type: 'flow', content }] };
  return { name: `report-${seed}`, category: 'report', doc, reference: referenceOf(doc), fields: {} };
}

/** A newsletter page: a title over three columns of numbered sentences, read column by column. */
export function newsletter(seed: number, columns = 3): Labelled {
  const r = random(seed);
  const topics = ['orchards', 'harbours', 'libraries', 'bridges', 'gardens', 'markets', 'railways'];
  const paras = Array.from({ length: 10 }, (_, k) =>
    Array.from({ length: 5 }, (_, i) => `Item ${k * 5 + i + 1} is about ${pick(r, topics)} and the people who look after them.`).join(' '),
  );
  const doc = {
    document: { type: 'pdf', size: 'A4' },
    sections: [
      { type: 'flow', content: [{ type: 'h1', text: `Community Newsletter ${int(r, 1, 40)}` }] },
      { type: 'flow', newPage: false, columns: { count: columns, space: 0.8 }, content: paras.map((t) => ({ type: 'text', text: t })) },
    ],
  };
  return { name: `newsletter-${seed}-${columns}col`, category: 'report', doc, reference: referenceOf(doc), fields: {} };
}

/** The same document as Markdown (for the DOCX/ODT/Markdown rows): headings, paragraphs, pipe tables. */
export function markdownOf(doc: Json): string {
  const out: string[] = [];
  for (const section of doc.sections) {
    for (const el of section.content) {
      if (/^h[1-6]$/.test(el.type)) out.push(`${'#'.repeat(Number(el.type[1]))} ${el.text}`);
      else if (el.type === 'table') {
        const rows: string[][] = el.rows;
        out.push([`| ${rows[0]!.join(' | ')} |`, `|${' --- |'.repeat(rows[0]!.length)}`, ...rows.slice(1).map((row) => `| ${row.join(' | ')} |`)].join('\n'));
      } else out.push(el.text);
    }
  }
  return out.join('\n\n') + '\n';
}

/**
 * A worse scan, with parameters drawn from the seed: rotated 1–3° either way, blurred (drawn at 60–85% and
 * scaled back), grey noise, a little salt and pepper, then saved as a JPEG of quality 35–70.
 */
export async function degrade(png: Uint8Array, seed: number): Promise<{ bytes: Uint8Array; label: string }> {
  const r = random(seed);
  const angle = (1 + 2 * r()) * (r() < 0.5 ? -1 : 1);
  const blur = 0.6 + 0.25 * r();
  const noise = 30 + 40 * r();
  const quality = 35 + Math.floor(35 * r());
  const img = await loadImage(Buffer.from(png));
  const small = createCanvas(Math.round(img.width * blur), Math.round(img.height * blur));
  small.getContext('2d').drawImage(img, 0, 0, small.width, small.height);
  const out = createCanvas(img.width, img.height);
  const ctx = out.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.translate(out.width / 2, out.height / 2);
  ctx.rotate((angle * Math.PI) / 180);
  ctx.drawImage(small, -out.width / 2, -out.height / 2, out.width, out.height);
  // getImageData/putImageData work in device pixels: reset the rotation first, or @napi-rs/canvas puts the
  // data back shifted.
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  const data = ctx.getImageData(0, 0, out.width, out.height);
  for (let i = 0; i < data.data.length; i += 4) {
    const p = r();
    const v = p < 0.001 ? 0 : p < 0.002 ? 255 : Math.max(0, Math.min(255, data.data[i]! + (r() - 0.5) * noise));
    data.data[i] = data.data[i + 1] = data.data[i + 2] = v;
  }
  ctx.putImageData(data, 0, 0);
  const bytes = new Uint8Array(await encodeCanvas(out, 'jpeg', quality));
  return { bytes, label: `${angle.toFixed(1)}°, blur ${blur.toFixed(2)}, noise ±${Math.round(noise / 2)}, JPEG q${quality}` };
}

