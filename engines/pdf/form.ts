// Reads the AcroForm of an opened PDF safely (the field tree is checked before pdf-lib walks it; each field is described by name, type, options and value) and keeps its default font resources in step with regenerated appearances.
import {
  PDFArray,
  PDFButton,
  PDFCheckBox,
  PDFDict,
  PDFDropdown,
  PDFName,
  PDFOptionList,
  PDFRadioGroup,
  PDFRef,
  PDFSignature,
  PDFTextField,
  type PDFDocument,
  type PDFField,
  type PDFFont,
  type PDFForm,
  type PDFObject,
} from 'pdf-lib';
import { PluginError } from '../../sdk/plugin-api.js';
import { guardPdfSync } from './load.js';

/** Deepest field hierarchy accepted (`a.b.c…`); real forms use a few levels. */
export const MAX_FIELD_DEPTH = 32;
/** Most field and widget nodes accepted in one form. */
export const MAX_FIELD_NODES = 20_000;

export type FieldType = 'text' | 'multilineText' | 'checkbox' | 'radio' | 'dropdown' | 'listbox' | 'button' | 'signature';

export interface FieldInfo {
  /** Fully qualified name (`parent.child`), the key clients use in `fields`. */
  name: string;
  type: FieldType;
  /** Choices of radio groups, dropdowns and list boxes; null for the other types. */
  options: string[] | null;
  /** Text (string), checkbox (boolean), radio/dropdown/single list box (string or null), multi-select list box (string[]); null for buttons and signatures. */
  value: string | boolean | string[] | null;
}

const N = { DR: PDFName.of('DR'), Font: PDFName.of('Font'), AcroForm: PDFName.of('AcroForm'), Fields: PDFName.of('Fields'), Kids: PDFName.of('Kids'), Parent: PDFName.of('Parent'), XFA: PDFName.of('XFA') };

/** What the catalog says about forms, without creating an AcroForm (pdf-lib's getForm() would). */
export function formPresence(doc: PDFDocument): { acroFormFields: number; xfa: boolean } {
  const acroForm = doc.context.lookup(doc.catalog.get(N.AcroForm));
  if (!(acroForm instanceof PDFDict)) return { acroFormFields: 0, xfa: false };
  const fields = doc.context.lookup(acroForm.get(N.Fields));
  return { acroFormFields: fields instanceof PDFArray ? fields.size() : 0, xfa: acroForm.has(N.XFA) };
}

/**
 * Walks /Fields and every /Kids below it with an explicit stack, and every node's /Parent chain, so
 * that pdf-lib's recursive walks cannot loop or overflow: a cycle is PDF_UNREADABLE, a hierarchy
 * deeper than MAX_FIELD_DEPTH or larger than MAX_FIELD_NODES is PDF_TOO_COMPLEX.
 */
export function checkFieldTree(doc: PDFDocument, label: string): void {
  const context = doc.context;
  const acroForm = context.lookup(doc.catalog.get(N.AcroForm));
  if (!(acroForm instanceof PDFDict)) return;
  const roots = context.lookup(acroForm.get(N.Fields));
  if (!(roots instanceof PDFArray)) return;
  const seen = new Set<string>();
  const stack: Array<{ item: PDFObject; depth: number }> = roots.asArray().map((item) => ({ item, depth: 1 }));
  let nodes = 0;
  while (stack.length) {
    const { item, depth } = stack.pop()!;
    if (item instanceof PDFRef) {
      if (seen.has(item.tag)) throw new PluginError('PDF_UNREADABLE', `${label} is not a readable PDF: its form field tree lists object ${item.tag} twice or loops back on itself.`, { input: label });
      seen.add(item.tag);
    }
    const node = item instanceof PDFRef ? context.lookup(item) : item;
    if (!(node instanceof PDFDict)) continue;
    if (++nodes > MAX_FIELD_NODES) throw new PluginError('PDF_TOO_COMPLEX', `${label} has more than ${MAX_FIELD_NODES} form fields and widgets; it cannot be processed safely.`, { input: label });
    if (depth > MAX_FIELD_DEPTH) throw new PluginError('PDF_TOO_COMPLEX', `${label} nests its form fields more than ${MAX_FIELD_DEPTH} levels deep; it cannot be processed safely.`, { input: label });
    checkParentChain(context, node, label);
    const kids = context.lookup(node.get(N.Kids));
    if (kids instanceof PDFArray) for (const kid of kids.asArray()) stack.push({ item: kid, depth: depth + 1 });
  }
}

function checkParentChain(context: PDFDocument['context'], node: PDFDict, label: string): void {
  let current: PDFDict = node;
  for (let steps = 0; ; steps++) {
    const parent = context.lookup(current.get(N.Parent));
    if (!(parent instanceof PDFDict)) return;
    if (steps >= MAX_FIELD_DEPTH + 1) {
      throw new PluginError('PDF_UNREADABLE', `${label} is not a readable PDF: the /Parent links of its form fields loop or chain more than ${MAX_FIELD_DEPTH} levels.`, { input: label });
    }
    current = parent;
  }
}

