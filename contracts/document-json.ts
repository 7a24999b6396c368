// The document model: the JSON Schema (TypeBox) of document JSON, its static types and its limits.
// Longer than 400 lines: the whole document model is one schema whose parts refer to each other; split by element, the limits and the shared field shapes would be spread over a dozen files.
import { Type, type Static, type TObject, type TSchema, type TUnion, type SchemaOptions } from '@sinclair/typebox';

/**
 * Every bound of the model in one place (the docs' limits table and the tests read it). The spec fixes
 * the first group; the rest are Quire's caps, chosen generously for real documents but so that no
 * single field of a request can grow without bound. The request body limit bounds the whole.
 */
export const DOCUMENT_LIMITS = {
  // From the spec.
  sections: 500,
  flowElements: 5000,
  pageElements: 200,
  citations: 1000,
  filenameLength: 100,
  titleLength: 200,
  authorLength: 100,
  subjectLength: 200,
  subtitleLength: 200,
  dateLength: 100,
  abstractLength: 2000,
  keywords: 10,
  keywordLength: 50,
  marginCm: 10,
  columns: 4,
  columnSpaceCm: 5,
  startYCm: 100,
  sectionIdLength: 100,
  // Quire's caps.
  anchorIdLength: 100,
  variables: 500,
  variableNameLength: 64,
  abbreviations: 1000,
  abbreviationLength: 500,
  headingLength: 1000,
  textLength: 50_000,
  captionLength: 2000,
  listItems: 1000,
  listDepth: 6,
  tableColumns: 50,
  tableRows: 10_000,
  cellLength: 10_000,
  urlLength: 2048,
  altLength: 2000,
  chartSeries: 50,
  chartPoints: 10_000,
  qrValueLength: 2000,
  barcodeValueLength: 80,
  codeLength: 200_000,
  latexLength: 10_000,
  spacerCm: 100,
  shortTextLength: 200,
  headerFooterLength: 500,
  cslFields: 100,
  /** Reusable blocks inside blocks (linked, or snapshot content inside snapshot content). */
  blockDepth: 5,
} as const;

const L = DOCUMENT_LIMITS;

// ---------------------------------------------------------------- building blocks

/**
 * A string enum as one `enum` keyword (TypeBox unions of literals become `anyOf`, whose errors read
 * worse and which OpenAPI shows less clearly).
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * A union of object schemas told apart by their `type` property. ajv (with `discriminator: true`)
 * validates only the branch the `type` names, so errors concern the element the client meant.
 */
export function DiscriminatedUnion<T extends TObject[]>(branches: [...T], options: SchemaOptions = {}) {
  return Type.Unsafe<Static<TUnion<T>>>({ ...options, type: 'object', oneOf: branches, discriminator: { propertyName: 'type' } });
}

/** A map whose keys match `keyPattern`; other keys are rejected. */
function KeyedMap<V extends TSchema>(keyPattern: string, value: V, options: SchemaOptions) {
  return Type.Unsafe<Record<string, Static<V>>>({ ...options, type: 'object', patternProperties: { [keyPattern]: value }, additionalProperties: false });
}

/** `x-pattern-hint` turns a pattern failure into a sentence (the validator reads it; OpenAPI keeps it as an extension). */
const hint = (text: string) => ({ 'x-pattern-hint': text });

export const ANCHOR_ID_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.:-]*$';
export const VARIABLE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$';
export const ABBREVIATION_KEY_PATTERN = '^[A-Za-z0-9_-]{1,32}$';
export const IMAGE_SRC_PATTERN = '^(/temp-image/[A-Za-z0-9_-]{1,100}|/image/[A-Za-z0-9_-]{1,100}|https://[^\\s/?#]+[^\\s]*)$';
const HEX_COLOR_PATTERN = '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$';
const PERCENT_PATTERN = '^(100(\\.0+)?|[0-9]{1,2}(\\.[0-9]+)?)%$';

const AnchorId = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: L.anchorIdLength,
    pattern: ANCHOR_ID_PATTERN,
    ...hint('must start with a letter, digit or _ and contain only letters, digits, _ . : -'),
    description: `Anchor id of the ${what}, unique in the document; link to it with [label](#id). Max ${L.anchorIdLength} chars.`,
  });

const VariableName = (description: string) =>
  Type.String({ pattern: VARIABLE_NAME_PATTERN, ...hint('must be a variable name: a letter or _, then letters, digits, _ . - (max 64 chars)'), description });

const HexColor = (description: string) => Type.String({ pattern: HEX_COLOR_PATTERN, ...hint('must be a hex color such as #1a2b3c or #abc'), description });

const TextAlign = StringEnum(['left', 'center', 'right', 'justify'] as const, { description: 'Horizontal alignment of the text.' });
const BlockAlign = StringEnum(['left', 'center', 'right'] as const, { description: 'Horizontal placement of the block.' });

