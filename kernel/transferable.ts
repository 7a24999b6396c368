// Which byte arrays can be moved to another thread instead of copied.

/** The ArrayBuffer behind `bytes` when the view covers all of it (so moving it takes nothing else along). */
export function wholeBuffer(bytes: Uint8Array): ArrayBuffer | null {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : null;
}
