// The HTML of the public form page, its receipt and its error pages: plain HTML5 that works without JavaScript,
// labelled for assistive technology, every value and owner text escaped by the `html` tag.
import type { FormField, FormRecord, FormValue } from '../../kernel/model.js';
import { cellName, rawTableRows, rawValue, type FieldProblem, type RawSubmission } from '../../services/forms/form-values.js';
import { attr, html, type SafeHtml } from './html.js';
import { FORM_SCRIPT, FORM_STYLE } from './assets.js';
import type { PageStrings } from './strings.js';

/** Where the page's own requests go (all carry the link's token). */
export interface FormUrls {
  action: string;
  preview: string;
}

export interface FormPageInput {
  form: FormRecord;
  strings: PageStrings;
  urls: FormUrls;
  csrf: string;
  /** What was sent (a page shown again); null: a fresh page with the document's values. */
  raw: RawSubmission | null;
  errors: FieldProblem[];
  /** A preview embedded as a data: URL (the no-JS "Show preview" button). */
  previewDataUrl: string | null;
  previewFailed: boolean;
}

function shell(strings: PageStrings, title: string, body: SafeHtml, head: SafeHtml = html``): SafeHtml {
  return html`<!doctype html>
<html lang="${strings.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="/f/assets/${FORM_STYLE.name}">
<script src="/f/assets/${FORM_SCRIPT.name}" defer></script>
${head}</head>
<body>
<main class="page" id="main">
${body}
</main>
</body>
</html>
`;
}

/** Ids by position: an input's id never carries a name the owner chose. */
const fieldId = (i: number) => `f-${i}`;
const cellId = (i: number, row: number, col: number) => `f-${i}-r${row}-c${col}`;

/** The id of the element an error's link should focus: the input named in the problem. */
function targetId(form: FormRecord, name: string): string {
  for (const [i, field] of form.fields.entries()) {
    if (field.name === name) {
      if (field.kind === 'choice' && (field.choices?.length ?? 0) <= 4 && field.choices?.length) return `${fieldId(i)}-0`;
      if (field.kind === 'table') return `${fieldId(i)}-add`;
      return fieldId(i);
    }
    if (field.kind === 'table' && name.startsWith(`${field.name}[`)) {
      const m = /^\[(\d+)\]\[([^\]]+)\]$/.exec(name.slice(field.name.length));
      const col = field.columns?.findIndex((c) => c.name === m?.[2]) ?? -1;
      if (m && col >= 0) return cellId(i, Number(m[1]), col);
    }
  }
  return 'main';
}

function textOf(value: FormValue | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string') ? (value as string[]).join('\n') : '';
  if (typeof value === 'object') return '';
  if (typeof value === 'boolean') return value ? 'true' : '';
  return String(value);
}

interface FieldContext {
  i: number;
  field: FormField;
  input: FormPageInput;
  errorsByName: Map<string, string>;
}

function requiredMark(ctx: FieldContext): SafeHtml {
  const { t } = ctx.input.strings;
  return ctx.field.required ? html` <span class="req">(${t('page.required')})</span>` : html``;
}

/** The help and error paragraphs of a field and the ids an input's aria-describedby names. */
function notes(ctx: FieldContext, extraHelp: string | null, error: string | undefined): { markup: SafeHtml; describedBy: string | null } {
  const id = fieldId(ctx.i);
  const help = [ctx.field.help, extraHelp].filter(Boolean).join(' ');
  const ids = [help ? `${id}-help` : null, error ? `${id}-error` : null].filter(Boolean) as string[];
  return {
    markup: html`${help ? html`<p class="help" id="${id}-help">${help}</p>` : ''}${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}`,
    describedBy: ids.length ? ids.join(' ') : null,
  };
}

