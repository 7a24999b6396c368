// Word styles and list numbering from the resolved document's styling: Normal, Heading 1–6 (with outline
// levels, so the Navigation Pane and TOC fields find them), Caption, Quote, Source Code, Hyperlink, …
import { AlignmentType, BorderStyle, LevelFormat, LineRuleType, type ILevelsOptions, type INumberingOptions, type IStylesOptions } from 'docx';
import type { OfficeDocument } from './model.js';
import { halfPoints, hex, twipsFromPt, type ListDefinition } from './docx-context.js';

/** Light grey behind code, as in the PDF (luma 247 / 242). */
const CODE_BLOCK_FILL = 'F7F7F7';
const CODE_INLINE_FILL = 'F2F2F2';

/**
 * The run font of body text: one name for every kind of text, or (in a document with CJK or complex-script text)
 * w:eastAsia and w:cs naming the fonts of those scripts, so that Word and LibreOffice pick them.
 */
function bodyRunFont(s: OfficeDocument['styles']): string | { ascii: string; hAnsi: string; eastAsia: string; cs: string } {
  if (s.asianFont === s.bodyFont && s.complexFont === s.bodyFont) return s.bodyFont;
  return { ascii: s.bodyFont, hAnsi: s.bodyFont, eastAsia: s.asianFont, cs: s.complexFont };
}

export function docxStyles(doc: OfficeDocument): IStylesOptions {
  const s = doc.styles;
  const font = bodyRunFont(s);
  const muted = hex(s.colors.muted);
  // Line height is a multiple of the font size in the model; "at least" keeps inline math and images from being clipped.
  const line = twipsFromPt(s.fontSize * s.lineHeight);
  const heading = (level: number) => {
    const h = s.headings[level - 1] ?? s.headings[s.headings.length - 1]!;
    return {
      run: { size: halfPoints(h.size), bold: h.bold, italics: false, color: hex(h.color), font },
      paragraph: { spacing: { before: twipsFromPt(h.spaceBefore), after: twipsFromPt(h.spaceAfter) }, keepNext: true, keepLines: true, outlineLevel: level - 1 },
    };
  };
  return {
    default: {
      document: {
        run: { font, size: halfPoints(s.fontSize), color: hex(s.colors.text) },
        paragraph: { spacing: { before: twipsFromPt(s.spaceBefore), after: twipsFromPt(s.spaceAfter), line, lineRule: LineRuleType.AT_LEAST } },
      },
      heading1: heading(1),
      heading2: heading(2),
      heading3: heading(3),
      heading4: heading(4),
      heading5: heading(5),
      heading6: heading(6),
      caption: { run: { size: halfPoints(s.fontSize * 0.9), color: muted, italics: false, bold: false }, paragraph: { spacing: { before: twipsFromPt(4), after: twipsFromPt(s.spaceAfter + 4) } } },
      hyperlink: { run: { color: hex(s.colors.primary), underline: {} } },
      footnoteText: { run: { size: halfPoints(s.fontSize * 0.85) }, paragraph: { spacing: { before: 0, after: 0 } } },
      bibliography: { paragraph: { indent: { left: 720, hanging: 720 }, spacing: { after: twipsFromPt(s.spaceAfter / 2) } } },
    },
    paragraphStyles: [
      {
        id: 'Quote',
        name: 'Quote',
        basedOn: 'Normal',
        next: 'Normal',
        quickFormat: true,
        run: { italics: true, color: muted },
        paragraph: { indent: { left: 567, right: 567 }, border: { left: { style: BorderStyle.SINGLE, size: 12, color: muted, space: 8 } } },
      },
      {
        id: 'SourceCode',
        name: 'Source Code',
        basedOn: 'Normal',
        quickFormat: true,
        run: { font: s.monoFont, size: halfPoints(s.fontSize * 0.9), noProof: true },
        paragraph: { spacing: { before: 0, after: 0, line: 240, lineRule: LineRuleType.AUTO }, shading: { fill: CODE_BLOCK_FILL }, indent: { left: 113, right: 113 } },
      },
      { id: 'TableText', name: 'Table Text', basedOn: 'Normal', run: {}, paragraph: { spacing: { before: 0, after: 0 } } },
      { id: 'TOCHeading', name: 'TOC Heading', basedOn: 'Normal', next: 'Normal', run: { size: halfPoints(s.headings[0]?.size ?? s.fontSize * 1.6), bold: true, color: hex(s.headings[0]?.color ?? s.colors.primary) }, paragraph: { keepNext: true, spacing: { before: twipsFromPt(s.headings[0]?.spaceBefore ?? 12), after: twipsFromPt(s.headings[0]?.spaceAfter ?? 6) } } },
      { id: 'Divider', name: 'Divider', basedOn: 'Normal', run: { size: 4 }, paragraph: { spacing: { before: 0, after: twipsFromPt(s.spaceAfter), line: 120, lineRule: LineRuleType.EXACT }, border: { bottom: { style: BorderStyle.SINGLE, size: 5, color: muted, space: 1 } } } },
      { id: 'Header', name: 'header', basedOn: 'Normal', run: { size: halfPoints(s.fontSize * 0.85), color: muted }, paragraph: { spacing: { before: 0, after: 0 } } },
      { id: 'Footer', name: 'footer', basedOn: 'Normal', run: { size: halfPoints(s.fontSize * 0.85), color: muted }, paragraph: { spacing: { before: 0, after: 0 } } },
    ],
    characterStyles: [
      { id: 'VerbatimChar', name: 'Verbatim Char', basedOn: 'DefaultParagraphFont', run: { font: s.monoFont, size: halfPoints(s.fontSize * 0.9), shading: { fill: CODE_INLINE_FILL }, noProof: true } },
      { id: 'LineNumberChar', name: 'Code Line Number', basedOn: 'VerbatimChar', run: { color: muted } },
    ],
  };
}

const BULLETS = ['\u2022', '\u25E6', '\u25AA'];

/** Nine levels per list kind, indented 0.5 in a level. Ordered lists count 1. 2. 3. at every level, as in the PDF. */
export function docxNumbering(lists: Iterable<ListDefinition>): INumberingOptions {
  const config = [...lists].map((def) => ({
    reference: def.reference,
    levels: Array.from({ length: 9 }, (_, level): ILevelsOptions => ({
      level,
      format: def.ordered ? LevelFormat.DECIMAL : LevelFormat.BULLET,
      text: def.ordered ? `%${level + 1}.` : BULLETS[level % BULLETS.length]!,
      start: level === 0 ? def.start : 1,
      alignment: AlignmentType.LEFT,
      style: { paragraph: { indent: { left: 360 * (level + 1) + 360, hanging: 360 } } },
    })),
  }));
  return { config };
}
