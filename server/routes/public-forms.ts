// The public form pages (/f/{formId}?token=…): no API key, HTML for people. The page, its post (CSRF pair, honeypot,
// per-form rate limit, body limits, server-side checks), the live preview, the receipt with the render's state and
// its download; every failure is a page of its own (404, 410, 413, 429, 500), never a stack trace.
import type { ServerResponse } from 'node:http';
import { FormLinkError } from '../../services/forms/form-service.js';
import { checkSubmission, DEFAULT_MAX_ITEMS, rawTableRows, type RawSubmission } from '../../services/forms/form-values.js';
import { HttpError } from '../../contracts/errors.js';
import type { DocumentRecord, FilloutRecord, FormRecord } from '../../kernel/model.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { FORM_ASSETS } from '../forms-page/assets.js';
import { BodyRefused, FORM_BODY_LIMITS, readFormBody } from '../forms-page/body.js';
import { formPage, messagePage, receiptPage } from '../forms-page/page.js';
import { renderPreview } from '../forms-page/preview.js';
import type { FormRateLimits } from '../forms-page/rate-limits.js';
import { csrfCookieOf, csrfField, csrfMatches, csrfSetCookie, newCsrfCookie, receiptMatches, receiptOf } from '../forms-page/signatures.js';
import { acceptedLocale, pageStrings, type PageStrings } from '../forms-page/strings.js';
import type { SafeHtml } from '../forms-page/html.js';

/** Scripts, styles and fetches (the preview, the receipt's status) from this server only, no framing, forms posting back here only. */
const CSP = "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' blob: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function securityHeaders(res: ServerResponse): void {
  res.setHeader('Cache-Control', 'no-store');
  // The link's token is in the URL: it must not travel on in a Referer.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Frame-Options', 'DENY');
}

function sendPage(res: ServerResponse, status: number, markup: SafeHtml, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.destroy();
  securityHeaders(res);
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(markup.text);
}

const enc = encodeURIComponent;
const formUrl = (formId: string, token: string) => `/f/${enc(formId)}?token=${enc(token)}`;
const recordBase = (formId: string, recordId: string) => `/f/${enc(formId)}/r/${enc(recordId)}`;

/** A page thrown as an answer: the status, the page, its headers. */
class PageAnswer extends Error {
  constructor(
    readonly status: number,
    readonly markup: SafeHtml,
    readonly headers: Record<string, string> = {},
  ) {
    super(`page ${status}`);
  }
}

function visitorStrings(ctx: RouteContext): PageStrings {
  return pageStrings(acceptedLocale(ctx.req.headers['accept-language']));
}

/** The link's form and document, or the 404/410 page (in the visitor's language: the form may not be known). */
async function openForm(ctx: RouteContext): Promise<{ form: FormRecord; document: DocumentRecord; token: string; strings: PageStrings }> {
  const token = ctx.query.get('token');
  try {
    const { form, document } = await ctx.services.forms.openPublic(ctx.params.formId!, token);
    return { form, document, token: token!, strings: pageStrings(form.locale, form.labels) };
  } catch (err) {
    if (!(err instanceof FormLinkError)) throw err;
    const s = visitorStrings(ctx);
    if (err.status === 404) throw new PageAnswer(404, messagePage(s, s.t('error.notFoundTitle'), s.t('error.notFound')));
    const why = err.reason === 'revoked' ? 'error.revoked' : err.reason === 'expired' ? 'error.expired' : 'error.documentDeleted';
    throw new PageAnswer(410, messagePage(s, s.t('error.goneTitle'), s.t(why)));
  }
}

/** Reads what is left of a request's body, dropping it; false when more than `maxBytes` came (the caller closes the connection). */
function drain(req: RouteContext['req'], maxBytes: number): Promise<boolean> {
  if (req.complete || req.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    let size = 0;
    const done = (ok: boolean) => {
      req.off('data', onData);
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) done(false);
    };
    req.on('data', onData);
    req.once('end', () => done(true));
    req.once('close', () => done(true));
    req.resume();
  });
}