const Caption = Type.String({ maxLength: L.captionLength, description: `Caption (inline markup); a captioned figure or table is numbered and listed in listOfFigures/listOfTables. Max ${L.captionLength} chars.` });
const ShortTitle = (description: string) => Type.String({ maxLength: L.shortTextLength, description: `${description} Max ${L.shortTextLength} chars.` });

/** A length: a number of centimetres, or a percentage of the available width (height: of the text area). */
const Length = (what: string) =>
  Type.Union(
    [
      Type.Number({ exclusiveMinimum: 0, maximum: 100, description: `${what} in cm (over 0, up to 100).` }),
      Type.String({ pattern: PERCENT_PATTERN, ...hint('must be a percentage from 0% to 100%, e.g. "50%"'), description: `${what} as a percentage, e.g. "50%".` }),
    ],
    { description: `${what}: a number of cm, or a percentage string such as "50%".` },
  );

const Obj = <P extends Parameters<typeof Type.Object>[0]>(properties: P, description: string) =>
  Type.Object(properties, { additionalProperties: false, description });

// ---------------------------------------------------------------- elements

export const HEADING_TYPES = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const;

export const HeadingElementSchema = Obj(
  {
    type: StringEnum(HEADING_TYPES, { description: 'Heading level h1 (top) to h6.' }),
    text: Type.String({ minLength: 1, maxLength: L.headingLength, description: `Heading text (inline markup). Max ${L.headingLength} chars.` }),
    id: Type.Optional(AnchorId('heading')),
    align: Type.Optional(TextAlign),
  },
  'A heading; appears in the toc element and the PDF outline.',
);
export type HeadingElement = Static<typeof HeadingElementSchema>;

export const TextStyleSchema = Obj(
  {
    bold: Type.Optional(Type.Boolean({ description: 'Whole paragraph bold.' })),
    italic: Type.Optional(Type.Boolean({ description: 'Whole paragraph italic.' })),
    fontSize: Type.Optional(Type.Number({ minimum: 4, maximum: 96, description: 'Font size in pt (4 to 96).' })),
    fontFamily: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Font family; one of the bundled or operator-installed fonts. Max 100 chars.' })),
    color: Type.Optional(HexColor('Text color.')),
  },
  'Style overrides for one paragraph; unset fields come from defaults.',
);
export type TextStyle = Static<typeof TextStyleSchema>;

export const TextElementSchema = Obj(
  {
    type: Type.Literal('text'),
    text: Type.String({
      maxLength: L.textLength,
      description: `Paragraph text with inline markup: **bold**, *italic*, \`code\`, [link](https://…), [label](#anchor), @[citeKey], ~ABBR~, ^[footnote], $math$, {{variable}}. Max ${L.textLength} chars.`,
    }),
    align: Type.Optional(TextAlign),
    style: Type.Optional(TextStyleSchema),
  },
  'A paragraph.',
);
export type TextElement = Static<typeof TextElementSchema>;

/** One item of a list: its text, or its text with a nested list. */
export type ListItem = string | { text: string; items?: ListItem[] };

const ListItemText = Type.String({ maxLength: L.cellLength, description: `Item text (inline markup). Max ${L.cellLength} chars.` });

/**
 * The nesting is unrolled to `listDepth` levels rather than written as a recursive `$ref`: the schema
 * stays self-contained for OpenAPI 3.0, and an item at the deepest level simply has no `items`
 * (the validator names that error as the depth limit).
 */
function listItemsAtLevel(level: number): TSchema {
  const itemObject: Record<string, TSchema> = { text: ListItemText };
  if (level < L.listDepth) itemObject.items = Type.Optional(listItemsAtLevel(level + 1));
  return Type.Array(
    Type.Union([ListItemText, Type.Object(itemObject, { additionalProperties: false, description: `An item with a nested list (level ${level}; lists nest at most ${L.listDepth} levels).` })]),
    { maxItems: L.listItems, description: `Items at level ${level}: strings, or {text, items} for an item with a sub-list. Max ${L.listItems} per list.` },
  );
}

export const ListItemsSchema = Type.Unsafe<ListItem[]>(listItemsAtLevel(1));

export const ListElementSchema = Obj(
  {
    type: Type.Literal('list'),
    ordered: Type.Optional(Type.Boolean({ default: false, description: 'Numbered (true) or bulleted (false, default).' })),
    start: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Number of the first item of an ordered list (default 1).' })),
    items: ListItemsSchema,
  },
  `A bulleted or numbered list, nested up to ${L.listDepth} levels.`,
);
export type ListElement = Static<typeof ListElementSchema>;

const CellText = Type.String({ maxLength: L.cellLength, description: `Cell text (inline markup). Max ${L.cellLength} chars.` });

export const TableCellObjectSchema = Obj(
  {
    text: CellText,
    colspan: Type.Optional(Type.Integer({ minimum: 1, maximum: L.tableColumns, description: 'Columns this cell spans (default 1).' })),
    rowspan: Type.Optional(Type.Integer({ minimum: 1, maximum: L.tableRows, description: 'Rows this cell spans (default 1).' })),
    align: Type.Optional(TextAlign),
  },
  'A cell with spans or its own alignment.',
);
export const TableCellSchema = Type.Union([CellText, Type.Number({ description: 'A number, printed as given.' }), TableCellObjectSchema], {
  description: 'A cell: a string, a number, or {text, colspan?, rowspan?, align?}.',
});
export type TableCell = Static<typeof TableCellSchema>;

