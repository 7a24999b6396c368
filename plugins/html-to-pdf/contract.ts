// Request and result schemas of convert.html-to-pdf; they drive validation, the worker's types and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';

/** Paper sizes Chromium knows by name (puppeteer's `PaperFormat`), spelled as clients usually write them. */
export const PAPER_FORMATS = ['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'] as const;

/** A plain JSON Schema `enum` (not TypeBox's anyOf of literals), so a wrong value gets one error listing the choices. */
const StringEnum = <T extends readonly string[]>(values: T, options: { default: T[number]; description: string }) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** Upper bound of one header or footer template; data: images inside them are the large part. */
const MAX_TEMPLATE_CHARS = 1_000_000;

const Length = (side: string) =>
  Type.String({
    pattern: '^[0-9]{1,4}(\\.[0-9]{1,4})?(mm|cm|in|px)$',
    patternHint: 'must be a number followed by mm, cm, in or px, e.g. "12.5mm" or "0.5in"',
    description: `The ${side} margin: a number with the unit \`mm\`, \`cm\`, \`in\` or \`px\` (1/96 in), e.g. \`"12.5mm"\`. Default \`"1cm"\`.`,
  });

const Margin = Type.Object(
  { top: Type.Optional(Length('top')), right: Type.Optional(Length('right')), bottom: Type.Optional(Length('bottom')), left: Type.Optional(Length('left')) },
  {
    additionalProperties: false,
    description: 'Page margins; a side left out is 1cm. The header and footer are drawn inside the top and bottom margins, so make those large enough to hold them.',
  },
);

const Template = (which: 'header' | 'footer') =>
  Type.String({
    maxLength: MAX_TEMPLATE_CHARS,
    description:
      `HTML repeated at the ${which === 'header' ? 'top' : 'bottom'} of every page, inside the ${which === 'header' ? 'top' : 'bottom'} margin. It does not inherit the document's styles: ` +
      'give it inline styles (a font-size; the default is tiny). Elements with the class `pageNumber`, `totalPages`, `date`, `title` or `url` are filled in by Chromium; ' +
      '`{{page}}`, `{{pages}}`, `{{date}}`, `{{title}}` and `{{url}}` are shorthands for them. Images must be `data:` URLs; nothing is fetched for a template.',
  });

const HtmlToPdfInput = Type.Object(
  {
    fileId: Type.String({ format: 'uuid', description: 'Id of the uploaded HTML file (from POST /tools/files/upload; detected as `text/html`, at most 50 MB).' }),
    margin: Type.Optional(Margin),
    headerTemplate: Type.Optional(Template('header')),
    footerTemplate: Type.Optional(Template('footer')),
    emulatedMediaType: Type.Optional(
      StringEnum(['print', 'screen'] as const, {
        default: 'print',
        description: 'CSS media type the page is laid out for: `print` (default) applies `@media print` rules, `screen` applies `@media screen` rules.',
      }),
    ),
    preferCssPageSize: Type.Optional(
      Type.Boolean({ default: false, description: 'When true, a CSS `@page { size: … }` rule of the document sets the page size and `format` and `landscape` are ignored.' }),
    ),
    format: Type.Optional(StringEnum(PAPER_FORMATS, { default: 'A4', description: 'Paper size: A0–A6, Letter, Legal, Tabloid or Ledger. Default A4.' })),
    landscape: Type.Optional(Type.Boolean({ default: false, description: 'Turn the paper sideways (default false: portrait).' })),
  },
  { additionalProperties: false, description: 'Print an uploaded HTML file to PDF with headless Chromium.' },
);

const RequestNote = Type.Object(
  {
    url: Type.String({ description: 'The URL the page asked for (cut at 500 characters).' }),
    reason: Type.String({ description: 'Why it was not loaded.' }),
  },
  { additionalProperties: false },
);

const HtmlToPdfResult = Type.Object(
  {
    subresources: Type.Object(
      {
        loaded: Type.Integer({ minimum: 0, description: 'Requests of the page (stylesheets, fonts, images, frames, fetch/XHR, redirect hops) answered through the outbound URL policy.' }),
        refused: Type.Integer({ minimum: 0, description: 'Requests refused: the policy refused the destination, the scheme or method is not allowed, or a limit was reached.' }),
        failed: Type.Integer({ minimum: 0, description: 'Allowed requests that failed: unreachable, timed out, or larger than the per-resource limit.' }),
      },
      { additionalProperties: false },
    ),
    refused: Type.Array(RequestNote, { description: 'The first 50 refused requests.' }),
    failed: Type.Array(RequestNote, { description: 'The first 50 failed requests.' }),
  },
  { additionalProperties: false },
);

export const contract = {
  'convert.html-to-pdf': { input: HtmlToPdfInput, result: HtmlToPdfResult },
};

export type HtmlToPdfParams = Static<typeof HtmlToPdfInput>;
export type HtmlToPdfResultBody = Static<typeof HtmlToPdfResult>;
export type PaperFormat = (typeof PAPER_FORMATS)[number];
