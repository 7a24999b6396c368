// A minimal valid request body per action that accepts PDF: the runner fails when a PDF action has none, so a new one cannot escape the hostile cases.
/** `file` is the hostile upload's id, `good` an ordinary 1-page PDF's (for actions that need two files). */
export type BodyOf = (file: string, good: string) => Record<string, unknown>;

export const ACTION_BODIES: Record<string, BodyOf> = {
  'pdf.merge': (file, good) => ({ fileIds: [good, file] }),
  'pdf.split': (file) => ({ fileId: file, ranges: ['1'] }),
  'pdf.rotate': (file) => ({ fileId: file, angle: 90 }),
  'pdf.fill-form': (file) => ({ fileId: file, fields: { name: 'x' } }),
  'pdf.unlock': (file) => ({ fileId: file, password: 'pw' }),
  'pdf.watermark': (file) => ({ fileId: file, text: 'HOSTILE' }),
  'pdf.metadata': (file) => ({ fileId: file }),
  'lens.ocr': (file) => ({ fileId: file, outputFormat: 'md' }),
  'lens.classify': (file) => ({ fileId: file, categories: ['invoice', 'letter'] }),
  'lens.extract': (file) => ({ fileId: file, fields: { total: { type: 'number' } } }),
  'lens.generate-filename': (file) => ({ fileId: file, filenameSchema: '{date}_{vendor}' }),
};
