// Runs in the file inspector's thread: counts the pages of one uploaded PDF, or answers null when it cannot be read.
import { countPdfPages } from '../engines/pdf/load.js';

export default async function inspectPdf(bytes: Uint8Array): Promise<number | null> {
  try {
    return await countPdfPages(bytes);
  } catch {
    return null;
  }
}
