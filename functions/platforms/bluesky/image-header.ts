/**
 * The pixel size of a PNG, JPEG, GIF or WebP image read from its header (no decoding), for
 * Bluesky's `aspectRatio`. Null when the header is not one of those or is cut short.
 */
export interface ImageSize {
  width: number;
  height: number;
}

const ascii = (bytes: Uint8Array, start: number, length: number) =>
  String.fromCharCode(...bytes.subarray(start, start + length));

const positive = (width: number, height: number): ImageSize | null =>
  width > 0 && height > 0 ? { width, height } : null;

const png = (view: DataView, bytes: Uint8Array): ImageSize | null => {
  // Signature, then the IHDR chunk first: length, "IHDR", width, height (big-endian).
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== 'IHDR') return null;
  return positive(view.getUint32(16), view.getUint32(20));
};

const gif = (view: DataView, bytes: Uint8Array): ImageSize | null =>
  bytes.length < 10 ? null : positive(view.getUint16(6, true), view.getUint16(8, true));

/** Start-of-frame markers carry the size: SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

const jpeg = (view: DataView, bytes: Uint8Array): ImageSize | null => {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1] as number;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    // Markers without a length: SOI, EOI, RSTn, TEM.
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or scan before any frame
    const length = view.getUint16(at + 2);
    if (isStartOfFrame(marker)) {
      if (at + 9 > bytes.length) return null;
      return positive(view.getUint16(at + 7), view.getUint16(at + 5));
    }
    at += 2 + length;
  }
  return null;
};

const webp = (view: DataView, bytes: Uint8Array): ImageSize | null => {
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8 ' && bytes.length >= 30) {
    // Lossy: after the frame tag and start code 9D 01 2A, 14-bit width and height.
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
    return positive(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
  }
  if (chunk === 'VP8L' && bytes.length >= 25) {
    // Lossless: signature 0x2F, then 14-bit width-1 and height-1, little-endian bit packed.
    if (bytes[20] !== 0x2f) return null;
    const bits = view.getUint32(21, true);
    return positive((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X' && bytes.length >= 30) {
    // Extended: 24-bit canvas width-1 and height-1.
    const width = (bytes[24] as number) | ((bytes[25] as number) << 8) | ((bytes[26] as number) << 16);
    const height = (bytes[27] as number) | ((bytes[28] as number) << 8) | ((bytes[29] as number) << 16);
    return positive(width + 1, height + 1);
  }
  return null;
};

export const imageSize = (bytes: Uint8Array): ImageSize | null => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 3) === 'PNG') return png(view, bytes);
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return jpeg(view, bytes);
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(ascii(bytes, 0, 6))) return gif(view, bytes);
  if (bytes.length >= 16 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP')
    return webp(view, bytes);
  return null;
};

/** The image's MIME type from its magic numbers, or null. */
export const imageMimeType = (bytes: Uint8Array): string | null => {
  if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 3) === 'PNG') return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(ascii(bytes, 0, 6))) return 'image/gif';
  if (bytes.length >= 16 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP')
    return 'image/webp';
  return null;
};
