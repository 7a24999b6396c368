// The public form page's own texts (buttons, notes, receipts, error pages) in the four built-in locales; a form's
// `labels` replace any of them by key (docs/forms.md lists the keys). Validation messages are in
// services/forms/form-value-messages.ts and are replaced the same way.
import { fillIn, formLocale, type FormLocale, FORM_LOCALES } from '../../services/forms/form-value-messages.js';

const EN = {
  'page.required': 'required',
  'page.submit': 'Send',
  'page.addRow': 'Add row',
  'page.removeRow': 'Remove row',
  'page.removeRowLabel': 'Remove row {row}',
  'page.row': 'Row {row}',
  'page.listHelp': 'One item per line.',
  'page.choose': 'Choose…',
  'page.imageHelp': 'PNG, JPEG, WebP or GIF, at most 10 MB.',
  'page.imageAgain': 'Choose the image again: files are not kept when the form is shown again.',
  'page.errorSummary': 'There is a problem with your answers',
  'page.errorSummaryMany': 'There are {count} problems with your answers',
  'page.previewHeading': 'Preview',
  'page.previewButton': 'Show preview',
  'page.previewAlt': 'Preview of the first page of the filled document',
  'page.previewNote': 'The preview shows the first page with your answers. Uploaded images are not shown in it.',
  'page.previewFailed': 'The preview is not available right now; you can still send the form.',
  'page.honeypot': 'Leave this field empty',
  'receipt.title': 'Thank you',
  'receipt.received': 'Your answers were received.',
  'receipt.reference': 'Reference: {id}',
  'receipt.pending': 'Your document is being prepared. This page updates by itself.',
  'receipt.ready': 'Your document is ready.',
  'receipt.download': 'Download the document ({format})',
  'receipt.failed': 'Your document could not be prepared. Your answers were kept; please contact whoever sent you this form.',
  'receipt.again': 'Fill in the form again',
  'error.notFoundTitle': 'Form not found',
  'error.notFound': 'This link does not lead to a form. Check that you copied all of it.',
  'error.goneTitle': 'This form is closed',
  'error.revoked': 'Whoever sent you this form has closed it.',
  'error.expired': 'The link to this form has expired.',
  'error.documentDeleted': 'This form is no longer available.',
  'error.csrfTitle': 'Please reload the form',
  'error.csrf': 'The page was open too long or came from another site, so your answers were not sent. Reload the form and send it again.',
  'error.reload': 'Reload the form',
  'error.rejectedTitle': 'The form was not sent',
  'error.rejected': 'Your answers could not be accepted.',
  'error.tooLargeTitle': 'Too much data',
  'error.tooLarge': 'The answers are too large: images may be at most 10 MB each and 25 MB together.',
  'error.rateLimitedTitle': 'Too many submissions',
  'error.rateLimited': 'This form is receiving many answers right now. Wait {seconds} seconds and send it again.',
  'error.serverTitle': 'Something went wrong',
  'error.server': 'The form could not be handled. Try again in a moment. Reference: {requestId}',
};

export type PageStringKey = keyof typeof EN;