/** Every handler answers with a page, whatever happens. */
function page(handler: (ctx: RouteContext) => Promise<void>): (ctx: RouteContext) => Promise<void> {
  return async (ctx) => {
    try {
      await handler(ctx);
    } catch (err) {
      if (!ctx.req.complete) ctx.req.resume();
      if (err instanceof PageAnswer) return sendPage(ctx.res, err.status, err.markup, err.headers);
      const s = visitorStrings(ctx);
      if (err instanceof BodyRefused) {
        ctx.log.info({ status: err.status, reason: err.message }, 'public form body refused');
        const [title, text] = err.status === 413 ? [s.t('error.tooLargeTitle'), s.t('error.tooLarge')] : [s.t('error.rejectedTitle'), s.t('error.rejected')];
        // The rest of the body is read and dropped first, so the client gets to read the page; past a bound, the connection goes.
        const drained = await drain(ctx.req, 2 * FORM_BODY_LIMITS.totalBytes);
        return sendPage(ctx.res, err.status, messagePage(s, title, text), drained ? {} : { Connection: 'close' });
      }
      ctx.log.error({ err, path: ctx.req.url?.split('?')[0] }, 'public form page failed');
      sendPage(ctx.res, 500, messagePage(s, s.t('error.serverTitle'), s.t('error.server', { requestId: ctx.requestId })));
    }
  };
}

/** Browsers say where a request came from; a post from another site is refused before its body is read. */
function refuseCrossSite(ctx: RouteContext, strings: PageStrings, token: string): void {
  if (ctx.req.headers['sec-fetch-site'] === 'cross-site') throw csrfPage(ctx, strings, token);
}

function csrfPage(ctx: RouteContext, strings: PageStrings, token: string): PageAnswer {
  return new PageAnswer(403, messagePage(strings, strings.t('error.csrfTitle'), strings.t('error.csrf'), { href: formUrl(ctx.params.formId!, token), text: strings.t('error.reload') }));
}

/** The CSRF cookie this visitor has (set now when missing), and the hidden field that goes with it. */
function csrfFor(ctx: RouteContext, formId: string): string {
  let cookie = csrfCookieOf(ctx.req.headers.cookie);
  if (!cookie) {
    cookie = newCsrfCookie();
    ctx.res.setHeader('Set-Cookie', csrfSetCookie(formId, cookie, ctx.kernel.config.publicUrl.startsWith('https:')));
  }
  return csrfField(ctx.kernel.secret, formId, cookie);
}

function imageLimits(ctx: RouteContext) {
  return { maxPixels: ctx.kernel.config.maxImagePixels, maxSide: ctx.kernel.config.maxImageSide };
}

/** Reads the post and checks its CSRF pair and honeypot; a post without the cookie is refused before its body is read. */
async function readPost(ctx: RouteContext, form: FormRecord, strings: PageStrings, token: string): Promise<RawSubmission> {
  refuseCrossSite(ctx, strings, token);
  const cookie = csrfCookieOf(ctx.req.headers.cookie);
  if (!cookie) throw csrfPage(ctx, strings, token);
  const raw = await readFormBody(ctx.req);
  if (!csrfMatches(ctx.kernel.secret, form.id, cookie, raw.fields.get('_csrf')?.[0])) throw csrfPage(ctx, strings, token);
  if ((raw.fields.get('website') ?? []).some((v) => v !== '')) {
    ctx.log.info({ formId: form.id }, 'public form honeypot filled; nothing stored');
    throw new PageAnswer(400, messagePage(strings, strings.t('error.rejectedTitle'), strings.t('error.rejected')));
  }
  return raw;
}

function rateLimited(strings: PageStrings, retryAfter: number): PageAnswer {
  return new PageAnswer(429, messagePage(strings, strings.t('error.rateLimitedTitle'), strings.t('error.rateLimited', { seconds: retryAfter })), { 'Retry-After': String(retryAfter) });
}

/** A table row more or less, for the buttons that work without JavaScript (nothing is stored). */
function changeRows(form: FormRecord, raw: RawSubmission, action: string): void {
  const [verb, name, index] = action.split(':');
  const field = form.fields.find((f) => f.kind === 'table' && f.name === name);
  if (!field) return;
  if (verb === 'add-row') {
    const rows = rawTableRows(raw, field);
    const next = rows.length ? rows[rows.length - 1]!.index + 1 : 0;
    // A row the checks would refuse (past the row limit, or an index of more than four digits) is not offered.
    if (next > 9999 || rows.length >= (field.maxItems ?? DEFAULT_MAX_ITEMS.table)) return;
    for (const column of field.columns ?? []) raw.fields.set(`${field.name}[${next}][${column.name}]`, ['']);
  } else if (verb === 'remove-row') {
    const prefix = `${field.name}[${Number(index)}][`;
    for (const key of [...raw.fields.keys()]) if (key.startsWith(prefix)) raw.fields.delete(key);
  }
}