const Cells = Type.Array(TableCellSchema, { maxItems: L.tableColumns, description: `The row's cells, left to right. Max ${L.tableColumns}.` });
export const TableRowSchema = Type.Union(
  [Cells, Obj({ cells: Cells, header: Type.Optional(Type.Boolean({ description: 'This row is a header row (repeated on every page the table spans).' })) }, 'A row with options.')],
  { description: 'A row: an array of cells, or {cells, header?}.' },
);
export type TableRow = Static<typeof TableRowSchema>;

export const TableColumnSchema = Obj(
  {
    width: Type.Optional(
      Type.Union(
        [
          Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Width in cm.' }),
          Type.String({ pattern: '^(auto|[0-9]{1,3}(\\.[0-9]+)?fr|(100(\\.0+)?|[0-9]{1,2}(\\.[0-9]+)?)%)$', ...hint('must be "auto", a fraction such as "2fr" or a percentage such as "30%"'), description: '"auto", a fraction ("2fr") or a percentage ("30%").' }),
        ],
        { description: 'Column width: cm as a number, or "auto", "2fr", "30%".' },
      ),
    ),
    align: Type.Optional(TextAlign),
  },
  'Width and alignment of one column.',
);
export type TableColumn = Static<typeof TableColumnSchema>;

export const TableElementSchema = Obj(
  {
    type: Type.Literal('table'),
    id: Type.Optional(AnchorId('table')),
    caption: Type.Optional(Caption),
    columns: Type.Optional(Type.Array(TableColumnSchema, { minItems: 1, maxItems: L.tableColumns, description: `Column settings; their number is the table's column count (otherwise the first row's width). Max ${L.tableColumns}.` })),
    headerRows: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'How many leading rows are header rows (default 0); rows marked header: true count too.' })),
    rows: Type.Optional(Type.Array(TableRowSchema, { maxItems: L.tableRows, description: `The rows. Give rows or rowsFrom, not both. Max ${L.tableRows}.` })),
    rowsFrom: Type.Optional(VariableName('Name of a table variable whose rows fill the table (its column names form the header row). Give rows or rowsFrom, not both.')),
    align: Type.Optional(BlockAlign),
  },
  'A table with header rows, column widths and alignment, spans and a caption, or rows from a table variable.',
);
export type TableElement = Static<typeof TableElementSchema>;

export const ImageElementSchema = Obj(
  {
    type: Type.Literal('image'),
    src: Type.String({
      maxLength: L.urlLength,
      pattern: IMAGE_SRC_PATTERN,
      ...hint('must be /temp-image/<id>, /image/<id> or an https:// URL'),
      description: `/temp-image/<id> (from POST /images/upload, valid 24 h), /image/<asset_id>, or an https:// URL fetched at render time. Max ${L.urlLength} chars.`,
    }),
    alt: Type.String({ maxLength: L.altLength, description: `Text alternative for readers who cannot see the image; "" marks a decorative image. Max ${L.altLength} chars.` }),
    width: Type.Optional(Length('Width')),
    height: Type.Optional(Length('Height')),
    caption: Type.Optional(Caption),
    id: Type.Optional(AnchorId('figure')),
    align: Type.Optional(BlockAlign),
  },
  'An image (PNG, JPEG, GIF, WebP, SVG). Without width and height it is shown at its natural size, scaled down to fit.',
);
export type ImageElement = Static<typeof ImageElementSchema>;

export const ChartPointSchema = Obj({ x: Type.Number({ description: 'x value.' }), y: Type.Number({ description: 'y value.' }) }, 'A point of a scatter or numeric-x chart.');
export const ChartSeriesSchema = Obj(
  {
    name: Type.String({ maxLength: L.shortTextLength, description: `Series name shown in the legend. Max ${L.shortTextLength} chars.` }),
    values: Type.Union(
      [
        Type.Array(Type.Number(), { maxItems: L.chartPoints, description: 'One value per label (or per index when there are no labels).' }),
        Type.Array(ChartPointSchema, { maxItems: L.chartPoints, description: '{x, y} points.' }),
      ],
      { description: `Numbers, or {x, y} points. Max ${L.chartPoints}.` },
    ),
    color: Type.Optional(HexColor('Series color (default: from the palette).')),
  },
  'One data series.',
);
export type ChartSeries = Static<typeof ChartSeriesSchema>;

