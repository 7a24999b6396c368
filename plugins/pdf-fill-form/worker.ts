// Worker of pdf.fill-form: checks every requested value against its field first, then sets them, regenerates appearances, and flattens on request.
import { PDFArray, PDFBool, PDFButton, PDFCheckBox, PDFDropdown, PDFName, PDFOptionList, PDFRadioGroup, PDFRef, PDFSignature, PDFTextField, type PDFDocument, type PDFField, type PDFForm } from 'pdf-lib';
import { PluginError, type WorkerInput, type WorkerOutput } from '../../sdk/index.js';
import { FormFontResources, checkFieldTree, fieldOptions, fieldType, formPresence, openForm, type FieldType } from '../../engines/pdf/form.js';
import { guardPdf, guardPdfSync, openPdf, savePdf } from '../../engines/pdf/load.js';
import { FACE_NAMES, FONT_RULE, TextFonts, describeChars, singleFace, type FaceId } from '../../engines/pdf/text-fonts.js';
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

  const requested = Object.entries(input.params.fields);
  const unknown = requested.filter(([name]) => !byName.has(name)).map(([name]) => name);
  if (unknown.length) {
    throw new PluginError(
      'FORM_FIELD_UNKNOWN',
      `fields: the form has no field${unknown.length === 1 ? '' : 's'} named ${listOf(unknown.map((n) => JSON.stringify(n)))}. Its fields are: ${describeAll([...byName.values()])}.`,
      { unknown },
    );
  }
  const problems = requested.map(([name, value]) => checkValue(name, byName.get(name)!, value)).filter((p): p is string => p !== null);
  if (problems.length) throw new PluginError('FORM_VALUE_INVALID', problems.join(' '), { count: problems.length });

  guardPdfSync(LABEL, 'write', () => {
    for (const [name, value] of requested) setValue(byName.get(name)!, value);
  });
  await updateAppearances(form, [...byName.values()], new TextFonts(doc));
  guardPdfSync(LABEL, 'write', () => {
    // Every field now has an appearance stream; viewers should show those rather than draw their own.
    form.acroForm.dict.set(PDFName.of('NeedAppearances'), PDFBool.False);
    if (input.params.flatten) {
      form.flatten({ updateFieldAppearances: false });
      pruneDeletedAnnotations(doc);
    }
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

/**
 * Regenerates the appearance of every field that needs one (those filled, and any without one), each
 * text-drawing field in the one font its text needs, and names that font in the field's /DA and the
 * form's /DR so that a viewer regenerating the appearance draws the same glyphs.
 */
async function updateAppearances(form: PDFForm, fields: PDFField[], fonts: TextFonts): Promise<void> {
  const resources = new FormFontResources(form);
  for (const field of fields) {
    if (field instanceof PDFSignature || !field.needsAppearancesUpdate()) continue;
    if (field instanceof PDFCheckBox || field instanceof PDFRadioGroup) {
      guardPdfSync(LABEL, 'write', () => field.updateAppearances());
      continue;
    }
    const text = shownText(field);
    const choice = singleFace(text);
    // Values asked for were checked up front; this catches a field left as it was that has no appearance yet.
    if (!('face' in choice)) throw new PluginError('FORM_VALUE_INVALID', `${fieldRef(field.getName())} (not filled, but without an appearance): ${fontProblem(choice)}`);
    const font = await guardPdf(LABEL, 'write', () => fonts.font(choice.face));
    guardPdfSync(LABEL, 'write', () => {
      (field as PDFTextField | PDFDropdown | PDFOptionList | PDFButton).updateAppearances(font);
      resources.use(field, font);
    });
  }
}

/** The text a field's appearance draws: a list box shows all its options, a push button its captions. */
function shownText(field: PDFField, value?: string): string {
  if (field instanceof PDFOptionList) return [...field.getOptions(), value ?? ''].join('\n');
  if (field instanceof PDFTextField) return value ?? field.getText() ?? '';
  if (field instanceof PDFDropdown) return value ?? field.getSelected().join('\n');
  if (field instanceof PDFButton) return field.acroField.getWidgets().map((w) => w.getAppearanceCharacteristics()?.getCaptions()?.normal ?? '').join('\n');
  return '';
}

function fontProblem(choice: { missing: string[] } | { split: FaceId[] }): string {
  if ('missing' in choice) return `no bundled font has ${choice.missing.length === 1 ? 'the character' : 'the characters'} ${describeChars(choice.missing)}; form text is drawn in ${FONT_RULE}.`;
  return `its characters need ${listOf(choice.split.map((f) => FACE_NAMES[f]))} together, but a form field is drawn in one font; leave out the characters that only one of them has, or put them in another field.`;
}

const fieldRef = (name: string) => `fields[${JSON.stringify(name)}]`;

/** Why `value` does not suit `field` (one sentence naming `fields.<name>`), or null when it does. */
function checkValue(name: string, field: PDFField, value: string | boolean): string | null {
  const where = fieldRef(name);
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
  if (type === 'radio') return null; // a radio button draws its own mark, not the option's text
  const choice = singleFace(shownText(field, value));
  return 'face' in choice ? null : `${where}: ${fontProblem(choice)}`;
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

/**
 * Drops page /Annots entries whose object is gone. pdf-lib's flatten deletes every widget, but for check
 * boxes and radio buttons it looks for the widget's reference among its appearance streams and so leaves
 * it in the page's /Annots: a reference to a missing object, over which poppler declares the cross-reference
 * table broken and rebuilds it.
 */
function pruneDeletedAnnotations(doc: PDFDocument): void {
  for (const page of doc.getPages()) {
    const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray);
    if (!annots) continue;
    for (let i = annots.size() - 1; i >= 0; i--) {
      const entry = annots.get(i);
      if (entry instanceof PDFRef && !doc.context.lookup(entry)) annots.remove(i);
    }
  }
}
