// Types of pdfjs-dist's standalone image decoders (the package ships none for this entry point); only what tests use.
declare module 'pdfjs-dist/image_decoders/pdf.image_decoders.mjs' {
  export class JpegImage {
    width: number;
    height: number;
    parse(data: Uint8Array): void;
    getData(options: { width: number; height: number; forceRGB?: boolean }): Uint8ClampedArray;
  }
}