export const ChartElementSchema = Obj(
  {
    type: Type.Literal('chart'),
    chartType: StringEnum(['bar', 'line', 'pie', 'area', 'scatter'] as const, { description: 'Kind of chart.' }),
    title: Type.Optional(ShortTitle('Title drawn above the chart.')),
    data: Obj(
      {
        labels: Type.Optional(Type.Array(Type.String({ maxLength: L.shortTextLength }), { maxItems: L.chartPoints, description: 'Category labels (x axis, or pie slices); as many as each series has values.' })),
        series: Type.Array(ChartSeriesSchema, { minItems: 1, maxItems: L.chartSeries, description: `Data series; a pie chart has exactly one. Max ${L.chartSeries}.` }),
      },
      'The data.',
    ),
    xLabel: Type.Optional(ShortTitle('x axis label.')),
    yLabel: Type.Optional(ShortTitle('y axis label.')),
    legend: Type.Optional(Type.Boolean({ description: 'Show a legend (default: when there is more than one series, or for pie charts).' })),
    caption: Type.Optional(Caption),
    id: Type.Optional(AnchorId('figure')),
    width: Type.Optional(Length('Width')),
    height: Type.Optional(Length('Height')),
    align: Type.Optional(BlockAlign),
  },
  'A chart drawn as vector graphics.',
);
export type ChartElement = Static<typeof ChartElementSchema>;

export const QrCodeElementSchema = Obj(
  {
    type: Type.Literal('qrCode'),
    value: Type.String({ minLength: 1, maxLength: L.qrValueLength, description: `Encoded text or URL. Max ${L.qrValueLength} chars.` }),
    size: Type.Optional(Type.Number({ minimum: 0.5, maximum: 30, description: 'Side length in cm (0.5 to 30; default 3).' })),
    caption: Type.Optional(Caption),
    align: Type.Optional(BlockAlign),
  },
  'A QR code drawn as vector graphics.',
);
export type QrCodeElement = Static<typeof QrCodeElementSchema>;

export const BARCODE_FORMATS = ['code128', 'ean13', 'ean8', 'upca', 'code39', 'itf14'] as const;
export const BarcodeElementSchema = Obj(
  {
    type: Type.Literal('barcode'),
    value: Type.String({ minLength: 1, maxLength: L.barcodeValueLength, description: `Encoded value; digits only for ean13 (12 or 13), ean8 (7 or 8), upca (11 or 12), itf14 (13 or 14); a given check digit must be right. Max ${L.barcodeValueLength} chars.` }),
    format: StringEnum(BARCODE_FORMATS, { description: 'Symbology.' }),
    showText: Type.Optional(Type.Boolean({ default: true, description: 'Print the value under the bars (default true).' })),
    height: Type.Optional(Type.Number({ minimum: 0.5, maximum: 10, description: 'Bar height in cm (0.5 to 10; default 1.5).' })),
    align: Type.Optional(BlockAlign),
  },
  'A one-dimensional barcode drawn as vector graphics.',
);
export type BarcodeElement = Static<typeof BarcodeElementSchema>;

export const CodeElementSchema = Obj(
  {
    type: Type.Literal('code'),
    code: Type.String({ maxLength: L.codeLength, description: `Source code, shown literally (no markup, no variable substitution). Max ${L.codeLength} chars.` }),
    language: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_+#.-]{1,40}$', ...hint('must be a language name such as typescript, c++ or c#'), description: 'Language for syntax highlighting, e.g. typescript, python, json.' })),
    caption: Type.Optional(Caption),
    lineNumbers: Type.Optional(Type.Boolean({ default: false, description: 'Number the lines (default false).' })),
    id: Type.Optional(AnchorId('listing')),
  },
  'A highlighted code block.',
);
export type CodeElement = Static<typeof CodeElementSchema>;

export const MathElementSchema = Obj(
  {
    type: Type.Literal('math'),
    latex: Type.String({ minLength: 1, maxLength: L.latexLength, description: `Equation in LaTeX math syntax, without surrounding $ or \\[ \\]. Max ${L.latexLength} chars.` }),
    display: Type.Optional(Type.Boolean({ default: true, description: 'Block equation (true, default) or inline-sized (false).' })),
    caption: Type.Optional(Caption),
    id: Type.Optional(AnchorId('equation')),
  },
  'A math equation.',
);
export type MathElement = Static<typeof MathElementSchema>;

export const QuoteElementSchema = Obj(
  {
    type: Type.Literal('quote'),
    text: Type.String({ maxLength: L.textLength, description: `Quoted text (inline markup). Max ${L.textLength} chars.` }),
    attribution: Type.Optional(Type.String({ maxLength: 500, description: 'Who said it (inline markup). Max 500 chars.' })),
    align: Type.Optional(TextAlign),
  },
  'A block quotation.',
);
export type QuoteElement = Static<typeof QuoteElementSchema>;

export const DividerElementSchema = Obj({ type: Type.Literal('divider') }, 'A horizontal rule.');
export type DividerElement = Static<typeof DividerElementSchema>;

export const PageBreakElementSchema = Obj({ type: Type.Literal('pageBreak') }, 'Continue on a new page.');
export type PageBreakElement = Static<typeof PageBreakElementSchema>;

