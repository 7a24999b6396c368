// Where a page section's content starts. Writer has no vertical alignment for a page, so a centred or
// bottom-aligned page section gets a spacer above its content, sized from an estimate of the content's
// height (lines of text at the document's font size). `startY` is exact.
import type { Block, OfficeDocument, OInline, PageSection } from './model.js';

const PT_CM = 2.54 / 72;

export function pageSectionOffsetCm(doc: OfficeDocument, s: PageSection, textWidthCm: number): number {
  if (s.startY !== null) return s.startY;
  if (s.align === 'top') return 0;
  const m = doc.page.margins;
  const available = doc.page.heightCm - m.topCm - m.bottomCm;
  // The estimate errs high (by 10%), so bottom-aligned content does not spill over.
  const estimate = s.content.reduce((h, b) => h + blockHeightCm(doc, b, textWidthCm), 0) * 1.1;
  const free = Math.max(0, available - estimate);
  return s.align === 'center' ? free / 2 : free;
}

function blockHeightCm(doc: OfficeDocument, b: Block, widthCm: number): number {
  const st = doc.styles;
  const line = (sizePt: number) => sizePt * st.lineHeight * PT_CM;
  const lines = (text: string, sizePt: number) => Math.max(1, Math.ceil((text.length * sizePt * 0.5 * PT_CM) / widthCm));
  const gap = Math.max(st.spaceBefore, st.spaceAfter) * PT_CM;
  const textBlock = (c: OInline[], sizePt = st.fontSize) => lines(plain(c), sizePt) * line(sizePt) + gap;
  switch (b.t) {
    case 'heading': {
      const h = st.headings[b.level - 1];
      const size = h?.size ?? st.fontSize;
      return lines(plain(b.c), size) * line(size) + ((h?.spaceBefore ?? 0) + (h?.spaceAfter ?? 0)) * PT_CM;
    }
    case 'par':
      return textBlock(b.c, b.style?.fontSize ?? st.fontSize);
    case 'quote':
      return textBlock(b.c) + (b.attribution ? line(st.fontSize) : 0);
    case 'list': {
      const count = (items: typeof b.items): number => items.reduce((n, it) => n + lines(plain(it.c), st.fontSize) + (it.items ? count(it.items) : 0), 0);
      return count(b.items) * line(st.fontSize) + gap;
    }
    case 'table':
      return b.rows.length * (line(st.fontSize) + 0.2) + 0.5 + (b.caption ? line(st.fontSize) : 0);
    case 'image':
      return b.picture.heightCm + 2 * gap + (b.caption ? line(st.fontSize) : 0);
    case 'code':
      return b.lines.length * st.fontSize * 0.9 * 1.15 * PT_CM + 0.3 + 2 * gap;
    case 'math':
      return b.display ? 1.5 + gap : textBlock([]);
    case 'spacer':
      return b.heightCm;
    case 'divider':
      return gap * 1.5;
    case 'pagebreak':
      return 0;
    case 'toc':
    case 'lof':
    case 'lot':
      return (b.entries.length + 2) * line(st.fontSize);
    case 'bibliography':
      return (b.entries.length * 2 + 2) * line(st.fontSize);
  }
}

function plain(c: OInline[]): string {
  return c.map((n) => ('v' in n ? n.v : 'c' in n ? plain(n.c) : n.t === 'math' ? n.latex : '')).join('');
}
