// A canvas's pixels as grey levels, one byte a pixel: what Lens's OCR engines read (Tesseract as a PGM, PP-OCR as is).
import type { Canvas } from '@napi-rs/canvas';

export interface GreyLevels {
  width: number;
  height: number;
  data: Uint8Array;
}

/** ITU-R BT.601 luma of every pixel, in integer arithmetic. */
export function greyLevels(canvas: Canvas): GreyLevels {
  const { width, height } = canvas;
  const rgba = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  const data = new Uint8Array(width * height);
  for (let i = 0, j = 0; j < data.length; i += 4, j++) data[j] = (rgba[i]! * 77 + rgba[i + 1]! * 150 + rgba[i + 2]! * 29) >> 8;
  return { width, height, data };
}