export const SpacerElementSchema = Obj(
  { type: Type.Literal('spacer'), height: Type.Number({ minimum: 0, maximum: L.spacerCm, description: `Vertical space in cm (0 to ${L.spacerCm}).` }) },
  'Vertical space.',
);
export type SpacerElement = Static<typeof SpacerElementSchema>;

export const TocElementSchema = Obj(
  {
    type: Type.Literal('toc'),
    title: Type.Optional(ShortTitle('Title above the table of contents (default from the locale, e.g. "Contents").')),
    depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 6, description: 'Deepest heading level listed (1 to 6; default 3).' })),
  },
  'A table of contents with links to the headings.',
);
export type TocElement = Static<typeof TocElementSchema>;

export const ListOfFiguresElementSchema = Obj({ type: Type.Literal('listOfFigures'), title: Type.Optional(ShortTitle('Title (default from the locale).')) }, 'A list of the captioned images, charts and QR codes.');
export type ListOfFiguresElement = Static<typeof ListOfFiguresElementSchema>;

export const ListOfTablesElementSchema = Obj({ type: Type.Literal('listOfTables'), title: Type.Optional(ShortTitle('Title (default from the locale).')) }, 'A list of the captioned tables.');
export type ListOfTablesElement = Static<typeof ListOfTablesElementSchema>;

export const CITATION_STYLES = ['apa', 'ieee', 'chicago-author-date', 'harvard', 'vancouver'] as const;
export const CitationStyleSchema = StringEnum(CITATION_STYLES, { description: 'Citation style (CSL).' });

export const BibliographyElementSchema = Obj(
  {
    type: Type.Literal('bibliography'),
    title: Type.Optional(ShortTitle('Title (default from the locale, e.g. "References").')),
    style: Type.Optional(CitationStyleSchema),
  },
  'The list of cited works, in defaults.citationStyle unless style is given.',
);
export type BibliographyElement = Static<typeof BibliographyElementSchema>;

export const VariableRefElementSchema = Obj({ type: Type.Literal('variableRef'), name: VariableName('Name of the variable to render, by its kind: text and numbers as a paragraph, an image, a list or a table.') }, 'Renders one variable.');
export type VariableRefElement = Static<typeof VariableRefElementSchema>;

export const BlockRefElementSchema = Obj(
  {
    type: Type.Literal('blockRef'),
    blockId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', ...hint('must be a reusable block id'), description: 'Id of a reusable block of the organization.' }),
    mode: StringEnum(['linked', 'snapshot'] as const, { description: 'linked: always the block\'s current (or given) version; snapshot: an editable copy taken when inserted.' }),
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'Block version. linked: pinned to this version (default: the current one, resolved at every render); snapshot: the version to copy (default: the current one), and once saved the version the content was copied from.' })),
    content: Type.Optional(
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), {
        maxItems: L.flowElements,
        description: `snapshot only: the block's content as elements (like a section's content), copied from the block when the document is saved and edited freely afterwards; blockId and version say where it came from. Absent on a snapshot that is not saved yet. Max ${L.flowElements}; blocks nest at most ${L.blockDepth} deep.`,
      }),
    ),
  },
  'A reusable block of the organization: linked (resolved at render time) or snapshot (its content copied into the document when it is saved).',
);
export type BlockRefElement = Static<typeof BlockRefElementSchema>;

const ELEMENT_BRANCHES = [
  HeadingElementSchema,
  TextElementSchema,
  ListElementSchema,
  TableElementSchema,
  ImageElementSchema,
  ChartElementSchema,
  QrCodeElementSchema,
  BarcodeElementSchema,
  CodeElementSchema,
  MathElementSchema,
  QuoteElementSchema,
  DividerElementSchema,
  PageBreakElementSchema,
  SpacerElementSchema,
  TocElementSchema,
  ListOfFiguresElementSchema,
  ListOfTablesElementSchema,
  BibliographyElementSchema,
  VariableRefElementSchema,
  BlockRefElementSchema,
] as const;

export const ElementSchema = DiscriminatedUnion([...ELEMENT_BRANCHES], { description: 'One element of a section, chosen by its type.' });
export type Element = Static<typeof ElementSchema>;
export type ElementType = Element['type'];

/** Every element type name, in catalog order (read from the schema, so the two cannot drift apart). */
export const ELEMENT_TYPES: readonly ElementType[] = ELEMENT_BRANCHES.flatMap((branch) => {
  const tag = branch.properties.type as { const?: ElementType; enum?: ElementType[] };
  return tag.const !== undefined ? [tag.const] : (tag.enum ?? []);
});

/** Element types whose `id` is an anchor. */
export const ANCHORED_ELEMENT_TYPES: readonly ElementType[] = [...HEADING_TYPES, 'table', 'image', 'chart', 'code', 'math'];

// ---------------------------------------------------------------- sections

const SectionId = Type.String({
  minLength: 1,
  maxLength: L.sectionIdLength,
  pattern: ANCHOR_ID_PATTERN,
  ...hint('must start with a letter, digit or _ and contain only letters, digits, _ . : -'),
  description: `Anchor id of the section, unique in the document. Max ${L.sectionIdLength} chars.`,
});

