// A DOCX package opened under limits: its parts by name, relationships resolved inside the package only, XML parsed safely.
import path from 'node:path/posix';
import { PackageError, entryBytes, readZip, type PackageLimits, type ZipEntry } from '../../engines/office-package/zip.js';
import { kids, parseXmlPart, type XmlElement } from '../../engines/office-package/xml.js';

export interface Relationship {
  type: string;
  /** A part name inside the package, or the URL of an external target. */
  target: string;
  external: boolean;
}

export const REL = {
  officeDocument: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument',
  coreProperties: 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties',
  styles: '/styles',
  numbering: '/numbering',
  footnotes: '/footnotes',
  endnotes: '/endnotes',
} as const;

export class DocxPackage {
  readonly #entries = new Map<string, ZipEntry>();
  readonly #xml = new Map<string, XmlElement>();

  constructor(bytes: Uint8Array, limits: PackageLimits) {
    for (const e of readZip(bytes, limits)) this.#entries.set(e.name, e);
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  bytes(name: string): Uint8Array {
    const e = this.#entries.get(name);
    if (!e) throw new PackageError('INVALID', `has no part ${name}.`);
    return entryBytes(e);
  }

  xml(name: string): XmlElement {
    let el = this.#xml.get(name);
    if (!el) {
      el = parseXmlPart(this.bytes(name), name);
      this.#xml.set(name, el);
    }
    return el;
  }

  /** The relationships of a part (`word/document.xml` → `word/_rels/document.xml.rels`); targets outside the package root are left out. */
  rels(partName: string): Map<string, Relationship> {
    const relsName = partName === '' ? '_rels/.rels' : `${path.dirname(partName)}/_rels/${path.basename(partName)}.rels`.replace(/^\.\//, '');
    const out = new Map<string, Relationship>();
    if (!this.has(relsName)) return out;
    for (const r of kids(this.xml(relsName), 'Relationship')) {
      const id = r.attrs.Id;
      const target = r.attrs.Target;
      if (!id || !target) continue;
      if (r.attrs.TargetMode === 'External') {
        out.set(id, { type: r.attrs.Type ?? '', target, external: true });
        continue;
      }
      const resolved = resolvePart(partName, target);
      if (resolved) out.set(id, { type: r.attrs.Type ?? '', target: resolved, external: false });
    }
    return out;
  }

  /** The first relationship of a part whose type ends with `typeSuffix`. */
  related(partName: string, typeSuffix: string): string | undefined {
    for (const r of this.rels(partName).values()) if (!r.external && r.type.endsWith(typeSuffix)) return r.target;
    return undefined;
  }
}

/**
 * A relationship target as a part name. Names that climb above the package root (`../../etc/passwd`) or
 * carry a scheme are refused: parts are looked up by name only, never on a file system.
 */
export function resolvePart(fromPart: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.includes('\\') || target.includes('\0')) return null;
  const joined = target.startsWith('/') ? target.slice(1) : path.join(path.dirname(fromPart), target);
  const normal = path.normalize(joined);
  if (normal.startsWith('..') || normal.startsWith('/')) return null;
  return normal;
}
