// The tools routes of the Quire API and the body field their input files go in, for client.tools.run and `quire tools`.
// Generated from the served OpenAPI document by `npm run client:generate`; do not edit by hand.
export const TOOL_ROUTES = {
  "pdf/merge": {
    "fileField": "fileIds",
    "summary": "Merge PDFs"
  },
  "pdf/split": {
    "fileField": "fileId",
    "summary": "Split a PDF into page ranges"
  },
  "pdf/rotate": {
    "fileField": "fileId",
    "summary": "Rotate PDF pages"
  },
  "pdf/fill-form": {
    "fileField": "fileId",
    "summary": "Fill the form fields of a PDF"
  },
  "pdf/unlock": {
    "fileField": "fileId",
    "summary": "Remove the password of a PDF"
  },
  "pdf/watermark": {
    "fileField": "fileId",
    "summary": "Watermark a PDF with text or an image"
  },
  "pdf/metadata": {
    "fileField": "fileId",
    "summary": "Read or set the metadata of a PDF"
  },
  "convert/image-to-pdf": {
    "fileField": "fileIds",
    "summary": "Convert images to PDF"
  },
  "convert/html-to-pdf": {
    "fileField": "fileId",
    "summary": "Convert an HTML file to PDF"
  },
  "docx/replace-placeholders": {
    "fileField": "fileId",
    "summary": "Fill the placeholders of a DOCX or ODT template"
  },
  "lens/ocr": {
    "fileField": "fileId",
    "summary": "Read a document as Markdown or document JSON"
  },
  "lens/classify": {
    "fileField": "fileId",
    "summary": "Classify a document into one of the given categories"
  },
  "lens/extract": {
    "fileField": "fileId",
    "summary": "Extract typed fields from a document"
  },
  "lens/generate-filename": {
    "fileField": "fileId",
    "summary": "Generate a filename from a document"
  }
} as const;

/** A tools route under /api/v1/dev/tools/, e.g. `pdf/merge`. */
export type ToolName = keyof typeof TOOL_ROUTES;