export const ColumnsSchema = Obj(
  {
    count: Type.Integer({ minimum: 1, maximum: L.columns, description: `Number of columns (1 to ${L.columns}).` }),
    space: Type.Optional(Type.Number({ minimum: 0, maximum: L.columnSpaceCm, default: 1.27, description: `Gap between columns in cm (0 to ${L.columnSpaceCm}; default 1.27).` })),
    separate: Type.Optional(Type.Boolean({ default: false, description: 'Draw a line between columns (default false).' })),
  },
  'Multi-column layout of a flow section.',
);
export type Columns = Static<typeof ColumnsSchema>;

export const FlowSectionSchema = Obj(
  {
    type: Type.Literal('flow'),
    id: Type.Optional(SectionId),
    newPage: Type.Optional(Type.Boolean({ default: true, description: 'Start the section on a new page (default true).' })),
    columns: Type.Optional(ColumnsSchema),
    content: Type.Array(ElementSchema, { maxItems: L.flowElements, description: `The elements, flowing across as many pages as needed. Max ${L.flowElements}.` }),
  },
  'Content that flows across pages.',
);
export type FlowSection = Static<typeof FlowSectionSchema>;

export const PageSectionSchema = Obj(
  {
    type: Type.Literal('page'),
    id: Type.Optional(SectionId),
    align: Type.Optional(StringEnum(['top', 'center', 'bottom'] as const, { default: 'top', description: 'Vertical placement of the content on the page (default top).' })),
    startY: Type.Optional(Type.Number({ minimum: 0, maximum: L.startYCm, description: `Where the content starts, in cm below the top margin (0 to ${L.startYCm}); overrides align.` })),
    content: Type.Array(ElementSchema, { maxItems: L.pageElements, description: `The elements of this one page (a cover, a title page). Max ${L.pageElements}.` }),
  },
  'Exactly one page, e.g. a cover page.',
);
export type PageSection = Static<typeof PageSectionSchema>;

export const SectionSchema = DiscriminatedUnion([FlowSectionSchema, PageSectionSchema], { description: 'A flow section or a page section, chosen by its type.' });
export type Section = Static<typeof SectionSchema>;

// ---------------------------------------------------------------- document settings

export const PAGE_SIZES = ['A4', 'A3', 'A5', 'Letter', 'Legal'] as const;
const Margin = (side: string) => Type.Optional(Type.Number({ minimum: 0, maximum: L.marginCm, description: `${side} margin in cm (0 to ${L.marginCm}).` }));

export const DocumentSettingsSchema = Obj(
  {
    type: StringEnum(['pdf', 'docx', 'odt'] as const, { description: 'Output format.' }),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: L.filenameLength, pattern: '^[A-Za-z0-9_-]+$', ...hint('may contain only a-z A-Z 0-9 _ - (no extension)'), description: `Download filename without extension; a-z A-Z 0-9 _ - only. Max ${L.filenameLength} chars.` })),
    title: Type.Optional(Type.String({ maxLength: L.titleLength, description: `Title (document metadata). Max ${L.titleLength} chars.` })),
    subtitle: Type.Optional(Type.String({ maxLength: L.subtitleLength, description: `Subtitle (metadata; not printed). Max ${L.subtitleLength} chars.` })),
    author: Type.Optional(Type.String({ maxLength: L.authorLength, description: `Author (metadata). Max ${L.authorLength} chars.` })),
    subject: Type.Optional(Type.String({ maxLength: L.subjectLength, description: `Subject (metadata). Max ${L.subjectLength} chars.` })),
    keywords: Type.Optional(Type.Array(Type.String({ maxLength: L.keywordLength }), { maxItems: L.keywords, description: `Keywords (metadata). Max ${L.keywords} of ${L.keywordLength} chars.` })),
    date: Type.Optional(
      Type.String({
        maxLength: L.dateLength,
        description: `Date of the document, any text (metadata; not printed). An ISO date (2024-05-01, or 2024-05-01T10:30:00Z) becomes the PDF, DOCX and ODT creation date instead of the render's time. Max ${L.dateLength} chars.`,
      }),
    ),
    abstract: Type.Optional(Type.String({ maxLength: L.abstractLength, description: `Abstract (metadata; not printed): the description of DOCX and ODT, and of the PDF when there is no subject. Max ${L.abstractLength} chars.` })),
    size: Type.Optional(StringEnum(PAGE_SIZES, { default: 'A4', description: 'Paper size (default A4).' })),
    orientation: Type.Optional(StringEnum(['portrait', 'landscape'] as const, { default: 'portrait', description: 'Orientation (default portrait).' })),
    marginTop: Margin('Top'),
    marginRight: Margin('Right'),
    marginBottom: Margin('Bottom'),
    marginLeft: Margin('Left'),
  },
  'Output format, metadata and page settings.',
);
export type DocumentSettings = Static<typeof DocumentSettingsSchema>;

// ---------------------------------------------------------------- variables

