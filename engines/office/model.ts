// The resolved document the office targets (DOCX, ODT) write: what is left of document JSON once every
// question that does not depend on the file format has been answered — inline markup parsed, variables
// and abbreviations resolved, citations and the bibliography formatted with CSL, captions numbered,
// LaTeX converted to MathML, code highlighted, charts/QR codes/barcodes rasterised, image sizes known.
// `resolveDocument` (resolve.ts) builds it; docx-writer.ts and odt-writer.ts only translate it.

/** Inline content. Formatting nests (strong inside a link, …); writers flatten it into runs. */
export type OInline =
  | { t: 'text'; v: string }
  | { t: 'strong'; c: OInline[] }
  | { t: 'emph'; c: OInline[] }
  | { t: 'code'; v: string }
  /** An external hyperlink (https:, http:, mailto:). */
  | { t: 'link'; url: string; c: OInline[] }
  /** An internal link to the bookmark `id` (a heading, figure, table, equation, listing or section). */
  | { t: 'ref'; id: string; c: OInline[] }
  /** A footnote at this point; `c` is its text (writers number footnotes in order). */
  | { t: 'footnote'; c: OInline[] }
  /** Inline math; `mathml` is a complete `<math xmlns="http://www.w3.org/1998/Math/MathML">` element. */
  | { t: 'math'; mathml: string; latex: string }
  /** A formatted citation (e.g. "(Smith, 2020, p. 12)" or "[1]"), already styled by CSL; `c` may hold emphasis. */
  | { t: 'cite'; c: OInline[] }
  | { t: 'br' };

/** A caption: "Figure 3: …" — `label` is the localized word ("Figure", "Table", "Listing", "Equation"). */
export interface Caption {
  label: string;
  number: number;
  /** What the PDF prints between the number and the text, by language (": ", French ". – "); absent means ": ". */
  separator?: string;
  c: OInline[];
}

export type BlockAlign = 'left' | 'center' | 'right';
export type TextAlign = BlockAlign | 'justify';

export interface ParStyle {
  bold?: boolean;
  italic?: boolean;
  /** pt */
  fontSize?: number;
  fontFamily?: string;
  /** #RRGGBB */
  color?: string;
}

export interface ListItemBlock {
  c: OInline[];
  items?: ListItemBlock[];
}

export interface TableCellBlock {
  c: OInline[];
  colspan: number;
  rowspan: number;
  align: TextAlign | null;
}

/** A picture: a user image, or a chart/QR code/barcode rasterised from the SVG the PDF draws. */
export interface Picture {
  /** PNG, JPEG or GIF bytes (WebP and SVG images are converted to PNG by the resolver). */
  bytes: Uint8Array;
  mimeType: 'image/png' | 'image/jpeg' | 'image/gif';
  /** Pixel size of `bytes`. */
  pixelWidth: number;
  pixelHeight: number;
  /** Size on the page in cm, already fitted to the text width and keeping the aspect ratio. */
  widthCm: number;
  heightCm: number;
  /** Text alternative ("" = decorative). */
  alt: string;
}