const PAGE_STRINGS: Record<FormLocale, Record<PageStringKey, string>> = {
  en: EN,
  de: {
    'page.required': 'Pflichtfeld',
    'page.submit': 'Absenden',
    'page.addRow': 'Zeile hinzufügen',
    'page.removeRow': 'Zeile entfernen',
    'page.removeRowLabel': 'Zeile {row} entfernen',
    'page.row': 'Zeile {row}',
    'page.listHelp': 'Ein Eintrag pro Zeile.',
    'page.choose': 'Bitte wählen…',
    'page.imageHelp': 'PNG, JPEG, WebP oder GIF, höchstens 10 MB.',
    'page.imageAgain': 'Bitte wählen Sie das Bild erneut: Dateien werden beim erneuten Anzeigen des Formulars nicht behalten.',
    'page.errorSummary': 'Bei Ihren Angaben gibt es ein Problem',
    'page.errorSummaryMany': 'Bei Ihren Angaben gibt es {count} Probleme',
    'page.previewHeading': 'Vorschau',
    'page.previewButton': 'Vorschau anzeigen',
    'page.previewAlt': 'Vorschau der ersten Seite des ausgefüllten Dokuments',
    'page.previewNote': 'Die Vorschau zeigt die erste Seite mit Ihren Angaben. Hochgeladene Bilder erscheinen darin nicht.',
    'page.previewFailed': 'Die Vorschau ist gerade nicht verfügbar; Sie können das Formular trotzdem absenden.',
    'page.honeypot': 'Dieses Feld bitte leer lassen',
    'receipt.title': 'Vielen Dank',
    'receipt.received': 'Ihre Angaben sind eingegangen.',
    'receipt.reference': 'Referenz: {id}',
    'receipt.pending': 'Ihr Dokument wird erstellt. Diese Seite aktualisiert sich selbst.',
    'receipt.ready': 'Ihr Dokument ist fertig.',
    'receipt.download': 'Dokument herunterladen ({format})',
    'receipt.failed': 'Ihr Dokument konnte nicht erstellt werden. Ihre Angaben wurden gespeichert; bitte wenden Sie sich an den Absender dieses Formulars.',
    'receipt.again': 'Formular erneut ausfüllen',
    'error.notFoundTitle': 'Formular nicht gefunden',
    'error.notFound': 'Dieser Link führt zu keinem Formular. Bitte prüfen Sie, ob Sie ihn vollständig kopiert haben.',
    'error.goneTitle': 'Dieses Formular ist geschlossen',
    'error.revoked': 'Der Absender hat dieses Formular geschlossen.',
    'error.expired': 'Der Link zu diesem Formular ist abgelaufen.',
    'error.documentDeleted': 'Dieses Formular ist nicht mehr verfügbar.',
    'error.csrfTitle': 'Bitte laden Sie das Formular neu',
    'error.csrf': 'Die Seite war zu lange geöffnet oder kam von einer anderen Website, daher wurden Ihre Angaben nicht gesendet. Laden Sie das Formular neu und senden Sie es erneut.',
    'error.reload': 'Formular neu laden',
    'error.rejectedTitle': 'Das Formular wurde nicht gesendet',
    'error.rejected': 'Ihre Angaben konnten nicht angenommen werden.',
    'error.tooLargeTitle': 'Zu viele Daten',
    'error.tooLarge': 'Die Angaben sind zu groß: Bilder dürfen höchstens 10 MB einzeln und 25 MB zusammen haben.',
    'error.rateLimitedTitle': 'Zu viele Einsendungen',
    'error.rateLimited': 'Dieses Formular erhält gerade viele Antworten. Warten Sie {seconds} Sekunden und senden Sie es erneut.',
    'error.serverTitle': 'Etwas ist schiefgelaufen',
    'error.server': 'Das Formular konnte nicht verarbeitet werden. Versuchen Sie es gleich noch einmal. Referenz: {requestId}',
  },
  fr: {
    'page.required': 'obligatoire',
    'page.submit': 'Envoyer',
    'page.addRow': 'Ajouter une ligne',
    'page.removeRow': 'Supprimer la ligne',
    'page.removeRowLabel': 'Supprimer la ligne {row}',
    'page.row': 'Ligne {row}',
    'page.listHelp': 'Un élément par ligne.',
    'page.choose': 'Choisir…',
    'page.imageHelp': 'PNG, JPEG, WebP ou GIF, 10 Mo au plus.',
    'page.imageAgain': 'Choisissez de nouveau l’image : les fichiers ne sont pas conservés quand le formulaire est réaffiché.',
    'page.errorSummary': 'Un problème a été trouvé dans vos réponses',
    'page.errorSummaryMany': '{count} problèmes ont été trouvés dans vos réponses',
    'page.previewHeading': 'Aperçu',
    'page.previewButton': 'Afficher l’aperçu',
    'page.previewAlt': 'Aperçu de la première page du document rempli',
    'page.previewNote': 'L’aperçu montre la première page avec vos réponses. Les images envoyées n’y figurent pas.',
    'page.previewFailed': 'L’aperçu n’est pas disponible pour le moment ; vous pouvez quand même envoyer le formulaire.',
    'page.honeypot': 'Laissez ce champ vide',
    'receipt.title': 'Merci',
    'receipt.received': 'Vos réponses ont été reçues.',
    'receipt.reference': 'Référence : {id}',
    'receipt.pending': 'Votre document est en cours de préparation. Cette page se met à jour d’elle-même.',
    'receipt.ready': 'Votre document est prêt.',
    'receipt.download': 'Télécharger le document ({format})',
    'receipt.failed': 'Votre document n’a pas pu être préparé. Vos réponses ont été conservées ; contactez la personne qui vous a envoyé ce formulaire.',
    'receipt.again': 'Remplir de nouveau le formulaire',
    'error.notFoundTitle': 'Formulaire introuvable',
    'error.notFound': 'Ce lien ne mène à aucun formulaire. Vérifiez que vous l’avez copié en entier.',
    'error.goneTitle': 'Ce formulaire est fermé',
    'error.revoked': 'La personne qui vous a envoyé ce formulaire l’a fermé.',
    'error.expired': 'Le lien vers ce formulaire a expiré.',
    'error.documentDeleted': 'Ce formulaire n’est plus disponible.',
    'error.csrfTitle': 'Veuillez recharger le formulaire',
    'error.csrf': 'La page est restée ouverte trop longtemps ou provenait d’un autre site : vos réponses n’ont pas été envoyées. Rechargez le formulaire et envoyez-le de nouveau.',
    'error.reload': 'Recharger le formulaire',
    'error.rejectedTitle': 'Le formulaire n’a pas été envoyé',
    'error.rejected': 'Vos réponses n’ont pas pu être acceptées.',
    'error.tooLargeTitle': 'Trop de données',
    'error.tooLarge': 'Les réponses sont trop volumineuses : les images peuvent faire 10 Mo chacune et 25 Mo en tout.',
    'error.rateLimitedTitle': 'Trop d’envois',
    'error.rateLimited': 'Ce formulaire reçoit beaucoup de réponses en ce moment. Attendez {seconds} secondes et envoyez-le de nouveau.',
    'error.serverTitle': 'Une erreur s’est produite',
    'error.server': 'Le formulaire n’a pas pu être traité. Réessayez dans un instant. Référence : {requestId}',
  },
  es: {
    'page.required': 'obligatorio',
    'page.submit': 'Enviar',
    'page.addRow': 'Añadir fila',
    'page.removeRow': 'Quitar fila',
    'page.removeRowLabel': 'Quitar la fila {row}',
    'page.row': 'Fila {row}',
    'page.listHelp': 'Un elemento por línea.',
    'page.choose': 'Elija…',
    'page.imageHelp': 'PNG, JPEG, WebP o GIF, como máximo 10 MB.',
    'page.imageAgain': 'Vuelva a elegir la imagen: los archivos no se conservan cuando el formulario se muestra de nuevo.',
    'page.errorSummary': 'Hay un problema con sus respuestas',
    'page.errorSummaryMany': 'Hay {count} problemas con sus respuestas',
    'page.previewHeading': 'Vista previa',
    'page.previewButton': 'Mostrar vista previa',
    'page.previewAlt': 'Vista previa de la primera página del documento rellenado',
    'page.previewNote': 'La vista previa muestra la primera página con sus respuestas. Las imágenes subidas no aparecen en ella.',
    'page.previewFailed': 'La vista previa no está disponible ahora; puede enviar el formulario de todos modos.',
    'page.honeypot': 'Deje este campo vacío',
    'receipt.title': 'Gracias',
    'receipt.received': 'Hemos recibido sus respuestas.',
    'receipt.reference': 'Referencia: {id}',
    'receipt.pending': 'Su documento se está preparando. Esta página se actualiza sola.',
    'receipt.ready': 'Su documento está listo.',
    'receipt.download': 'Descargar el documento ({format})',
    'receipt.failed': 'No se pudo preparar su documento. Sus respuestas se han guardado; póngase en contacto con quien le envió este formulario.',
    'receipt.again': 'Rellenar el formulario de nuevo',
    'error.notFoundTitle': 'Formulario no encontrado',
    'error.notFound': 'Este enlace no lleva a ningún formulario. Compruebe que lo ha copiado entero.',
    'error.goneTitle': 'Este formulario está cerrado',
    'error.revoked': 'Quien le envió este formulario lo ha cerrado.',
    'error.expired': 'El enlace a este formulario ha caducado.',
    'error.documentDeleted': 'Este formulario ya no está disponible.',
    'error.csrfTitle': 'Vuelva a cargar el formulario',
    'error.csrf': 'La página estuvo abierta demasiado tiempo o procedía de otro sitio, así que sus respuestas no se enviaron. Vuelva a cargar el formulario y envíelo de nuevo.',
    'error.reload': 'Volver a cargar el formulario',
    'error.rejectedTitle': 'El formulario no se envió',
    'error.rejected': 'Sus respuestas no se pudieron aceptar.',
    'error.tooLargeTitle': 'Demasiados datos',
    'error.tooLarge': 'Las respuestas son demasiado grandes: las imágenes pueden tener como máximo 10 MB cada una y 25 MB en total.',
    'error.rateLimitedTitle': 'Demasiados envíos',
    'error.rateLimited': 'Este formulario está recibiendo muchas respuestas ahora. Espere {seconds} segundos y envíelo de nuevo.',
    'error.serverTitle': 'Algo salió mal',
    'error.server': 'No se pudo procesar el formulario. Inténtelo de nuevo en un momento. Referencia: {requestId}',
  },
};

/** Every key of the page's texts, for the documentation and its test. */
export const PAGE_STRING_KEYS = Object.keys(EN) as PageStringKey[];

/** The page's words for one form: its locale's, with the form's own replacements. */
export interface PageStrings {
  locale: FormLocale;
  t(key: PageStringKey, params?: Record<string, string | number>): string;
}

export function pageStrings(locale: string | null | undefined, labels: Record<string, string> = {}): PageStrings {
  const l = formLocale(locale);
  return { locale: l, t: (key, params = {}) => fillIn(labels[key] ?? PAGE_STRINGS[l][key], params) };
}

/** The locale a visitor's browser prefers among the built-in ones (pages with no form to ask: an unknown link). */
export function acceptedLocale(header: string | undefined): FormLocale {
  const ranked = (header ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...rest] = part.trim().split(';');
      const q = Number(/q=([\d.]+)/.exec(rest.join(';'))?.[1] ?? 1);
      return { base: (tag ?? '').toLowerCase().split('-')[0]!, q: Number.isFinite(q) ? q : 0 };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q);
  return (ranked.find((x) => (FORM_LOCALES as readonly string[]).includes(x.base))?.base as FormLocale | undefined) ?? 'en';
}