export const ImageVariableSchema = Obj(
  {
    type: Type.Literal('image'),
    src: ImageElementSchema.properties.src,
    alt: Type.Optional(Type.String({ maxLength: L.altLength, description: `Text alternative. Max ${L.altLength} chars.` })),
    width: Type.Optional(Length('Width')),
    height: Type.Optional(Length('Height')),
  },
  'An image variable.',
);
export type ImageVariable = Static<typeof ImageVariableSchema>;

export const ListVariableSchema = Obj(
  {
    type: Type.Literal('list'),
    items: Type.Array(Type.String({ maxLength: L.cellLength }), { maxItems: L.listItems, description: `Item texts (plain text). Max ${L.listItems}.` }),
    ordered: Type.Optional(Type.Boolean({ default: false, description: 'Numbered (true) or bulleted (false, default).' })),
  },
  'A list variable.',
);
export type ListVariable = Static<typeof ListVariableSchema>;

export const TableVariableSchema = Obj(
  {
    type: Type.Literal('table'),
    columns: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: L.shortTextLength }), { minItems: 1, maxItems: L.tableColumns, description: `Column names, in order; default the keys of the first row. Max ${L.tableColumns}.` })),
    rows: Type.Array(
      Type.Record(Type.String(), Type.Union([Type.String({ maxLength: L.cellLength }), Type.Number()]), { maxProperties: L.tableColumns, description: 'One row: column name → value.' }),
      { maxItems: L.tableRows, description: `The rows. Max ${L.tableRows}.` },
    ),
  },
  'A table variable (for table.rowsFrom and variableRef).',
);
export type TableVariable = Static<typeof TableVariableSchema>;

export const VariableValueSchema = Type.Union(
  [
    Type.String({ maxLength: L.textLength, description: `Text (inserted as plain text, not markup). Max ${L.textLength} chars.` }),
    Type.Number({ description: 'A number.' }),
    DiscriminatedUnion([ImageVariableSchema, ListVariableSchema, TableVariableSchema], { description: 'An image, list or table variable.' }),
  ],
  { description: 'A variable: text, number, image, list or table.' },
);
export type VariableValue = Static<typeof VariableValueSchema>;

export const VariablesSchema = KeyedMap(VARIABLE_NAME_PATTERN, VariableValueSchema, {
  maxProperties: L.variables,
  description: `Values for {{name}} / \${name} in text and for variableRef elements. Names: a letter or _, then letters, digits, _ . - (max 64). Max ${L.variables} variables.`,
});
export type Variables = Static<typeof VariablesSchema>;

// ---------------------------------------------------------------- abbreviations and citations

export const AbbreviationsSchema = KeyedMap(ABBREVIATION_KEY_PATTERN, Type.String({ minLength: 1, maxLength: L.abbreviationLength, description: `Full text. Max ${L.abbreviationLength} chars.` }), {
  maxProperties: L.abbreviations,
  description: `Short form (1 to 32 of A-Z a-z 0-9 _ -) → full text, used as ~KEY~ in text. Max ${L.abbreviations}.`,
});
export type Abbreviations = Static<typeof AbbreviationsSchema>;

export const CSL_TYPES = [
  'article', 'article-journal', 'article-magazine', 'article-newspaper', 'bill', 'book', 'broadcast', 'chapter', 'classic', 'collection', 'dataset', 'document',
  'entry', 'entry-dictionary', 'entry-encyclopedia', 'event', 'figure', 'graphic', 'hearing', 'interview', 'legal_case', 'legislation', 'manuscript', 'map',
  'motion_picture', 'musical_score', 'pamphlet', 'paper-conference', 'patent', 'performance', 'periodical', 'personal_communication', 'post', 'post-weblog',
  'regulation', 'report', 'review', 'review-book', 'software', 'song', 'speech', 'standard', 'thesis', 'treaty', 'webpage',
] as const;

const CslName = Type.Object(
  {
    family: Type.Optional(Type.String({ maxLength: 200 })),
    given: Type.Optional(Type.String({ maxLength: 200 })),
    literal: Type.Optional(Type.String({ maxLength: 500, description: 'A name that is not split, e.g. an organization.' })),
  },
  { additionalProperties: true, description: 'A CSL name.' },
);
const CslNames = Type.Array(CslName, { maxItems: 100 });

/** CSL-JSON is an open format: the common fields are checked, any other CSL field is passed through. */
const CslItemObject = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\s,;\\[\\]]+$', ...hint('must be a citation key without spaces, commas, semicolons or brackets'), description: 'Citation key, cited in text as @[id].' }),
    type: StringEnum(CSL_TYPES, { description: 'CSL item type.' }),
    title: Type.Optional(Type.String({ maxLength: 2000 })),
    author: Type.Optional(CslNames),
    editor: Type.Optional(CslNames),
    issued: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'CSL date, e.g. {"date-parts": [[2024, 5]]}.' })),
  },
  { additionalProperties: true, maxProperties: L.cslFields, description: `A CSL-JSON item; other CSL fields (container-title, DOI, URL, publisher, page, volume, …) are allowed. Max ${L.cslFields} fields.` },
);
export type CslItem = Static<typeof CslItemObject> & { [cslField: string]: unknown };
export const CslItemSchema = Type.Unsafe<CslItem>(CslItemObject);

