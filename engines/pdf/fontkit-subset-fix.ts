// Works around the TrueType subsetting bug of @pdf-lib/fontkit 1.1.1 that silently blanks or garbles glyphs in pdf-lib's `subset: true` fonts.
import type * as Fontkit from '@pdf-lib/fontkit';

/**
 * @pdf-lib/fontkit is a fork of fontkit 1.7 from before foliojs/fontkit#191 (fontkit 1.8): its TrueType
 * subset writes the `loca` table in the short format (offsets halved) whenever the subset is small,
 * without padding odd-length `glyf` records. After the first odd-length glyph every offset is one
 * byte off, so poppler and other renderers draw later glyphs blank or as garbage (pdftotext still
 * extracts the text, so only the rendered page shows it). Noto Sans has odd-length glyphs, e.g. "n".
 *
 * The fix is upstream's: keep the long `loca` format in subsets (2 bytes more per glyph). The subset
 * class is not exported, so it is reached through a subset of an opened font and patched once.
 */
const PATCHED = Symbol.for('quire.fontkitLongLoca');

interface TtfSubsetProto {
  [PATCHED]?: true;
  _addGlyph: (this: { loca: { version?: number } }, gid: number) => number;
}

export function fixFontkitSubsets(font: Fontkit.Font): void {
  const proto = Object.getPrototypeOf(font.createSubset()) as TtfSubsetProto;
  // Only the TrueType subset has _addGlyph writing `loca`; CFF subsets (OpenType .otf) have no `loca`.
  if (proto[PATCHED] || typeof proto._addGlyph !== 'function') return;
  const addGlyph = proto._addGlyph;
  proto._addGlyph = function (gid) {
    // encode() starts each subset with `loca = {offsets: []}`; a version set here survives its preEncode.
    this.loca.version ??= 1;
    return addGlyph.call(this, gid);
  };
  proto[PATCHED] = true;
}