export type Block =
  | { t: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; c: OInline[]; id: string | null; align: TextAlign | null }
  | { t: 'par'; c: OInline[]; align: TextAlign | null; style: ParStyle | null }
  | { t: 'list'; ordered: boolean; start: number; items: ListItemBlock[] }
  | {
      t: 'table';
      rows: TableCellBlock[][];
      /** Number of leading header rows (repeated on every page). */
      header: number;
      /**
       * One entry per grid column: its width as a fraction of the available width (the text width, or the
       * column of a multi-column section), or null for auto. The fractions sum to 1 when the table spans the
       * width (fr, % or mixed columns), to less for a table of cm columns narrower than the text; either all
       * entries are numbers or all are null (an all-auto table: let the application fit it).
       */
      widths: Array<number | null>;
      aligns: Array<TextAlign | null>;
      caption: Caption | null;
      id: string | null;
      align: BlockAlign | null;
    }
  | { t: 'image'; picture: Picture; caption: Caption | null; id: string | null; align: BlockAlign }
  | {
      t: 'code';
      /** One entry per source line; each line a list of highlighted tokens (color #RRGGBB or null). */
      lines: Array<Array<{ v: string; color: string | null; bold: boolean; italic: boolean }>>;
      lang: string | null;
      lineNumbers: boolean;
      caption: Caption | null;
      id: string | null;
    }
  | {
      t: 'math';
      mathml: string;
      latex: string;
      display: boolean;
      caption: Caption | null;
      id: string | null;
      /** The PDF's equation number, printed "(n)" at the right: display equations with an id are numbered. */
      number?: number;
    }
  | { t: 'quote'; c: OInline[]; attribution: OInline[] | null; align: TextAlign | null }
  | { t: 'divider' }
  | { t: 'pagebreak' }
  /** Vertical space in cm. */
  | { t: 'spacer'; heightCm: number }
  /** A table of contents field (Word/LibreOffice fill it; `entries` is the pre-computed content to show before an update). */
  | { t: 'toc'; title: string; depth: number; entries: Array<{ level: number; text: string; id: string }> }
  /** List of figures or tables: `entries` are the captions in order, linking to their bookmarks. */
  | { t: 'lof' | 'lot'; title: string; entries: Array<{ text: string; id: string }> }
  /** The formatted bibliography entries (CSL), in the style's order. */
  /** `id` bookmarks the title, a level-1 heading as in the PDF, so the table of contents lists it. */
  | { t: 'bibliography'; title: string; entries: OInline[][]; id: string };

export interface FlowSection {
  kind: 'flow';
  id: string | null;
  newPage: boolean;
  columns: { count: number; spaceCm: number; separate: boolean } | null;
  content: Block[];
}

export interface PageSection {
  kind: 'page';
  id: string | null;
  align: 'top' | 'center' | 'bottom';
  /** cm from the top margin, when the section starts at a fixed height. */
  startY: number | null;
  content: Block[];
}

export type OfficeSection = FlowSection | PageSection;

/** A running header or footer: text parts and page-number fields. */
export interface Furniture {
  parts: Array<{ t: 'text'; v: string } | { t: 'page' } | { t: 'pages' }>;
  align: BlockAlign;
  skipFirstPage: boolean;
}

export interface HeadingStyle {
  /** pt */
  size: number;
  bold: boolean;
  color: string;
  /** pt */
  spaceBefore: number;
  spaceAfter: number;
}

export interface OfficeDocument {
  meta: { title: string | null; author: string | null; subject: string | null; description: string | null; keywords: string[]; created: string };
  /** BCP 47, e.g. en-US */
  locale: string;
  page: {
    /** cm, already swapped for landscape */
    widthCm: number;
    heightCm: number;
    landscape: boolean;
    margins: { topCm: number; rightCm: number; bottomCm: number; leftCm: number };
  };
  styles: {
    /** Font family names, first choice first. */
    bodyFont: string;
    monoFont: string;
    /** For Chinese, Japanese and Korean text (w:eastAsia, style:font-name-asian): the body font unless the document has CJK. */
    asianFont: string;
    /** For Arabic, Hebrew, Thai, Devanagari text (w:cs, style:font-name-complex): the body font unless the document has one. */
    complexFont: string;
    /** pt */
    fontSize: number;
    /** multiple of the font size */
    lineHeight: number;
    /** pt */
    spaceBefore: number;
    spaceAfter: number;
    colors: { primary: string; text: string; muted: string; accent: string };
    headings: HeadingStyle[];
    table: { headerBackground: string; headerColor: string | null; borderColor: string; stripe: boolean; stripeColor: string };
  };
  header: Furniture | null;
  footer: Furniture | null;
  sections: OfficeSection[];
  /** Non-blocking notes for the job's warnings (e.g. an equation that could not be converted). */
  warnings: Array<{ path: string; message: string; code: string }>;
}
