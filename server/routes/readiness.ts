// POST /render/readiness: checks a document's source for accessibility and metadata; no render, no job, no credits.
import { Type } from '@sinclair/typebox';
import { HttpError } from '../../contracts/errors.js';
import { compileSchema, formatAjvErrors } from '../../contracts/schema.js';
import { validateDocument } from '../../document/validator.js';
import { WebhookSchema } from '../../contracts/common.js';
import { PdfProfileSchema, ReadinessReportSchema, ReadinessRequestSchema } from '../../contracts/readiness.js';
import { checkReadiness, prefixConfigErrors } from '../../document/readiness.js';
import { glyphMissingMessage, missingGlyphs } from '../../engines/fonts/glyph-coverage.js';
import type { PdfProfile } from '../../contracts/render.js';
import type { RouteContext, RouteDefinition } from '../context.js';
import { sendJson } from '../problem.js';
import { API_PREFIX } from '../paths.js';

type Envelope = { config: unknown; pdfProfile?: PdfProfile };

// The envelope only; `config` goes through validateDocument, whose messages and codes are better.
const validateEnvelope = compileSchema<Envelope>(
  Type.Object({ config: Type.Unknown(), pdfProfile: Type.Optional(PdfProfileSchema), webhook: Type.Optional(WebhookSchema) }, { additionalProperties: false }),
);

/** The route's body check: a JSON object first (its own message), then the envelope. */
function checkEnvelope(body: unknown): Envelope {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new HttpError('VALIDATION_FAILED', 'The body must be a JSON object {config, pdfProfile?, webhook?}.', [{ path: '(body)', message: 'must be an object', code: 'INVALID_FIELD' }]);
  }
  if (!validateEnvelope(body)) throw new HttpError('VALIDATION_FAILED', 'The body does not match the readiness request.', formatAjvErrors(validateEnvelope.errors));
  return body;
}

async function readiness(ctx: RouteContext<Envelope>): Promise<void> {
  const { kernel, body } = ctx;
  const checked = validateDocument(body.config);
  if (!checked.valid) {
    const errors = prefixConfigErrors(checked.errors);
    throw new HttpError('VALIDATION_FAILED', `config is not a valid document: ${errors.length} error${errors.length === 1 ? '' : 's'}, first ${errors[0]!.path} ${errors[0]!.message}.`, errors);
  }
  const glyphs = missingGlyphs(checked.document!).map((m) => ({ path: m.path, message: glyphMissingMessage(m) }));
  sendJson(ctx.res, 200, checkReadiness(checked.document!, body.pdfProfile ?? 'standard', kernel.clock.now(), glyphs));
}

export function readinessRoutes(): RouteDefinition[] {
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/render/readiness`,
      auth: 'key',
      body: { check: checkEnvelope },
      handler: readiness,
      doc: {
        tag: 'Rendering',
        summary: 'Check a document for accessibility and metadata before rendering (no render, no credits)',
        description:
          'Checks the document JSON (scope semantic_source): metadata, language, image and chart descriptions, heading hierarchy, table headers, link texts and references. ' +
          'status is ready when no issue has severity error; pdfProfile pdfua-1 makes a missing title and tables without header rows errors. ' +
          'webhook is accepted and ignored (the answer is immediate). Not a PDF/A or PDF/UA certification; the rendered file still needs a validator.',
        body: ReadinessRequestSchema,
        responses: { 200: ReadinessReportSchema },
      },
    },
  ];
}
