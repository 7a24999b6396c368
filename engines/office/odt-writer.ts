// The ODT writer: a resolved document → an OpenDocument Text package (ODF 1.2) zipped with jszip.
// `mimetype` comes first and stored, as ODF requires, so tools can identify the file by its first bytes.
import JSZip from 'jszip';
import { el, trusted, xmlDocument, type Xml } from './xml.js';
import { NS, ODF_VERSION, ODT_MIME, languageAttrs } from './odt-common.js';
import { OdtContentWriter } from './odt-content.js';
import { replacementPath } from './odt-frames.js';
import { stylesXml } from './odt-styles.js';
import type { OfficeDocument } from './model.js';

const FORMULA_MIME = 'application/vnd.oasis.opendocument.formula';

export async function writeOdt(doc: OfficeDocument): Promise<Uint8Array> {
  const body = new OdtContentWriter(doc);
  const content = body.contentXml();
  const styles = stylesXml(doc);

  // Every entry carries the document's creation time, so the same document gives the same bytes.
  const date = new Date(doc.meta.created);
  const opts = { date: Number.isNaN(date.getTime()) ? new Date(0) : date, createFolders: false };
  const zip = new JSZip();
  zip.file('mimetype', ODT_MIME, { ...opts, compression: 'STORE' });
  zip.file('content.xml', content, opts);
  zip.file('styles.xml', styles, opts);
  zip.file('meta.xml', metaXml(doc), opts);
  for (const p of body.frames.pictures.values()) zip.file(p.path, p.bytes, { ...opts, compression: 'STORE' }); // already compressed
  for (const f of body.frames.formulas) {
    zip.file(`${f.dir}/content.xml`, xmlDocument(trusted(f.mathml)), opts);
    if (f.replacement) zip.file(replacementPath(f.dir), f.replacement, opts);
  }
  zip.file('META-INF/manifest.xml', manifestXml(body), opts);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE', compressionOptions: { level: 6 } });
}

function manifestXml(body: OdtContentWriter): string {
  const entry = (path: string, type: string, version = false): Xml =>
    el('manifest:file-entry', { 'manifest:full-path': path, 'manifest:media-type': type, 'manifest:version': version ? ODF_VERSION : null });
  return xmlDocument(
    el(
      'manifest:manifest',
      { 'xmlns:manifest': 'urn:oasis:names:tc:opendocument:xmlns:manifest:1.0', 'manifest:version': ODF_VERSION },
      entry('/', ODT_MIME, true),
      entry('content.xml', 'text/xml'),
      entry('styles.xml', 'text/xml'),
      entry('meta.xml', 'text/xml'),
      [...body.frames.pictures.values()].map((p) => entry(p.path, p.mimeType)),
      body.frames.formulas.map((f) => [
        entry(`${f.dir}/`, FORMULA_MIME, true),
        entry(`${f.dir}/content.xml`, 'text/xml'),
        f.replacement ? entry(replacementPath(f.dir), 'image/svg+xml') : null,
      ]),
    ),
  );
}

function metaXml(doc: OfficeDocument): string {
  const m = doc.meta;
  const created = new Date(m.created);
  const when = Number.isNaN(created.getTime()) ? null : created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return xmlDocument(
    el(
      'office:document-meta',
      { 'xmlns:office': NS['xmlns:office'], 'xmlns:meta': NS['xmlns:meta'], 'xmlns:dc': NS['xmlns:dc'], 'xmlns:xlink': NS['xmlns:xlink'], 'office:version': ODF_VERSION },
      el(
        'office:meta',
        null,
        el('meta:generator', null, 'Quire'),
        m.title ? el('dc:title', null, m.title) : null,
        m.subject ? el('dc:subject', null, m.subject) : null,
        m.description ? el('dc:description', null, m.description) : null,
        m.keywords.map((k) => el('meta:keyword', null, k)),
        m.author ? [el('meta:initial-creator', null, m.author), el('dc:creator', null, m.author)] : null,
        when ? [el('meta:creation-date', null, when), el('dc:date', null, when)] : null,
        el('dc:language', null, languageTag(doc.locale)),
      ),
    ),
  );
}

function languageTag(locale: string): string {
  const a = languageAttrs(locale);
  return a['fo:country'] ? `${a['fo:language']}-${a['fo:country']}` : String(a['fo:language']);
}
