// The request's page settings as Chromium print options, and the header/footer shorthand tokens.
import type { PDFOptions } from 'puppeteer-core';
import type { HtmlToPdfParams } from './contract.js';

export const DEFAULT_MARGIN = '1cm';

/** `{{page}}` and friends → the elements Chromium fills in while printing each page. */
const TOKENS: Record<string, string> = {
  page: '<span class="pageNumber"></span>',
  pages: '<span class="totalPages"></span>',
  date: '<span class="date"></span>',
  title: '<span class="title"></span>',
  url: '<span class="url"></span>',
};

/**
 * Replaces the shorthand tokens (`{{page}}`, `{{ pages }}`, …); anything else between braces is left as written.
 * Only fixed markup is inserted, and the template itself is the caller's HTML: there is nothing to escape.
 */
export function expandTokens(template: string): string {
  return template.replace(/\{\{\s*(page|pages|date|title|url)\s*\}\}/g, (_, name: string) => TOKENS[name]!);
}

/**
 * Chromium prints its own default header (date and title) and footer (URL and page numbers) for a template left
 * empty; a request that sets only one of them (or sends one as "") gets an empty other one.
 */
const EMPTY_TEMPLATE = '<span></span>';

export function pdfOptions(params: HtmlToPdfParams, timeoutMs: number): PDFOptions {
  const margin = params.margin ?? {};
  const header = params.headerTemplate;
  const footer = params.footerTemplate;
  const headerFooter = header !== undefined || footer !== undefined;
  return {
    // Lower case is what puppeteer's paper table holds.
    format: (params.format ?? 'A4').toLowerCase() as PDFOptions['format'],
    landscape: params.landscape ?? false,
    preferCSSPageSize: params.preferCssPageSize ?? false,
    printBackground: true,
    margin: {
      top: margin.top ?? DEFAULT_MARGIN,
      right: margin.right ?? DEFAULT_MARGIN,
      bottom: margin.bottom ?? DEFAULT_MARGIN,
      left: margin.left ?? DEFAULT_MARGIN,
    },
    displayHeaderFooter: headerFooter,
    ...(headerFooter ? { headerTemplate: header ? expandTokens(header) : EMPTY_TEMPLATE, footerTemplate: footer ? expandTokens(footer) : EMPTY_TEMPLATE } : {}),
    timeout: timeoutMs,
  };
}