// ---------------------------------------------------------------- defaults

const FontSize = (what: string) => Type.Number({ minimum: 4, maximum: 96, description: `${what} in pt (4 to 96).` });
const Spacing = (what: string) => Type.Number({ minimum: 0, maximum: 200, description: `${what} in pt (0 to 200).` });

export const HeadingStyleSchema = Obj(
  {
    size: Type.Optional(FontSize('Font size')),
    weight: Type.Optional(StringEnum(['normal', 'bold'] as const, { description: 'Font weight.' })),
    color: Type.Optional(HexColor('Text color.')),
    spacingBefore: Type.Optional(Spacing('Space above')),
    spacingAfter: Type.Optional(Spacing('Space below')),
  },
  'Style of one heading level.',
);
export type HeadingStyle = Static<typeof HeadingStyleSchema>;

export const HeaderFooterSchema = Obj(
  {
    text: Type.String({ maxLength: L.headerFooterLength, description: `Text on every page; {{page}} and {{pages}} become the page number and count; other {{variables}} are substituted. Max ${L.headerFooterLength} chars.` }),
    align: Type.Optional(BlockAlign),
    skipFirstPage: Type.Optional(Type.Boolean({ default: false, description: 'Leave the first page without it (default false).' })),
  },
  'A running header or footer.',
);
export type HeaderFooter = Static<typeof HeaderFooterSchema>;

export const DefaultsSchema = Obj(
  {
    fonts: Type.Optional(
      Obj(
        {
          family: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Body font family (bundled: a sans, a serif and a mono family; or an operator-installed font).' })),
          size: Type.Optional(FontSize('Body font size')),
          color: Type.Optional(HexColor('Body text color.')),
        },
        'Body font.',
      ),
    ),
    headings: Type.Optional(
      Obj(
        {
          h1: Type.Optional(HeadingStyleSchema),
          h2: Type.Optional(HeadingStyleSchema),
          h3: Type.Optional(HeadingStyleSchema),
          h4: Type.Optional(HeadingStyleSchema),
          h5: Type.Optional(HeadingStyleSchema),
          h6: Type.Optional(HeadingStyleSchema),
        },
        'Styles per heading level.',
      ),
    ),
    paragraph: Type.Optional(
      Obj(
        {
          spacingBefore: Type.Optional(Spacing('Space above a paragraph')),
          spacingAfter: Type.Optional(Spacing('Space below a paragraph')),
          lineHeight: Type.Optional(Type.Number({ minimum: 0.5, maximum: 4, description: 'Line height as a multiple of the font size (0.5 to 4).' })),
        },
        'Paragraph spacing.',
      ),
    ),
    colors: Type.Optional(
      Obj(
        {
          primary: Type.Optional(HexColor('Headings, links and chart series.')),
          text: Type.Optional(HexColor('Body text.')),
          muted: Type.Optional(HexColor('Captions, header and footer.')),
          accent: Type.Optional(HexColor('Rules and highlights.')),
        },
        'Color palette.',
      ),
    ),
    table: Type.Optional(
      Obj(
        {
          headerBackground: Type.Optional(HexColor('Header row background.')),
          headerColor: Type.Optional(HexColor('Header row text color.')),
          borderColor: Type.Optional(HexColor('Cell border color.')),
          stripe: Type.Optional(Type.Boolean({ description: 'Shade every other body row.' })),
          stripeColor: Type.Optional(HexColor('Background of shaded rows.')),
        },
        'Table styling.',
      ),
    ),
    header: Type.Optional(HeaderFooterSchema),
    footer: Type.Optional(HeaderFooterSchema),
    citationStyle: Type.Optional(CitationStyleSchema),
    locale: Type.Optional(
      Type.String({
        maxLength: 35,
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$',
        ...hint('must be a BCP 47 language tag such as en, en-US, de-CH or sr-Latn'),
        description: 'Language of the document (BCP 47, e.g. en-US): hyphenation, quotes, default titles.',
      }),
    ),
  },
  'Global styling; a stylePresetId on the request is applied first, these override it.',
);
export type Defaults = Static<typeof DefaultsSchema>;

// ---------------------------------------------------------------- the document

export const DocumentJsonSchema = Obj(
  {
    document: DocumentSettingsSchema,
    sections: Type.Array(SectionSchema, { maxItems: L.sections, description: `The sections, in order. 0 to ${L.sections}.` }),
    variables: Type.Optional(VariablesSchema),
    abbreviations: Type.Optional(AbbreviationsSchema),
    citations: Type.Optional(Type.Array(CslItemSchema, { maxItems: L.citations, description: `CSL-JSON items cited as @[id]. Max ${L.citations}.` })),
    defaults: Type.Optional(DefaultsSchema),
  },
  'A document to render.',
);
export type DocumentJson = Static<typeof DocumentJsonSchema>;
