// The words of a form's validation errors in the four built-in locales; a form's `labels` replace any of them by key.
import { FORM_LOCALES } from '../../contracts/forms.js';

export { FORM_LOCALES };

/** The built-in locales of the public page (its own texts and these messages). */
export type FormLocale = (typeof FORM_LOCALES)[number];

/** The locale a form's texts are in: its own when built in, else English. */
export function formLocale(locale: string | null | undefined): FormLocale {
  const base = (locale ?? '').toLowerCase().split(/[-_]/)[0] as FormLocale;
  return (FORM_LOCALES as readonly string[]).includes(base) ? base : 'en';
}

/** Message keys (docs/forms.md lists them); `{label}` and the other braces are filled in. */
export const VALUE_MESSAGES = {
  en: {
    'error.required': '{label}: enter a value.',
    'error.requiredChoice': '{label}: choose an option.',
    'error.requiredCheck': '{label}: tick the box to continue.',
    'error.requiredImage': '{label}: choose an image file.',
    'error.tooShort': '{label}: enter at least {min} characters.',
    'error.tooLong': '{label}: enter at most {max} characters.',
    'error.pattern': '{label}: the value is not in the expected format.',
    'error.number': '{label}: enter a number, such as 12 or 3.5.',
    'error.numberMin': '{label}: enter a number of at least {min}.',
    'error.numberMax': '{label}: enter a number of at most {max}.',
    'error.date': '{label}: enter a date as YYYY-MM-DD, such as 2026-03-31.',
    'error.dateMin': '{label}: enter a date on or after {min}.',
    'error.dateMax': '{label}: enter a date on or before {max}.',
    'error.choice': '{label}: choose one of the options offered.',
    'error.fewItems': '{label}: enter at least {min} lines.',
    'error.manyItems': '{label}: enter at most {max} lines.',
    'error.fewRows': '{label}: fill in at least {min} rows.',
    'error.manyRows': '{label}: fill in at most {max} rows.',
    'error.cell': '{label}, row {row}, {column}',
    'error.imageType': '{label}: the file is not a PNG, JPEG, WebP or GIF image.',
    'error.imageSize': '{label}: the image is larger than {max} MB.',
    'error.imagePixels': '{label}: the image is too large ({width} × {height} pixels).',
    'error.imageDamaged': '{label}: the image file is damaged and cannot be read.',
  },
  de: {
    'error.required': '{label}: Bitte geben Sie einen Wert ein.',
    'error.requiredChoice': '{label}: Bitte wählen Sie eine Option.',
    'error.requiredCheck': '{label}: Bitte setzen Sie das Häkchen, um fortzufahren.',
    'error.requiredImage': '{label}: Bitte wählen Sie eine Bilddatei.',
    'error.tooShort': '{label}: Bitte geben Sie mindestens {min} Zeichen ein.',
    'error.tooLong': '{label}: Bitte geben Sie höchstens {max} Zeichen ein.',
    'error.pattern': '{label}: Der Wert hat nicht das erwartete Format.',
    'error.number': '{label}: Bitte geben Sie eine Zahl ein, z. B. 12 oder 3,5.',
    'error.numberMin': '{label}: Bitte geben Sie eine Zahl ab {min} ein.',
    'error.numberMax': '{label}: Bitte geben Sie eine Zahl bis {max} ein.',
    'error.date': '{label}: Bitte geben Sie ein Datum als JJJJ-MM-TT ein, z. B. 2026-03-31.',
    'error.dateMin': '{label}: Bitte geben Sie ein Datum ab dem {min} ein.',
    'error.dateMax': '{label}: Bitte geben Sie ein Datum bis zum {max} ein.',
    'error.choice': '{label}: Bitte wählen Sie eine der angebotenen Optionen.',
    'error.fewItems': '{label}: Bitte geben Sie mindestens {min} Zeilen ein.',
    'error.manyItems': '{label}: Bitte geben Sie höchstens {max} Zeilen ein.',
    'error.fewRows': '{label}: Bitte füllen Sie mindestens {min} Zeilen aus.',
    'error.manyRows': '{label}: Bitte füllen Sie höchstens {max} Zeilen aus.',
    'error.cell': '{label}, Zeile {row}, {column}',
    'error.imageType': '{label}: Die Datei ist kein PNG-, JPEG-, WebP- oder GIF-Bild.',
    'error.imageSize': '{label}: Das Bild ist größer als {max} MB.',
    'error.imagePixels': '{label}: Das Bild ist zu groß ({width} × {height} Pixel).',
    'error.imageDamaged': '{label}: Die Bilddatei ist beschädigt und kann nicht gelesen werden.',
  },
  fr: {
    'error.required': '{label} : saisissez une valeur.',
    'error.requiredChoice': '{label} : choisissez une option.',
    'error.requiredCheck': '{label} : cochez la case pour continuer.',
    'error.requiredImage': '{label} : choisissez un fichier image.',
    'error.tooShort': '{label} : saisissez au moins {min} caractères.',
    'error.tooLong': '{label} : saisissez au plus {max} caractères.',
    'error.pattern': '{label} : la valeur n’a pas le format attendu.',
    'error.number': '{label} : saisissez un nombre, par exemple 12 ou 3,5.',
    'error.numberMin': '{label} : saisissez un nombre supérieur ou égal à {min}.',
    'error.numberMax': '{label} : saisissez un nombre inférieur ou égal à {max}.',
    'error.date': '{label} : saisissez une date au format AAAA-MM-JJ, par exemple 2026-03-31.',
    'error.dateMin': '{label} : saisissez une date à partir du {min}.',
    'error.dateMax': '{label} : saisissez une date jusqu’au {max}.',
    'error.choice': '{label} : choisissez l’une des options proposées.',
    'error.fewItems': '{label} : saisissez au moins {min} lignes.',
    'error.manyItems': '{label} : saisissez au plus {max} lignes.',
    'error.fewRows': '{label} : remplissez au moins {min} lignes.',
    'error.manyRows': '{label} : remplissez au plus {max} lignes.',
    'error.cell': '{label}, ligne {row}, {column}',
    'error.imageType': '{label} : le fichier n’est pas une image PNG, JPEG, WebP ou GIF.',
    'error.imageSize': '{label} : l’image dépasse {max} Mo.',
    'error.imagePixels': '{label} : l’image est trop grande ({width} × {height} pixels).',
    'error.imageDamaged': '{label} : le fichier image est endommagé et illisible.',
  },
  es: {
    'error.required': '{label}: introduzca un valor.',
    'error.requiredChoice': '{label}: elija una opción.',
    'error.requiredCheck': '{label}: marque la casilla para continuar.',
    'error.requiredImage': '{label}: elija un archivo de imagen.',
    'error.tooShort': '{label}: introduzca al menos {min} caracteres.',
    'error.tooLong': '{label}: introduzca como máximo {max} caracteres.',
    'error.pattern': '{label}: el valor no tiene el formato esperado.',
    'error.number': '{label}: introduzca un número, por ejemplo 12 o 3,5.',
    'error.numberMin': '{label}: introduzca un número mayor o igual que {min}.',
    'error.numberMax': '{label}: introduzca un número menor o igual que {max}.',
    'error.date': '{label}: introduzca una fecha como AAAA-MM-DD, por ejemplo 2026-03-31.',
    'error.dateMin': '{label}: introduzca una fecha a partir del {min}.',
    'error.dateMax': '{label}: introduzca una fecha hasta el {max}.',
    'error.choice': '{label}: elija una de las opciones ofrecidas.',
    'error.fewItems': '{label}: introduzca al menos {min} líneas.',
    'error.manyItems': '{label}: introduzca como máximo {max} líneas.',
    'error.fewRows': '{label}: rellene al menos {min} filas.',
    'error.manyRows': '{label}: rellene como máximo {max} filas.',
    'error.cell': '{label}, fila {row}, {column}',
    'error.imageType': '{label}: el archivo no es una imagen PNG, JPEG, WebP o GIF.',
    'error.imageSize': '{label}: la imagen supera los {max} MB.',
    'error.imagePixels': '{label}: la imagen es demasiado grande ({width} × {height} píxeles).',
    'error.imageDamaged': '{label}: el archivo de imagen está dañado y no se puede leer.',
  },
} as const satisfies Record<FormLocale, Record<string, string>>;

export type ValueMessageKey = keyof (typeof VALUE_MESSAGES)['en'];

/** `{name}` placeholders filled from `params` (unknown ones stay as written). */
export function fillIn(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** A validation message in the form's locale, or the form's own wording of it (`labels[key]`). */
export function valueMessage(form: { locale: string; labels: Record<string, string> }, key: ValueMessageKey, params: Record<string, string | number>): string {
  const template = form.labels[key] ?? VALUE_MESSAGES[formLocale(form.locale)][key];
  return fillIn(template, params);
}