function showForm(ctx: RouteContext, status: number, form: FormRecord, strings: PageStrings, token: string, raw: RawSubmission | null, extra: { errors?: Awaited<ReturnType<typeof checkSubmission>>['errors']; previewDataUrl?: string | null; previewFailed?: boolean } = {}): void {
  const csrf = csrfFor(ctx, form.id);
  const urls = { action: formUrl(form.id, token), preview: `/f/${enc(form.id)}/preview?token=${enc(token)}` };
  sendPage(ctx.res, status, formPage({ form, strings, urls, csrf, raw, errors: extra.errors ?? [], previewDataUrl: extra.previewDataUrl ?? null, previewFailed: extra.previewFailed ?? false }));
}

async function getForm(ctx: RouteContext): Promise<void> {
  const { form, strings, token } = await openForm(ctx);
  showForm(ctx, 200, form, strings, token, null);
}

async function postForm(ctx: RouteContext, limits: FormRateLimits): Promise<void> {
  const { form, document, strings, token } = await openForm(ctx);
  const raw = await readPost(ctx, form, strings, token);
  const action = raw.fields.get('_action')?.[0] ?? 'submit';
  if (action.startsWith('add-row:') || action.startsWith('remove-row:')) {
    changeRows(form, raw, action);
    return showForm(ctx, 200, form, strings, token, raw);
  }
  if (action === 'preview') {
    const decision = await limits.preview(form.id);
    let previewDataUrl: string | null = null;
    if (decision.allowed) {
      const checked = await checkSubmission(form, raw, imageLimits(ctx));
      previewDataUrl = await renderPreview(ctx.kernel, ctx.services, form, document, checked.values)
        .then((png) => `data:image/png;base64,${png.toString('base64')}`)
        .catch((err: unknown) => (ctx.log.warn({ err, formId: form.id }, 'form preview failed'), null));
    }
    return showForm(ctx, 200, form, strings, token, raw, { previewDataUrl, previewFailed: previewDataUrl === null });
  }
  const decision = await limits.submission(form.id, form.submissionsPerMinute);
  if (!decision.allowed) throw rateLimited(strings, decision.retryAfterSeconds);
  const checked = await checkSubmission(form, raw, imageLimits(ctx));
  if (checked.errors.length) return showForm(ctx, 422, form, strings, token, raw, { errors: checked.errors });
  const header = (name: string) => {
    const v = ctx.req.headers[name];
    return typeof v === 'string' && v ? v.slice(0, 500) : null;
  };
  const { record } = await ctx.services.forms.submit(form, checked.values, checked.uploads, { userAgent: header('user-agent'), locale: header('accept-language'), ip: form.recordIp ? (ctx.req.socket.remoteAddress ?? null) : null });
  ctx.res.statusCode = 303;
  securityHeaders(ctx.res);
  ctx.res.setHeader('Location', `${recordBase(form.id, record.id)}?token=${enc(token)}&receipt=${enc(receiptOf(ctx.kernel.secret, record.id))}`);
  ctx.res.end();
}

async function postPreview(ctx: RouteContext, limits: FormRateLimits): Promise<void> {
  const { form, document, strings, token } = await openForm(ctx);
  const raw = await readPost(ctx, form, strings, token);
  const decision = await limits.preview(form.id);
  if (!decision.allowed) throw rateLimited(strings, decision.retryAfterSeconds);
  const checked = await checkSubmission(form, raw, imageLimits(ctx));
  let png: Buffer;
  try {
    png = await renderPreview(ctx.kernel, ctx.services, form, document, checked.values);
  } catch (err) {
    // The document with these values does not render (e.g. a value its checks refuse): the script says the preview is unavailable.
    if (!(err instanceof HttpError)) throw err;
    ctx.log.info({ formId: form.id, code: err.code, reason: err.message }, 'form preview not rendered');
    throw new PageAnswer(err.status >= 500 ? 503 : 422, messagePage(strings, strings.t('page.previewHeading'), strings.t('page.previewFailed')));
  }
  securityHeaders(ctx.res);
  ctx.res.setHeader('Content-Type', 'image/png');
  ctx.res.setHeader('Content-Length', String(png.length));
  ctx.res.end(png);
}

