// The visible area and the rotation of a page as readers show it, read defensively from an opened PDF's page dictionary.
import { PDFArray, PDFName, PDFNumber, type PDFContext, type PDFDict, type PDFObject } from 'pdf-lib';

const MEDIA_BOX = PDFName.of('MediaBox');
const CROP_BOX = PDFName.of('CropBox');
const ROTATE = PDFName.of('Rotate');
/** What a page without a usable /MediaBox is shown as (US Letter, as most readers do). */
const DEFAULT_MEDIA_BOX: Box = [0, 0, 612, 792];

/** [llx, lly, urx, ury] with the corners in order. */
export type Box = [number, number, number, number];

/** The CropBox clipped to the MediaBox, or the MediaBox (openPdf has copied inherited boxes onto each page). */
export function visibleBox(context: PDFContext, page: PDFDict): Box {
  const media = readBox(context, page.get(MEDIA_BOX)) ?? DEFAULT_MEDIA_BOX;
  const crop = readBox(context, page.get(CROP_BOX));
  if (!crop) return media;
  const clipped: Box = [Math.max(crop[0], media[0]), Math.max(crop[1], media[1]), Math.min(crop[2], media[2]), Math.min(crop[3], media[3])];
  // A CropBox outside the MediaBox is ignored, as readers do.
  return clipped[2] > clipped[0] && clipped[3] > clipped[1] ? clipped : media;
}

/** The page's /Rotate as 0, 90, 180 or 270 (any multiple of 90, even negative; anything else counts as 0). */
export function pageTurn(context: PDFContext, page: PDFDict): 0 | 90 | 180 | 270 {
  const value = context.lookup(page.get(ROTATE));
  if (!(value instanceof PDFNumber)) return 0;
  return ((((Math.round(value.asNumber() / 90) % 4) + 4) % 4) * 90) as 0 | 90 | 180 | 270;
}

function readBox(context: PDFContext, value: PDFObject | undefined): Box | null {
  const array = context.lookup(value);
  if (!(array instanceof PDFArray) || array.size() !== 4) return null;
  const n = array.asArray().map((v) => context.lookup(v));
  if (!n.every((v) => v instanceof PDFNumber)) return null;
  const [a, b, c, d] = n.map((v) => (v as PDFNumber).asNumber()) as Box;
  return [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)];
}