function textInput(ctx: FieldContext): SafeHtml {
  const { field, input, i } = ctx;
  const id = fieldId(i);
  const error = ctx.errorsByName.get(field.name);
  const value = input.raw ? rawValue(input.raw, field.name) : textOf(field.defaultValue);
  const extra = field.kind === 'list' ? input.strings.t('page.listHelp') : null;
  const n = notes(ctx, extra, error);
  const common = html` id="${id}" name="${field.name}"${field.placeholder ? html` placeholder="${field.placeholder}"` : ''}${n.describedBy ? html` aria-describedby="${n.describedBy}"` : ''}${attr('aria-required="true"', field.required)}${attr('aria-invalid="true"', !!error)}`;
  let control: SafeHtml;
  if (field.kind === 'textarea' || field.kind === 'list') {
    control = html`<textarea${common} rows="${field.kind === 'list' ? 5 : 6}">${value}</textarea>`;
  } else if (field.kind === 'date') {
    control = html`<input type="date"${common} value="${value}"${typeof field.min === 'string' ? html` min="${field.min}"` : ''}${typeof field.max === 'string' ? html` max="${field.max}"` : ''}>`;
  } else if (field.kind === 'number') {
    control = html`<input type="text" inputmode="decimal" autocomplete="off"${common} value="${value}">`;
  } else {
    control = html`<input type="text"${common} value="${value}"${field.maxLength ? html` maxlength="${field.maxLength}"` : ''}>`;
  }
  return html`<div class="field${error ? ' has-error' : ''}"><label for="${id}">${field.label}${requiredMark(ctx)}</label>${n.markup}${control}</div>`;
}

function booleanInput(ctx: FieldContext): SafeHtml {
  const { field, input, i } = ctx;
  const id = fieldId(i);
  const error = ctx.errorsByName.get(field.name);
  const checked = input.raw ? input.raw.fields.has(field.name) && rawValue(input.raw, field.name) !== '' : field.defaultValue === true;
  const n = notes(ctx, null, error);
  return html`<div class="field check${error ? ' has-error' : ''}">${n.markup}<div class="choice"><input type="checkbox" id="${id}" name="${field.name}" value="true"${attr('checked', checked)}${n.describedBy ? html` aria-describedby="${n.describedBy}"` : ''}${attr('aria-required="true"', field.required)}${attr('aria-invalid="true"', !!error)}><label for="${id}">${field.label}${requiredMark(ctx)}</label></div></div>`;
}

function choiceInput(ctx: FieldContext): SafeHtml {
  const { field, input, i } = ctx;
  const id = fieldId(i);
  const error = ctx.errorsByName.get(field.name);
  const value = input.raw ? rawValue(input.raw, field.name) : textOf(field.defaultValue);
  const choices = field.choices ?? [];
  const n = notes(ctx, null, error);
  if (choices.length <= 4) {
    return html`<fieldset class="field${error ? ' has-error' : ''}" role="radiogroup"${n.describedBy ? html` aria-describedby="${n.describedBy}"` : ''}${attr('aria-required="true"', field.required)}><legend>${field.label}${requiredMark(ctx)}</legend>${n.markup}${choices.map(
      (c, k) => html`<div class="choice"><input type="radio" id="${id}-${k}" name="${field.name}" value="${c.value}"${attr('checked', c.value === value)}${attr('aria-invalid="true"', !!error)}><label for="${id}-${k}">${c.label}</label></div>`,
    )}</fieldset>`;
  }
  return html`<div class="field${error ? ' has-error' : ''}"><label for="${id}">${field.label}${requiredMark(ctx)}</label>${n.markup}<select id="${id}" name="${field.name}"${n.describedBy ? html` aria-describedby="${n.describedBy}"` : ''}${attr('aria-required="true"', field.required)}${attr('aria-invalid="true"', !!error)}><option value="">${input.strings.t('page.choose')}</option>${choices.map(
    (c) => html`<option value="${c.value}"${attr('selected', c.value === value)}>${c.label}</option>`,
  )}</select></div>`;
}

