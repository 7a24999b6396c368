// Pictures added to the package: media files, and the relationships (DOCX) or manifest entries (ODT) that name them.
import type { OutEntry } from '../../engines/office-package/zip.js';
import type { TemplateImage } from './images.js';
import { invalid, type OpenPackage } from './package.js';
import type { PartWriter } from './placeholders.js';
import { escapeXml } from '../../engines/xml-escape.js';

export interface MediaSink {
  writerFor(part: string): PartWriter;
  /** Parts to replace (relationships, content types, manifest) as text. */
  finish(): Map<string, string>;
  /** New media entries. */
  files: OutEntry[];
}

/** DOCX pictures: word/media files, a relationship in the rels of the part that shows them, and content types. */
export class DocxMedia implements MediaSink {
  files: OutEntry[] = [];
  readonly #added = new Map<number, { png: string; svg?: string }>();
  readonly #rels = new Map<string, { xml: string; ids: Set<string>; byImage: Map<number, string>; extra: string[] }>();
  readonly #exts = new Set<string>();

  constructor(private readonly pkg: OpenPackage) {}

  writerFor(part: string): PartWriter {
    return { name: part, imageRef: (img) => this.#ref(part, img as TemplateImage) };
  }

  #ref(part: string, img: TemplateImage): string {
    const media = this.#media(img);
    const slash = part.lastIndexOf('/');
    const relsName = `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
    let rels = this.#rels.get(relsName);
    if (!rels) {
      const xml = this.pkg.byName.has(relsName) ? this.pkg.text(relsName) : '';
      const ids = new Set([...xml.matchAll(/\sId\s*=\s*["']([^"']*)["']/g)].map((m) => m[1]!));
      rels = { xml, ids, byImage: new Map(), extra: [] };
      this.#rels.set(relsName, rels);
    }
    const known = rels.byImage.get(img.n);
    if (known) return known;
    const dir = part.slice(0, slash + 1);
    const add = (target: string) => {
      let id = `rIdQuire${img.n}${target.endsWith('.svg') ? 's' : ''}`;
      while (rels!.ids.has(id)) id += 'x';
      rels!.ids.add(id);
      rels!.extra.push(`<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="${escapeXml(relative(dir, target))}"/>`);
      return id;
    };
    const ref = media.svg ? `${add(media.png)} ${add(media.svg)}` : add(media.png);
    rels.byImage.set(img.n, ref);
    return ref;
  }

  /** The media file(s) of an image, added once per job. For SVG: the PNG is the main picture, the SVG the extension. */
  #media(img: TemplateImage): { png: string; svg?: string } {
    let m = this.#added.get(img.n);
    if (m) return m;
    const base = this.#free(`word/media/quire-image-${img.n}`);
    if (img.ext === 'svg') {
      m = { png: `${base}.png`, svg: `${base}.svg` };
      this.files.push({ name: m.png, bytes: img.png! }, { name: m.svg!, bytes: img.bytes });
      this.#exts.add('png').add('svg');
    } else {
      m = { png: `${base}.${img.ext}` };
      this.files.push({ name: m.png, bytes: img.bytes });
      this.#exts.add(img.ext);
    }
    this.#added.set(img.n, m);
    return m;
  }

  #free(base: string): string {
    let name = base;
    for (let k = 2; [...this.pkg.byName.keys()].some((e) => e.startsWith(`${name}.`)); k++) name = `${base}-${k}`;
    return name;
  }

  finish(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [name, rels] of this.#rels) {
      if (!rels.extra.length) continue;
      out.set(
        name,
        rels.xml
          ? insertBefore(rels.xml, '</Relationships>', rels.extra.join(''), name)
          : `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.extra.join('')}</Relationships>`,
      );
    }
    if (this.#exts.size) {
      const ct = this.pkg.text('[Content_Types].xml');
      const have = new Set([...ct.matchAll(/<Default\s[^>]*Extension\s*=\s*["']([^"']*)["']/g)].map((m) => m[1]!.toLowerCase()));
      const types: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', svg: 'image/svg+xml' };
      const add = [...this.#exts].filter((e) => !have.has(e)).map((e) => `<Default Extension="${e}" ContentType="${types[e]}"/>`);
      if (add.length) out.set('[Content_Types].xml', insertBefore(ct, '</Types>', add.join(''), '[Content_Types].xml'));
    }
    return out;
  }
}

/** ODT pictures: Pictures/ files listed in META-INF/manifest.xml. */
export class OdtMedia implements MediaSink {
  files: OutEntry[] = [];
  readonly #added = new Map<number, string>();
  readonly #manifest: string[] = [];

  constructor(private readonly pkg: OpenPackage) {}

  writerFor(part: string): PartWriter {
    return { name: part, imageRef: (img) => this.#ref(img as TemplateImage) };
  }

  #ref(img: TemplateImage): string {
    const known = this.#added.get(img.n);
    if (known) return known;
    let base = `Pictures/quire-image-${img.n}`;
    for (let k = 2; [...this.pkg.byName.keys()].some((e) => e.startsWith(`${base}.`)); k++) base = `Pictures/quire-image-${img.n}-${k}`;
    const add = (name: string, bytes: Uint8Array, type: string) => {
      this.files.push({ name, bytes, store: true });
      this.#manifest.push(`<manifest:file-entry manifest:full-path="${name}" manifest:media-type="${type}"/>`);
    };
    let ref: string;
    if (img.ext === 'svg') {
      add(`${base}.svg`, img.bytes, 'image/svg+xml');
      add(`${base}.png`, img.png!, 'image/png');
      ref = `${base}.svg ${base}.png`;
    } else {
      add(`${base}.${img.ext}`, img.bytes, img.mimeType);
      ref = `${base}.${img.ext}`;
    }
    this.#added.set(img.n, ref);
    return ref;
  }

  finish(): Map<string, string> {
    const out = new Map<string, string>();
    if (this.#manifest.length) {
      const name = 'META-INF/manifest.xml';
      out.set(name, insertBefore(this.pkg.text(name), '</manifest:manifest>', this.#manifest.join(''), name));
    }
    return out;
  }
}

function insertBefore(xml: string, closing: string, add: string, part: string): string {
  const at = xml.lastIndexOf(closing);
  if (at < 0) throw invalid(`has a ${part} without ${closing}.`);
  return xml.slice(0, at) + add + xml.slice(at);
}

/** A package path relative to a part's folder (both from the package root). */
function relative(dir: string, target: string): string {
  return target.startsWith(dir) ? target.slice(dir.length) : `/${target}`;
}

