// The live preview of a form: page 1 of its document with the values typed so far, as a small PNG, rendered on the
// PNG plugin's pool directly as the catalog previews are (no job, no credits; one at a time per form).
import { KeyedMutex } from '../../kernel/keyed-mutex.js';
import type { RenderImageSources } from '../../kernel/render-images.js';
import { renderPreviewNow } from '../../services/page-preview.js';
import type { DocumentRecord, FormRecord, FormValue } from '../../kernel/model.js';
import type { Services } from '../composition-root.js';

/** Small enough to come back fast, large enough to read (A4 page 1 is 496 × 702 pixels). */
export const PREVIEW_DPI = 60;

const locks = new KeyedMutex();

/** Page 1 as PNG bytes; throws when the document with these values cannot be rendered. */
export async function renderPreview(kernel: RenderImageSources, services: Services, form: FormRecord, document: DocumentRecord, values: Record<string, FormValue>): Promise<Buffer> {
  return locks.run(form.id, async () => {
    const variables = services.forms.variablesOf(form, document, values) as Record<string, unknown>;
    const planned = await services.renders.planDocument(form.orgId, document, { variables, format: 'PNG', image: { format: 'png', dpi: PREVIEW_DPI, pages: ['1'] } }, false, 'the form preview');
    return renderPreviewNow(kernel, form.orgId, planned);
  });
}