function imageInput(ctx: FieldContext): SafeHtml {
  const { field, input, i } = ctx;
  const id = fieldId(i);
  const error = ctx.errorsByName.get(field.name);
  const chosen = !!input.raw && (input.raw.files.get(field.name) ?? []).some((f) => f.bytes.length > 0);
  const again = chosen && !error ? input.strings.t('page.imageAgain') : null;
  const n = notes(ctx, [input.strings.t('page.imageHelp'), again].filter(Boolean).join(' '), error ?? undefined);
  return html`<div class="field${error ? ' has-error' : ''}"><label for="${id}">${field.label}${requiredMark(ctx)}</label>${n.markup}<input type="file" id="${id}" name="${field.name}" accept="image/png,image/jpeg,image/webp,image/gif"${n.describedBy ? html` aria-describedby="${n.describedBy}"` : ''}${attr('aria-required="true"', field.required)}${attr('aria-invalid="true"', !!error)}></div>`;
}

/** A table row's inputs; `index` is a number, or the placeholder the script replaces in the row template. */
function tableRow(ctx: FieldContext, index: number | '__INDEX__', position: number | '{row}', cells: Record<string, string>): SafeHtml {
  const { field, i, input } = ctx;
  const { t } = input.strings;
  const columns = field.columns ?? [];
  return html`<div class="row" data-row><p class="row-title" data-template="${t('page.row', { row: '{row}' })}">${t('page.row', { row: position })}</p>${columns.map((column, c) => {
    const name = cellName(field.name, index as number, column.name);
    const id = `${fieldId(i)}-r${index}-c${c}`;
    const error = typeof index === 'number' ? ctx.errorsByName.get(name) : undefined;
    return html`<div class="cell"><label for="${id}">${column.label}${column.required ? html` <span class="req">(${t('page.required')})</span>` : ''}</label>${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}<input type="${column.kind === 'date' ? 'date' : 'text'}"${column.kind === 'number' ? html` inputmode="decimal"` : ''} id="${id}" name="${name}" value="${cells[column.name] ?? ''}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}${attr('aria-required="true"', column.required)}></div>`;
  })}<button type="submit" class="secondary" name="_action" value="remove-row:${field.name}:${index}" data-remove-row data-template="${t('page.removeRowLabel', { row: '{row}' })}" aria-label="${t('page.removeRowLabel', { row: position })}">${t('page.removeRow')}</button></div>`;
}

function tableInput(ctx: FieldContext): SafeHtml {
  const { field, input, i } = ctx;
  const id = fieldId(i);
  const error = ctx.errorsByName.get(field.name);
  let rows: Array<{ index: number; cells: Record<string, string> }>;
  if (input.raw) rows = rawTableRows(input.raw, field);
  else {
    const given = Array.isArray(field.defaultValue) ? (field.defaultValue as Array<Record<string, string | number>>) : [];
    rows = given.filter((r) => typeof r === 'object').map((r, index) => ({ index, cells: Object.fromEntries(Object.entries(r).map(([k, v]) => [k, String(v)])) }));
  }
  if (rows.length === 0) rows = Array.from({ length: Math.max(1, field.minItems ?? 0) }, (_, index) => ({ index, cells: {} }));
  const next = Math.max(-1, ...rows.map((r) => r.index)) + 1;
  const n = notes(ctx, null, error);
  return html`<fieldset class="field table-field${error ? ' has-error' : ''}" data-next-index="${next}"${n.describedBy ? html` aria-describedby="${n.describedBy}"` : ''}><legend>${field.label}${requiredMark(ctx)}</legend>${n.markup}<div class="rows">${rows.map((r, position) => tableRow(ctx, r.index, position + 1, r.cells))}</div><template>${tableRow(ctx, '__INDEX__', '{row}', {})}</template><button type="submit" class="secondary" id="${id}-add" name="_action" value="add-row:${field.name}" data-add-row>${input.strings.t('page.addRow')}</button></fieldset>`;
}

function fieldMarkup(ctx: FieldContext): SafeHtml {
  switch (ctx.field.kind) {
    case 'boolean':
      return booleanInput(ctx);
    case 'choice':
      return ctx.field.choices ? choiceInput(ctx) : textInput(ctx);
    case 'image':
      return imageInput(ctx);
    case 'table':
      return tableInput(ctx);
    default:
      return textInput(ctx);
  }
}

export function formPage(input: FormPageInput): SafeHtml {
  const { form, strings, urls } = input;
  const { t } = strings;
  const errorsByName = new Map<string, string>();
  for (const e of input.errors) if (!errorsByName.has(e.name)) errorsByName.set(e.name, e.message);
  const multipart = form.fields.some((f) => f.kind === 'image');
  const summary = input.errors.length
    ? html`<div class="error-summary" id="error-summary" role="alert" tabindex="-1" autofocus aria-labelledby="error-summary-title"><h2 id="error-summary-title">${input.errors.length === 1 ? t('page.errorSummary') : t('page.errorSummaryMany', { count: input.errors.length })}</h2><ul>${input.errors.map((e) => html`<li><a href="#${targetId(form, e.name)}">${e.message}</a></li>`)}</ul></div>`
    : html``;
  const body = html`<div class="layout">