type RenderState = { state: 'pending' | 'ready' | 'failed'; downloadUrl: string | null } | null;

/** The record of a receipt link (its form's, with the right receipt), or the 404 page. */
async function receiptRecord(ctx: RouteContext, form: FormRecord, strings: PageStrings): Promise<FilloutRecord> {
  const record = await ctx.kernel.store.getFillout(form.orgId, ctx.params.recordId!);
  if (!record || record.formId !== form.id || !receiptMatches(ctx.kernel.secret, record.id, ctx.query.get('receipt'))) {
    throw new PageAnswer(404, messagePage(strings, strings.t('error.notFoundTitle'), strings.t('error.notFound')));
  }
  return record;
}

async function renderState(ctx: RouteContext, record: FilloutRecord): Promise<RenderState> {
  if (record.renderError) return { state: 'failed', downloadUrl: null };
  if (!record.jobId) return null;
  const status = await ctx.services.forms.renderStatus(record);
  if (!status || status.status === 'FAILED') return { state: 'failed', downloadUrl: null };
  if (status.status === 'COMPLETED') return status.downloadUrl ? { state: 'ready', downloadUrl: status.downloadUrl } : { state: 'failed', downloadUrl: null };
  return { state: 'pending', downloadUrl: null };
}

async function getReceipt(ctx: RouteContext): Promise<void> {
  const { form, strings, token } = await openForm(ctx);
  const record = await receiptRecord(ctx, form, strings);
  const state = await renderState(ctx, record);
  const query = `?token=${enc(token)}&receipt=${enc(ctx.query.get('receipt')!)}`;
  const base = recordBase(form.id, record.id);
  const render = state ? { state: state.state, downloadUrl: `${base}/download${query}`, statusUrl: `${base}/status${query}` } : null;
  sendPage(ctx.res, 200, receiptPage({ form, strings, recordId: record.id, formUrl: formUrl(form.id, token), render }));
}

async function getStatus(ctx: RouteContext): Promise<void> {
  const { form, strings } = await openForm(ctx);
  const record = await receiptRecord(ctx, form, strings);
  const state = await renderState(ctx, record);
  securityHeaders(ctx.res);
  ctx.res.setHeader('Content-Type', 'application/json; charset=utf-8');
  ctx.res.end(JSON.stringify({ state: state?.state ?? 'none' }));
}

async function getDownload(ctx: RouteContext): Promise<void> {
  const { form, strings } = await openForm(ctx);
  const record = await receiptRecord(ctx, form, strings);
  const state = await renderState(ctx, record);
  if (state?.state !== 'ready' || !state.downloadUrl) throw new PageAnswer(404, messagePage(strings, strings.t('error.notFoundTitle'), strings.t('receipt.pending')));
  // A fresh signed link of the job's output each time (they expire).
  ctx.res.statusCode = 303;
  securityHeaders(ctx.res);
  ctx.res.setHeader('Location', state.downloadUrl);
  ctx.res.end();
}

async function getAsset(ctx: RouteContext): Promise<void> {
  const asset = FORM_ASSETS.get(ctx.params.name!);
  if (!asset) {
    const s = visitorStrings(ctx);
    throw new PageAnswer(404, messagePage(s, s.t('error.notFoundTitle'), s.t('error.notFound')));
  }
  ctx.res.setHeader('Content-Type', asset.type);
  ctx.res.setHeader('Content-Length', String(asset.body.length));
  // The name carries the content's hash: a changed file has another name.
  ctx.res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.res.end(asset.body);
}

const TAG = 'Public forms';
const TOKEN_QUERY = { name: 'token', description: 'The signed token of the form link (`publicUrl`).', schema: { type: 'string' }, required: true };
const RECEIPT_QUERY = { name: 'receipt', description: 'The signed receipt of the record (in the Location of the POST).', schema: { type: 'string' }, required: true };
const HTML = 'text/html';