/**
 * The form of a checked document (checkFieldTree first), with pdf-lib's console warnings silenced.
 * pdf-lib drops an XFA part when it opens a form; `keepXfa` puts it back, for reading without changing the document.
 */
export function openForm(doc: PDFDocument, label: string, keepXfa = false): PDFForm {
  return guardPdfSync(label, 'read', () => {
    const acroForm = doc.context.lookup(doc.catalog.get(N.AcroForm));
    const xfa = keepXfa && acroForm instanceof PDFDict ? acroForm.get(N.XFA) : undefined;
    const warn = console.warn;
    console.warn = () => {};
    try {
      const form = doc.getForm();
      if (xfa !== undefined) (acroForm as PDFDict).set(N.XFA, xfa);
      return form;
    } finally {
      console.warn = warn;
    }
  });
}

export function fieldType(field: PDFField): FieldType {
  if (field instanceof PDFTextField) return field.isMultiline() ? 'multilineText' : 'text';
  if (field instanceof PDFCheckBox) return 'checkbox';
  if (field instanceof PDFRadioGroup) return 'radio';
  if (field instanceof PDFDropdown) return 'dropdown';
  if (field instanceof PDFOptionList) return 'listbox';
  if (field instanceof PDFSignature) return 'signature';
  if (field instanceof PDFButton) return 'button';
  return 'button';
}

/** The choices a client may give for `field`, or null when any string (text) or a boolean is expected. */
export function fieldOptions(field: PDFField): string[] | null {
  if (field instanceof PDFRadioGroup || field instanceof PDFDropdown || field instanceof PDFOptionList) return field.getOptions();
  return null;
}

export function describeField(field: PDFField): FieldInfo {
  const type = fieldType(field);
  const options = fieldOptions(field);
  let value: FieldInfo['value'] = null;
  if (field instanceof PDFTextField) value = field.getText() ?? '';
  else if (field instanceof PDFCheckBox) value = field.isChecked();
  else if (field instanceof PDFRadioGroup) value = field.getSelected() ?? null;
  else if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
    // An empty /V ("") means nothing is chosen.
    const selected = field.getSelected().filter((s) => s !== '');
    value = field instanceof PDFOptionList && field.isMultiselect() ? selected : (selected[0] ?? null);
  }
  return { name: field.getName(), type, options, value };
}

/** Every field of the document's AcroForm, described; [] when it has none. Checks the field tree first. */
export function readFormFields(doc: PDFDocument, label: string): FieldInfo[] {
  if (formPresence(doc).acroFormFields === 0) return [];
  checkFieldTree(doc, label);
  const form = openForm(doc, label, true);
  return guardPdfSync(label, 'read', () => form.getFields().map(describeField));
}

/**
 * Names the fonts of regenerated appearances in the form's default resources (/DR /Font) and in the
 * fields' /DA, so that a viewer that rebuilds an appearance (on editing, or when it ignores /AP)
 * finds the font the value was drawn with. pdf-lib writes `/<PostScript name> <size> Tf` into /DA
 * but adds nothing to /DR; each embedded font gets its own /DR key here (a form filled twice holds
 * two subsets of Noto Sans, each with the glyphs of its own values).
 */
export class FormFontResources {
  private readonly keys = new Map<PDFFont, string>();

  constructor(private readonly form: PDFForm) {}

  /** After `field.updateAppearances(font)`: points the field's and its widgets' /DA at `font`'s /DR key. */
  use(field: PDFField, font: PDFFont): void {
    const key = this.key(font);
    if (key === font.name) return;
    // pdf-lib wrote the name as a PDF name token (escaped the same way).
    const from = `${PDFName.of(font.name).asString()} `;
    const to = `${PDFName.of(key).asString()} `;
    for (const holder of [field.acroField, ...field.acroField.getWidgets()]) {
      const da = holder.getDefaultAppearance();
      if (da?.includes(from)) holder.setDefaultAppearance(da.split(from).join(to));
    }
  }

  private key(font: PDFFont): string {
    let key = this.keys.get(font);
    if (key !== undefined) return key;
    const acroForm = this.form.acroForm.dict;
    const context = acroForm.context;
    let dr = context.lookup(acroForm.get(N.DR));
    if (!(dr instanceof PDFDict)) {
      dr = context.obj({});
      acroForm.set(N.DR, dr);
    }
    let fonts = context.lookup((dr as PDFDict).get(N.Font));
    if (!(fonts instanceof PDFDict)) {
      fonts = context.obj({});
      (dr as PDFDict).set(N.Font, fonts);
    }
    for (let n = 0; ; n++) {
      const name = n === 0 ? font.name : `${font.name}-${n}`;
      const current = (fonts as PDFDict).get(PDFName.of(name));
      if (current === undefined || current === font.ref) {
        (fonts as PDFDict).set(PDFName.of(name), font.ref);
        key = name;
        break;
      }
    }
    this.keys.set(font, key);
    return key;
  }
}
