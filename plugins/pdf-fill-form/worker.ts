// Worker of pdf.fill-form: checks every requested value against its field first, then sets them, regenerates appearances, and flattens on request.
import { PDFBool, PDFCheckBox, PDFDropdown, PDFName, PDFOptionList, PDFRadioGroup, PDFTextField, StandardFonts, type PDFField, type PDFFont } from 'pdf-lib';
import { PluginError, type WorkerInput, type WorkerOutput } from '../../kernel/plugin-api.js';
import { checkFieldTree, fieldOptions, fieldType, formPresence, openForm, type FieldType } from '../lib/pdf-form.js';
import { guardPdf, guardPdfSync, openPdf, savePdf } from '../lib/pdf-load.js';
import type { FillFormParams, FillFormResultBody } from './contract.js';

const LABEL = 'fileId';
/** Fields listed by name in an error message at most; the rest are counted. */
const MAX_LISTED = 60;

const TYPE_WORDS: Record<FieldType, string> = {
  text: 'text',
  multilineText: 'multi-line text',
  checkbox: 'checkbox',
  radio: 'radio group',
  dropdown: 'dropdown',
  listbox: 'list box',
  button: 'push button',
  signature: 'signature',
};

export async function fillForm(input: WorkerInput<FillFormParams>): Promise<WorkerOutput> {
  const file = input.files.find((f) => f.field === 'fileId') ?? input.files[0];
  if (!file) throw new Error('pdf.fill-form received no input file.');
  const { doc, pageCount, objectStreams } = await openPdf(file.bytes, LABEL);
  const presence = formPresence(doc);
  if (presence.acroFormFields === 0) {
    const why = presence.xfa
      ? 'its form is an XFA form only (no AcroForm fields), which is not supported; save it as a PDF with AcroForm fields'
      : 'it has no fillable form fields (no AcroForm); fill-form needs a PDF with form fields';
    throw new PluginError('PDF_NO_FORM', `${LABEL} has no form: ${why}.`, { input: LABEL });
  }
  checkFieldTree(doc, LABEL);
  const form = openForm(doc, LABEL);
  const byName = new Map<string, PDFField>(guardPdfSync(LABEL, 'read', () => form.getFields()).map((f) => [f.getName(), f]));
  const font = await guardPdf(LABEL, 'write', () => doc.embedFont(StandardFonts.Helvetica));

  const requested = Object.entries(input.params.fields);
  const unknown = requested.filter(([name]) => !byName.has(name)).map(([name]) => name);
  if (unknown.length) {
    throw new PluginError(
      'FORM_FIELD_UNKNOWN',
      `fields: the form has no field${unknown.length === 1 ? '' : 's'} named ${listOf(unknown.map((n) => JSON.stringify(n)))}. Its fields are: ${describeAll([...byName.values()])}.`,
      { unknown },
    );
  }
  const problems = requested.map(([name, value]) => checkValue(name, byName.get(name)!, value, font)).filter((p): p is string => p !== null);
  if (problems.length) throw new PluginError('FORM_VALUE_INVALID', problems.join(' '), { count: problems.length });

  guardPdfSync(LABEL, 'write', () => {
    for (const [name, value] of requested) setValue(byName.get(name)!, value);
    form.updateFieldAppearances(font);
    // Every field now has an appearance stream; viewers should show those rather than draw their own.
    form.acroForm.dict.set(PDFName.of('NeedAppearances'), PDFBool.False);
    if (input.params.flatten) form.flatten({ updateFieldAppearances: false });
  });
  const bytes = await savePdf(doc, 'the filled PDF', objectStreams);
  const result: FillFormResultBody = {
    filledFields: requested.map(([name]) => name),
    fieldCount: byName.size,
    flattened: input.params.flatten === true,
    xfaRemoved: presence.xfa,
    pageCount,
  };
  return { file: { bytes, mimeType: 'application/pdf', filename: 'filled.pdf' }, result };
}

/** Why `value` does not suit `field` (one sentence naming `fields.<name>`), or null when it does. */
function checkValue(name: string, field: PDFField, value: string | boolean, font: PDFFont): string | null {
  const where = `fields[${JSON.stringify(name)}]`;
  const type = fieldType(field);
  const options = fieldOptions(field);
  if (type === 'button' || type === 'signature') return `${where} is a ${TYPE_WORDS[type]}; it holds no value and cannot be filled.`;
  if (type === 'checkbox') return typeof value === 'boolean' ? null : `${where} is a checkbox: give true or false, not ${JSON.stringify(value)}.`;
  if (typeof value !== 'string') return `${where} is a ${TYPE_WORDS[type]}: give a string${options ? ` (one of ${listOf(options.map((o) => JSON.stringify(o)))})` : ''}, not ${value}.`;
  const editable = field instanceof PDFDropdown && field.isEditable();
  if (options && !editable && !options.includes(value)) {
    return `${where}: ${JSON.stringify(value)} is not one of the ${TYPE_WORDS[type]}'s options; valid: ${listOf(options.map((o) => JSON.stringify(o)))}.`;
  }
  if (field instanceof PDFTextField) {
    const max = field.getMaxLength();
    if (max !== undefined && value.length > max) return `${where} takes at most ${max} characters; the value has ${value.length}.`;
    if (type === 'text' && /[\r\n]/.test(value)) return `${where} is a single-line text field; the value may not contain line breaks.`;
  }
  const bad = unencodable(value, font);
  if (bad !== null) {
    return `${where}: the character ${JSON.stringify(bad)} (U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) cannot be shown with the form font (Helvetica, Windows-1252 characters only).`;
  }
  return null;
}

/** The first character of `text` the standard font cannot encode (line breaks aside), or null. */
function unencodable(text: string, font: PDFFont): string | null {
  for (const char of text) {
    if (char === '\n' || char === '\r') continue;
    try {
      font.encodeText(char);
    } catch {
      return char;
    }
  }
  return null;
}

function setValue(field: PDFField, value: string | boolean): void {
  if (field instanceof PDFCheckBox) {
    if (value === true) field.check();
    else field.uncheck();
  } else if (field instanceof PDFTextField) field.setText(String(value));
  else if (field instanceof PDFRadioGroup) field.select(String(value));
  else if (field instanceof PDFDropdown || field instanceof PDFOptionList) field.select(String(value));
}

function describeAll(fields: PDFField[]): string {
  const shown = fields.slice(0, MAX_LISTED).map((f) => {
    const type = fieldType(f);
    const options = fieldOptions(f);
    return `${JSON.stringify(f.getName())} (${TYPE_WORDS[type]}${options ? `: ${options.map((o) => JSON.stringify(o)).join(', ')}` : ''})`;
  });
  const more = fields.length > MAX_LISTED ? ` and ${fields.length - MAX_LISTED} more (POST /tools/pdf/metadata lists them all)` : '';
  return `${shown.join(', ')}${more}`;
}

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
