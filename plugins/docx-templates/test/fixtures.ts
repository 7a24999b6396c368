// Fixtures and independent readers for the template tests: LibreOffice-authored and hand-built templates, python-docx and odfpy reports.
// Longer than 400 lines: the template fixtures and their independent readers belong together; each fixture is a short builder.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import JSZip from 'jszip';

const PYTHON = '/usr/bin/python3';

export function run(cmd: string, args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024, env: opts.env ?? process.env }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Runs a Python script (Debian's python3: python-docx, odfpy) on a file and parses the JSON it prints. */
async function pyReport(script: string, bytes: Uint8Array, ext: string): Promise<any> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-tpl-read-'));
  try {
    const file = path.join(dir, `doc.${ext}`);
    await writeFile(file, bytes);
    const r = await run(PYTHON, ['-c', script, file]);
    if (r.code !== 0) throw new Error(`python reader failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What python-docx (and, for parts it does not model, the stdlib XML parser) reads in a DOCX. */
export interface DocxReport {
  paragraphs: string[];
  /** Runs of each body paragraph: text and bold. */
  runs: Array<Array<{ text: string; bold: boolean | null }>>;
  /** Tables of the body: rows of cell texts; nested tables in `nested`. */
  tables: string[][][];
  nested: string[][][];
  headers: string[];
  footers: string[];
  /** Text of every WordprocessingML part, by part name (w:t only, paragraphs joined by newlines). */
  parts: Record<string, string>;
  shapes: Array<{ cx: number; cy: number; descr: string | null }>;
  /** Images of the package: part name → pixel size from the image header or 'svg'. */
  media: Record<string, string>;
  /** Relationships of type image, per rels part: targets. */
  imageRels: Record<string, string[]>;
}

const DOCX_READER = String.raw`
import sys, json, zipfile, re
import docx
from xml.etree import ElementTree as ET
W = '{http://schemas.openxmlformats.org/wordprocessingml/2006/main}'
path = sys.argv[1]
d = docx.Document(path)
def cells(t):
    return [[c.text for c in r.cells] for r in t.rows]
nested = []
for t in d.tables:
    for r in t.rows:
        for c in r.cells:
            for n in c.tables:
                nested.append(cells(n))
z = zipfile.ZipFile(path)
parts = {}
for name in z.namelist():
    if re.match(r'word/(document|header\d*|footer\d*|footnotes|endnotes)\.xml$', name):
        root = ET.fromstring(z.read(name))
        paras = []
        def own(el, out):
            # The paragraph's own text: a text box's paragraphs inside it are paragraphs of their own.
            for ch in el:
                if ch.tag == W + 'p':
                    continue
                if ch.tag == W + 't':
                    out.append(ch.text or '')
                own(ch, out)
            return out
        for p in root.iter(W + 'p'):
            paras.append(''.join(own(p, [])))
        parts[name] = '\n'.join(paras)
media = {}
for name in z.namelist():
    if name.startswith('word/media/'):
        data = z.read(name)
        if data[:8] == b'\x89PNG\r\n\x1a\n':
            import struct
            w, h = struct.unpack('>II', data[16:24]); media[name] = '%dx%d' % (w, h)
        elif b'<svg' in data[:500]:
            media[name] = 'svg'
        else:
            media[name] = 'other'
rels = {}
for name in z.namelist():
    if name.endswith('.rels'):
        root = ET.fromstring(z.read(name))
        rels[name] = [r.get('Target') for r in root if r.get('Type', '').endswith('/image')]
shapes = []
for s in d.inline_shapes:
    docpr = s._inline.find('{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}docPr')
    shapes.append({'cx': s.width, 'cy': s.height, 'descr': docpr.get('descr') if docpr is not None else None})
print(json.dumps({
    'paragraphs': [p.text for p in d.paragraphs],
    'runs': [[{'text': r.text, 'bold': r.bold} for r in p.runs] for p in d.paragraphs],
    'tables': [cells(t) for t in d.tables],
    'nested': nested,
    'headers': [p.text for s in d.sections for p in s.header.paragraphs],
    'footers': [p.text for s in d.sections for p in s.footer.paragraphs],
    'parts': parts, 'shapes': shapes, 'media': media, 'imageRels': rels,
}))
`;

export function docxReport(bytes: Uint8Array): Promise<DocxReport> {
  return pyReport(DOCX_READER, bytes, 'docx');
}

export interface OdtReport {
  paragraphs: string[];
  /** Paragraphs with their style and the styles of their spans: [text, bold spans]. */
  boldSpans: string[];
  tables: string[][][];
  headers: string[];
  footers: string[];
  frames: Array<{ width: string; height: string; hrefs: string[]; desc: string }>;
  manifest: string[];
}

const ODT_READER = String.raw`
import sys, json, zipfile
from odf.opendocument import load
from odf import text, table, draw, style, teletype, svg
doc = load(sys.argv[1])
body = doc.text
from odf.namespaces import TEXTNS, TABLENS
def walk(node, acc):
    for ch in node.childNodes:
        if ch.nodeType != ch.ELEMENT_NODE:
            continue
        if ch.qname in ((TEXTNS, 'p'), (TEXTNS, 'h')):
            acc.append(teletype.extractText(ch))
        elif ch.qname != (TABLENS, 'table'):
            walk(ch, acc)
    return acc
paragraphs = walk(body, [])
tables = []
for t in body.getElementsByType(table.Table):
    rows = []
    for r in t.getElementsByType(table.TableRow):
        rows.append([teletype.extractText(c) for c in r.getElementsByType(table.TableCell)])
    tables.append(rows)
bold = set()
for st in doc.automaticstyles.getElementsByType(style.Style):
    for tp in st.getElementsByType(style.TextProperties):
        if tp.getAttribute('fontweight') == 'bold':
            bold.add(st.getAttribute('name'))
boldSpans = [teletype.extractText(s) for s in body.getElementsByType(text.Span) if s.getAttribute('stylename') in bold]
headers, footers = [], []
for mp in doc.masterstyles.getElementsByType(style.MasterPage):
    for h in mp.getElementsByType(style.Header):
        headers += [teletype.extractText(p) for p in h.getElementsByType(text.P)]
    for f in mp.getElementsByType(style.Footer):
        footers += [teletype.extractText(p) for p in f.getElementsByType(text.P)]
frames = []
for f in body.getElementsByType(draw.Frame):
    descs = f.getElementsByType(svg.Desc)
    frames.append({'width': f.getAttribute('width'), 'height': f.getAttribute('height'),
                   'hrefs': [i.getAttribute('href') for i in f.getElementsByType(draw.Image)],
                   'desc': teletype.extractText(descs[0]) if descs else ''})
print(json.dumps({'paragraphs': paragraphs, 'boldSpans': boldSpans, 'tables': tables, 'headers': headers, 'footers': footers,
                  'frames': frames, 'manifest': [e for e in zipfile.ZipFile(sys.argv[1]).read('META-INF/manifest.xml').decode().split('"') if e.startswith('Pictures/')]}))
`;

export function odtReport(bytes: Uint8Array): Promise<OdtReport> {
  return pyReport(ODT_READER, bytes, 'odt');
}

/** Text of a PDF by poppler's pdftotext (layout kept, so a table row reads as one line), whitespace collapsed. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-tpl-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    await writeFile(file, bytes);
    const r = await run('pdftotext', ['-layout', file, '-']);
    if (r.code !== 0) throw new Error(`pdftotext failed: ${r.stderr}`);
    return r.stdout.replace(/\s+/g, ' ').trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Number of images poppler's pdfimages finds in a PDF. */
export async function pdfImageCount(bytes: Uint8Array): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-tpl-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    await writeFile(file, bytes);
    const r = await run('pdfimages', ['-list', file]);
    return r.stdout.trim().split('\n').slice(2).filter((l) => l.trim()).length;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Converts a file with a cold `soffice --convert-to` (its own throw-away profile, so that concurrent tests do
 * not share one): how an author's LibreOffice saves the document.
 */
export async function sofficeConvert(source: string, ext: string, outDir: string): Promise<Buffer> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'quire-tpl-profile-'));
  try {
    const { FONTCONFIG_FILE: _f, ...env } = process.env;
    const r = await run('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--norestore', '--convert-to', ext, '--outdir', outDir, source], { timeoutMs: 300_000, env });
    const out = path.join(outDir, `${path.basename(source).replace(/\.[^.]+$/, '')}.${ext}`);
    try {
      return await readFile(out);
    } catch {
      throw new Error(`soffice --convert-to ${ext} made nothing (exit ${r.code}): ${r.stderr}`);
    }
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"';

/**
 * The invoice an author writes in LibreOffice (as flat ODF): a header and a footer, a bold placeholder, a table with a
 * header row and one data row, an image, a list, `${...}` syntax, and a placeholder no variable fills.
 */
export const INVOICE_FODT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document ${ODF_NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:automatic-styles>
<style:style style:name="T1" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style>
<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="1.5cm" fo:margin-bottom="1.5cm" fo:margin-left="2cm" fo:margin-right="2cm"/><style:header-style/><style:footer-style/></style:page-layout>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">
<style:header><text:p>Letterhead of {{company}}</text:p></style:header>
<style:footer><text:p>Footer of \${company}</text:p></style:footer>
</style:master-page></office:master-styles>
<office:body><office:text>
<text:h text:outline-level="1">Invoice {{number}}</text:h>
<text:p>Dear <text:span text:style-name="T1">{{client}}</text:span>, thank you for your order.</text:p>
<table:table table:name="Items"><table:table-column table:number-columns-repeated="3"/>
<table:table-header-rows><table:table-row><table:table-cell office:value-type="string"><text:p>Item</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Qty</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Price</text:p></table:table-cell></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell office:value-type="string"><text:p>{{items.name}}</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>{{items.qty}}</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>{{items.price}}</text:p></table:table-cell></table:table-row>
</table:table>
<text:p>Logo: {{logo}}</text:p>
<text:p>Notes: {{notes}}</text:p>
<text:p>Total due: \${total}</text:p>
<text:p>Left alone: {{unknown_thing}}</text:p>
</office:text></office:body>
</office:document>
`;

/** Writes the invoice and has a cold LibreOffice save it as DOCX and as ODT (two conversions, run side by side). */
export async function libreOfficeInvoice(): Promise<{ docx: Buffer; odt: Buffer }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-tpl-src-'));
  try {
    const src = path.join(dir, 'invoice.fodt');
    await writeFile(src, INVOICE_FODT);
    const [docx, odt] = await Promise.all([sofficeConvert(src, 'docx', path.join(dir, 'docx')), sofficeConvert(src, 'odt', path.join(dir, 'odt'))]);
    return { docx, odt };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const W_NS =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ' +
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" ' +
  'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" mc:Ignorable="w14"';

export interface HandDocx {
  body: string;
  header?: string;
  footer?: string;
  footnotes?: string;
  endnotes?: string;
  /** Extra relationships of document.xml. */
  rels?: string;
  /** Raw XML put before the root element of document.xml (to smuggle a DOCTYPE in). */
  prolog?: string;
}

/** A DOCX written part by part, as Word structures it (built with JSZip, not with Quire's writer). */
export async function handDocx(spec: HandDocx): Promise<Uint8Array> {
  const zip = new JSZip();
  const overrides = [`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>`];
  const rels: string[] = [];
  const sectRefs: string[] = [];
  const part = (name: string, type: string, root: string, content: string, relType: string, id: string) => {
    zip.file(`word/${name}.xml`, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:${root} ${W_NS}>${content}</w:${root}>`);
    overrides.push(`<Override PartName="/word/${name}.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.${type}+xml"/>`);
    rels.push(`<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${relType}" Target="${name}.xml"/>`);
  };
  if (spec.header) {
    part('header1', 'header', 'hdr', spec.header, 'header', 'rIdH1');
    sectRefs.push('<w:headerReference w:type="default" r:id="rIdH1"/>');
  }
  if (spec.footer) {
    part('footer1', 'footer', 'ftr', spec.footer, 'footer', 'rIdF1');
    sectRefs.push('<w:footerReference w:type="default" r:id="rIdF1"/>');
  }
  if (spec.footnotes) part('footnotes', 'footnotes', 'footnotes', spec.footnotes, 'footnotes', 'rIdFn');
  if (spec.endnotes) part('endnotes', 'endnotes', 'endnotes', spec.endnotes, 'endnotes', 'rIdEn');
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`,
  );
  zip.file('_rels/.rels', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`);
  zip.file('word/_rels/document.xml.rels', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}${spec.rels ?? ''}</Relationships>`);
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${spec.prolog ?? ''}<w:document ${W_NS}><w:body>${spec.body}<w:sectPr>${sectRefs.join('')}<w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1134" w:header="567" w:footer="567" w:gutter="0"/></w:sectPr></w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

/** A paragraph of runs given as XML. */
export const p = (...runs: string[]) => `<w:p>${runs.join('')}</w:p>`;
/** A run with optional bold. */
export const r = (text: string, bold = false) => `<w:r>${bold ? '<w:rPr><w:b/></w:rPr>' : ''}<w:t xml:space="preserve">${text}</w:t></w:r>`;
export const cell = (...paras: string[]) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${paras.join('')}</w:tc>`;
export const row = (...cells: string[]) => `<w:tr>${cells.join('')}</w:tr>`;
export const table = (...rows: string[]) => `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="2000"/><w:gridCol w:w="2000"/></w:tblGrid>${rows.join('')}</w:tbl>`;

/** A solid-colour PNG of w × h pixels (written here, not by the code under test). */
export function png(w: number, h: number, rgb: [number, number, number] = [200, 30, 30]): Uint8Array {
  const rowBytes = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => rowBytes));
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return new Uint8Array(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]));
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

export const SVG_BADGE = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60"><rect width="120" height="60" fill="#2a6"/><circle cx="30" cy="30" r="20" fill="#fff"/></svg>`;

/** A loopback HTTP server that records every request it receives (and answers 404). */
export async function canary(): Promise<{ url: string; hits: string[]; close: () => Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A DOCX whose picture is a link (TargetMode External), the way Word's "Link to file" inserts it, plus a hyperlink. */
export function linkedPictureDocx(target: string): Promise<Uint8Array> {
  const drawing =
    `<w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Linked"/>` +
    `<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
    `<pic:nvPicPr><pic:cNvPr id="1" name="linked.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rIdLink"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;
  return handDocx({
    body: p(r('Linked picture for {{who}}: ')) + p(drawing) + p(`<w:hyperlink r:id="rIdWeb">${r('a web link')}</w:hyperlink>`),
    rels:
      `<Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${target}" TargetMode="External"/>` +
      `<Relationship Id="rIdWeb" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${target}/page" TargetMode="External"/>`,
  });
}

/** An ODT written part by part (JSZip): `mimetype` stored first, content, styles with a header, manifest. */
export async function handOdt(body: string, header = '', automaticStyles = ''): Promise<Uint8Array> {
  const ns =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"';
  const zip = new JSZip();
  zip.file('mimetype', 'application/vnd.oasis.opendocument.text', { compression: 'STORE' });
  zip.file('content.xml', `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${ns} office:version="1.3"><office:automatic-styles>${automaticStyles}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`);
  zip.file(
    'styles.xml',
    `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-styles ${ns} office:version="1.3"><office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm"/><style:header-style/></style:page-layout></office:automatic-styles>` +
      `<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">${header ? `<style:header>${header}</style:header>` : ''}</style:master-page></office:master-styles></office:document-styles>`,
  );
  zip.file(
    'META-INF/manifest.xml',
    `<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
  );
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE', mimeType: 'application/vnd.oasis.opendocument.text' });
}