<div class="form-col">
<h1>${form.title}</h1>
${form.description ? html`<p class="description">${form.description}</p>` : ''}
${summary}
<form method="post" action="${urls.action}" novalidate${multipart ? html` enctype="multipart/form-data"` : ''} data-preview-url="${urls.preview}">
<button type="submit" name="_action" value="submit" class="default-submit" tabindex="-1" aria-hidden="true">${t('page.submit')}</button>
<input type="hidden" name="_csrf" value="${input.csrf}">
<div class="hp" aria-hidden="true"><label for="hp-website">${t('page.honeypot')}</label><input type="text" id="hp-website" name="website" tabindex="-1" autocomplete="off" value=""></div>
${form.fields.map((field, i) => fieldMarkup({ i, field, input, errorsByName }))}
<div class="actions"><button type="submit" class="primary" name="_action" value="submit">${t('page.submit')}</button><button type="submit" class="secondary" name="_action" value="preview">${t('page.previewButton')}</button></div>
</form>
</div>
<section class="preview-col" aria-labelledby="preview-heading">
<h2 id="preview-heading">${t('page.previewHeading')}</h2>
<p class="help">${t('page.previewNote')}</p>
<p class="error" id="preview-failed"${attr('hidden', !input.previewFailed)}>${t('page.previewFailed')}</p>
<div class="preview-frame" aria-live="polite"><img id="preview-image" alt="${t('page.previewAlt')}"${input.previewDataUrl ? html` src="${input.previewDataUrl}"` : html` hidden`}></div>
</section>
</div>`;
  const title = input.errors.length ? `${t('page.errorSummary')}: ${form.title}` : form.title;
  return shell(strings, title, body);
}

export interface ReceiptInput {
  form: FormRecord;
  strings: PageStrings;
  recordId: string;
  formUrl: string;
  /** null: the form does not render (autoRender off). */
  render: { state: 'pending' | 'ready' | 'failed'; downloadUrl: string | null; statusUrl: string } | null;
}

export function receiptPage(input: ReceiptInput): SafeHtml {
  const { t } = input.strings;
  const r = input.render;
  const pending = r?.state === 'pending';
  const status = !r
    ? html``
    : r.state === 'pending'
      ? html`<p class="notice" role="status" data-status-url="${r.statusUrl}">${t('receipt.pending')}</p>`
      : r.state === 'ready'
        ? html`<p role="status">${t('receipt.ready')}</p><p><a class="download" id="download" href="${r.downloadUrl ?? ''}">${t('receipt.download', { format: input.form.format })}</a></p>`
        : html`<p class="error" role="alert">${t('receipt.failed')}</p>`;
  const body = html`<h1>${t('receipt.title')}</h1>
<p>${t('receipt.received')}</p>
<p class="help">${t('receipt.reference', { id: input.recordId })}</p>
${status}
<p><a href="${input.formUrl}">${t('receipt.again')}</a></p>`;
  // Without JavaScript the page reloads itself while the document is being made; the script polls instead.
  return shell(input.strings, `${t('receipt.title')}: ${input.form.title}`, body, pending ? html`<noscript><meta http-equiv="refresh" content="2"></noscript>\n` : html``);
}

/** An error page: a title, a sentence, and optionally a link back to the form. */
export function messagePage(strings: PageStrings, title: string, text: string, link?: { href: string; text: string }): SafeHtml {
  return shell(strings, title, html`<h1>${title}</h1>
<p>${text}</p>
${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : ''}`);
}
