// Encodes an @napi-rs/canvas canvas off the JS thread while holding the canvas until the encode ends: in 0.1.x the
// async encode keeps only a raw pointer to the canvas's surface, so a canvas collected mid-encode is a use-after-free
// that kills the whole process with SIGSEGV (Brooooooklyn/canvas#1312, fixed in 1.0). Every async encode goes here.
import type { Canvas } from '@napi-rs/canvas';

export type CanvasFormat = 'png' | 'jpeg' | 'webp' | 'gif';

/** The canvas as `format` (quality 0–100 for jpeg and webp). */
export async function encodeCanvas(canvas: Canvas, format: CanvasFormat, quality?: number): Promise<Buffer> {
  try {
    if (format === 'png') return await canvas.encode('png');
    if (format === 'gif') return await canvas.encode('gif');
    return await canvas.encode(format, quality);
  } finally {
    // A read of the native object after the await: the canvas is reachable until here, whatever the caller keeps.
    keepAlive(canvas.width);
  }
}

let sink = 0;
function keepAlive(n: number): void {
  sink ^= n;
}
