// What the helpers accept as a file (bytes with a name, a Blob or a File) and how it becomes a multipart part.

/** A file to upload: a File or Blob, or bytes with the name the server should keep. */
export type FileInput = Blob | { bytes: Uint8Array | ArrayBuffer | string; filename: string };

/** The Blob and the name of a file to upload. */
export function asBlob(file: FileInput, fallbackName = 'file'): { blob: Blob; filename: string } {
  if (file instanceof Blob) return { blob: file, filename: 'name' in file && typeof file.name === 'string' && file.name ? file.name : fallbackName };
  const bytes = typeof file.bytes === 'string' ? new TextEncoder().encode(file.bytes) : file.bytes;
  return { blob: new Blob([bytes as BlobPart]), filename: file.filename };
}
