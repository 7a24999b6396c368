// What the DOCX and ODT workers share: images from the job's files, resolve, write, the job's file and result.
import { PluginError, type WarmUpPause, type WorkerInput, type WorkerOutput } from '../../sdk/plugin-api.js';
import type { DocumentJson } from '../../contracts/document-json.js';
import type { LoadedImage } from '../render-input.js';
import { resolveDocument, warmUpResolver } from './resolve.js';
import type { OfficeDocument } from './model.js';

export interface OfficeTarget {
  /** File extension and name in messages: `docx`, `odt`. */
  ext: 'docx' | 'odt';
  mimeType: string;
  write: (doc: OfficeDocument) => Promise<Uint8Array>;
  /** A tiny document whose rendering exercises the writer's code paths when a thread starts. */
  warmUp: DocumentJson;
}

/** Renders one job: resolveDocument throws RenderInputError (INVALID_DOCUMENT, with every path) for what cannot be rendered. */
export async function renderOffice(target: OfficeTarget, input: WorkerInput<{ document: Record<string, unknown>; createdAt: string }>): Promise<WorkerOutput> {
  const doc = input.params.document as unknown as DocumentJson;
  const images = new Map<string, LoadedImage>();
  for (const f of input.files) images.set(f.filename, { bytes: f.bytes, mimeType: f.mimeType });
  const fontDirs = Array.isArray(input.settings.fontDirs) ? input.settings.fontDirs.filter((d): d is string => typeof d === 'string') : undefined;
  const office = await resolveDocument(doc, images, { createdAt: input.params.createdAt, fontDirs });
  let bytes: Uint8Array;
  try {
    bytes = await target.write(office);
  } catch (err) {
    throw new PluginError('RENDER_FAILED', `The ${target.ext.toUpperCase()} could not be written: ${(err as Error).message}.`);
  }
  return { file: { bytes, mimeType: target.mimeType, filename: `${doc.document.filename ?? 'document'}.${target.ext}` }, result: { warnings: office.warnings } };
}

/**
 * What the first document of a thread would otherwise pay for (fonts, CSL engines, Temml, grammars, the
 * writer's code paths); the worker's `warmUp`. A failed warm-up only means a slower first job, which
 * reports any real problem.
 */
export async function warmUpOfficeThread(target: OfficeTarget, pause: WarmUpPause): Promise<void> {
  await warmUpResolver();
  await pause();
  const office = await resolveDocument(target.warmUp, new Map(), { createdAt: new Date(0).toISOString() });
  await pause();
  await target.write(office);
}