export function publicFormRoutes(limits: FormRateLimits): RouteDefinition[] {
  return [
    { method: 'GET', path: '/f/assets/:name', auth: 'none', handler: page(getAsset), doc: { tag: TAG, summary: "The public form page's stylesheet and script (content-hashed names, cached for good)", responses: { 200: ['text/css', 'text/javascript'], 404: HTML } } },
    {
      method: 'GET',
      path: '/f/:formId',
      auth: 'none',
      handler: page(getForm),
      doc: {
        tag: TAG,
        summary: 'The public form page (server-rendered HTML; works without JavaScript)',
        description: 'Sets the CSRF cookie its POST needs. 404 page for an unknown form or a wrong token; 410 page for a revoked or expired link or a deleted document. See docs/forms.md.',
        query: [TOKEN_QUERY],
        responses: { 200: HTML, 404: HTML, 410: HTML },
      },
    },
    {
      method: 'POST',
      path: '/f/:formId',
      auth: 'none',
      handler: page((ctx) => postForm(ctx, limits)),
      doc: {
        tag: TAG,
        summary: 'Sends the form (application/x-www-form-urlencoded, or multipart/form-data with image fields) → 303 to the receipt page',
        description:
          `Inputs are named after the variables (table cells \`items[0][column]\`) plus \`_csrf\` (from the page) and \`_action\`: \`submit\` (default), \`preview\`, \`add-row:<field>\`, \`remove-row:<field>:<index>\` (the last three re-render the page and store nothing). ` +
          `Limits: URL-encoded ${FORM_BODY_LIMITS.urlencodedBytes} bytes, multipart ${FORM_BODY_LIMITS.totalBytes} bytes in all and ${FORM_BODY_LIMITS.fileBytes} per file, ${FORM_BODY_LIMITS.fields} fields (413 page). ` +
          'A missing or wrong CSRF pair or a cross-site post: 403 page; the honeypot filled: 400 page; over the form\'s submissionsPerMinute: 429 page with Retry-After; invalid values: 422 page with the errors.',
        query: [TOKEN_QUERY],
        responses: { 200: HTML, 303: null, 400: HTML, 403: HTML, 404: HTML, 410: HTML, 413: HTML, 422: HTML, 429: HTML },
      },
    },
    {
      method: 'POST',
      path: '/f/:formId/preview',
      auth: 'none',
      handler: page((ctx) => postPreview(ctx, limits)),
      doc: {
        tag: TAG,
        summary: "Page 1 of the form's document with the values sent (URL-encoded, with `_csrf`) as PNG: the live preview",
        description: 'Invalid values are left out (the document keeps its own); uploads are not used. No credits; 60 previews per minute per form (429 with Retry-After).',
        query: [TOKEN_QUERY],
        responses: { 200: 'image/png', 403: HTML, 404: HTML, 410: HTML, 429: HTML },
      },
    },
    {
      method: 'GET',
      path: '/f/:formId/r/:recordId',
      auth: 'none',
      handler: page(getReceipt),
      doc: { tag: TAG, summary: "The receipt page of a record: thanks, and with autoRender the render's state and the download link", query: [TOKEN_QUERY, RECEIPT_QUERY], responses: { 200: HTML, 404: HTML, 410: HTML } },
    },
    {
      method: 'GET',
      path: '/f/:formId/r/:recordId/status',
      auth: 'none',
      handler: page(getStatus),
      doc: { tag: TAG, summary: "The state of a record's render (`{state: pending|ready|failed|none}`), polled by the receipt page's script", query: [TOKEN_QUERY, RECEIPT_QUERY], responses: { 200: { type: 'object', properties: { state: { type: 'string', enum: ['pending', 'ready', 'failed', 'none'] } } }, 404: HTML, 410: HTML } },
    },
    {
      method: 'GET',
      path: '/f/:formId/r/:recordId/download',
      auth: 'none',
      handler: page(getDownload),
      doc: { tag: TAG, summary: "Redirects (303) to a fresh signed download link of the record's rendered document", query: [TOKEN_QUERY, RECEIPT_QUERY], responses: { 303: null, 404: HTML, 410: HTML } },
    },
  ];
}
