// DOCX and ODT → Lens blocks: headings (by paragraph style / outline level), paragraphs, lists and tables,
// read from the document XML with fast-xml-parser (order preserved).
import JSZip from 'jszip';
import { XMLParser } from 'fast-xml-parser';
import { PluginError } from '../../sdk/index.js';
import type { Block } from './layout.js';

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', trimValues: false, processEntities: true, htmlEntities: false });

async function entry(bytes: Uint8Array, name: string, field: string, kind: string): Promise<Node[]> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (err) {
    throw new PluginError('DOCUMENT_UNREADABLE', `${field} is not a readable ${kind} file (${(err as Error).message}); upload an intact file.`);
  }
  const xml = await zip.file(name)?.async('string');
  if (xml === undefined) throw new PluginError('DOCUMENT_UNREADABLE', `${field} is not a readable ${kind} file: it has no ${name}.`);
  return parser.parse(xml) as Node[];
}

function tag(n: Node): string {
  return Object.keys(n).find((k) => k !== ':@') ?? '';
}
function kids(n: Node): Node[] {
  const v = n[tag(n)];
  return Array.isArray(v) ? (v as Node[]) : [];
}
function find(nodes: Node[], name: string): Node | undefined {
  for (const n of nodes) {
    if (tag(n) === name) return n;
    const inner = find(kids(n), name);
    if (inner) return inner;
  }
  return undefined;
}

// ---------------------------------------------------------------- DOCX

export async function docxBlocks(bytes: Uint8Array, field: string): Promise<Block[]> {
  const root = await entry(bytes, 'word/document.xml', field, 'DOCX');
  const body = find(root, 'w:body');
  const blocks: Block[] = [];
  if (body) docxChildren(kids(body), blocks);
  return blocks;
}

function docxChildren(nodes: Node[], out: Block[]): void {
  for (const n of nodes) {
    const t = tag(n);
    if (t === 'w:p') docxParagraph(n, out);
    else if (t === 'w:tbl') out.push({ kind: 'table', rows: kids(n).filter((r) => tag(r) === 'w:tr').map((r) => kids(r).filter((c) => tag(c) === 'w:tc').map((c) => cellText(c, 'w:p', docxText))) });
    else if (t === 'w:sdt' || t === 'w:sdtContent') docxChildren(kids(n), out);
  }
}

function docxParagraph(p: Node, out: Block[]): void {
  const text = docxText(p).replace(/\s+/g, ' ').trim();
  if (!text) return;
  const pPr = kids(p).find((k) => tag(k) === 'w:pPr');
  const style = pPr ? (kids(pPr).find((k) => tag(k) === 'w:pStyle')?.[':@']?.['w:val'] ?? '') : '';
  const heading = /^(?:heading|berschrift|titre)\s*(\d)$/i.exec(style.replace(/[^A-Za-z0-9]/g, '').replace(/(\D)(\d)$/, '$1 $2'));
  const outline = pPr && kids(pPr).find((k) => tag(k) === 'w:outlineLvl')?.[':@']?.['w:val'];
  if (heading || /^title$/i.test(style) || outline !== undefined) {
    out.push({ kind: 'heading', level: heading ? Number(heading[1]) : outline !== undefined ? Number(outline) + 1 : 1, text });
    return;
  }
  const numbered = pPr && kids(pPr).some((k) => tag(k) === 'w:numPr');
  if (numbered || /^list/i.test(style)) {
    const last = out[out.length - 1];
    const ordered = /number/i.test(style);
    if (last?.kind === 'list') last.items.push(text);
    else out.push({ kind: 'list', ordered, items: [text] });
    return;
  }
  out.push({ kind: 'paragraph', text });
}

function docxText(n: Node): string {
  let s = '';
  for (const k of kids(n)) {
    const t = tag(k);
    if (t === '#text') s += String(k[t]);
    else if (t === 'w:tab') s += '\t';
    else if (t === 'w:br' || t === 'w:cr') s += ' ';
    else if (t !== 'w:pPr' && t !== 'w:rPr' && t !== 'w:instrText' && t !== 'w:delText') s += docxText(k);
  }
  return s;
}

// ---------------------------------------------------------------- ODT

export async function odtBlocks(bytes: Uint8Array, field: string): Promise<Block[]> {
  const root = await entry(bytes, 'content.xml', field, 'ODT');
  const text = find(root, 'office:text');
  const blocks: Block[] = [];
  if (text) odtChildren(kids(text), blocks);
  return blocks;
}

function odtChildren(nodes: Node[], out: Block[]): void {
  for (const n of nodes) {
    const t = tag(n);
    const text = () => odtText(n).replace(/\s+/g, ' ').trim();
    if (t === 'text:h') {
      if (text()) out.push({ kind: 'heading', level: Math.min(6, Number(n[':@']?.['text:outline-level'] ?? 1)), text: text() });
    } else if (t === 'text:p') {
      if (text()) out.push({ kind: 'paragraph', text: text() });
    } else if (t === 'text:list') {
      const items = kids(n).filter((i) => tag(i) === 'text:list-item').map((i) => odtText(i).replace(/\s+/g, ' ').trim()).filter(Boolean);
      if (items.length) out.push({ kind: 'list', ordered: false, items });
    } else if (t === 'table:table') {
      const rows = collect(n, 'table:table-row').map((r) => kids(r).filter((c) => tag(c) === 'table:table-cell').map((c) => cellText(c, 'text:p', odtText)));
      out.push({ kind: 'table', rows });
    } else if (t === 'text:section') odtChildren(kids(n), out);
  }
}

function collect(n: Node, name: string): Node[] {
  const out: Node[] = [];
  for (const k of kids(n)) {
    if (tag(k) === name) out.push(k);
    else out.push(...collect(k, name));
  }
  return out;
}

function odtText(n: Node): string {
  let s = '';
  for (const k of kids(n)) {
    const t = tag(k);
    if (t === '#text') s += String(k[t]);
    else if (t === 'text:s') s += ' '.repeat(Number(k[':@']?.['text:c'] ?? 1));
    else if (t === 'text:tab') s += '\t';
    else if (t === 'text:line-break') s += ' ';
    else if (t === 'text:p' || t === 'text:h') s += ' ' + odtText(k) + ' ';
    else if (t !== 'office:annotation' && t !== 'text:note') s += odtText(k);
  }
  return s;
}

function cellText(cell: Node, para: string, text: (n: Node) => string): string {
  return collect(cell, para).map((p) => text(p).trim()).filter(Boolean).join(' ').replace(/\s+/g, ' ');
}
