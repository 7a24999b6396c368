// The uploaded bytes as the text of the page: UTF-8 unless a BOM or a <meta> charset near the top says otherwise.
const SNIFF_BYTES = 1024;

/** `<meta charset="x">` or `<meta http-equiv="Content-Type" content="text/html; charset=x">`, as browsers prescan. */
const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i;

export function decodeHtml(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SNIFF_BYTES)).toString('latin1');
  const label = META_CHARSET.exec(head)?.[1];
  // A <meta> cannot truly announce UTF-16 (it would not be readable as ASCII); browsers take UTF-8 then.
  if (label && !/^utf-?16/i.test(label)) {
    try {
      // TextDecoder knows the WHATWG labels (windows-1252, iso-8859-2, shift_jis, …); an unknown one means UTF-8.
      return new TextDecoder(label).decode(bytes);
    } catch {
      /* fall through */
    }
  }
  return new TextDecoder('utf-8').decode(bytes);
}
