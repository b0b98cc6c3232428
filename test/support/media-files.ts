/**
 * Small real files of every type the media library takes, built from their format's own
 * structure (magic numbers, boxes, chunks), optionally padded to a given size.
 */

const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

/** An ISO BMFF box (MP4 / MOV): size, type, payload. */
const box = (type: string, payload: Buffer) => {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
};

/** Fills up to `size` bytes with zeros after the content (readers stop at the format's own end). */
const padTo = (content: Buffer, size?: number) =>
  size === undefined || size <= content.length
    ? content
    : Buffer.concat([content, Buffer.alloc(size - content.length)]);

/** A video of exactly `size` bytes: an ftyp box, then one mdat box holding the rest. */
const isoMedia = (brand: string, compatible: string, size?: number) => {
  const ftyp = box('ftyp', bytes(brand, [0, 0, 2, 0], compatible));
  const total = Math.max(size ?? ftyp.length + 16, ftyp.length + 8);
  return Buffer.concat([ftyp, box('mdat', Buffer.alloc(total - ftyp.length - 8, 0x5a))]);
};

export const mediaFiles = {
  jpeg: (size?: number) =>
    padTo(bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], 'JFIF\0', [1, 1, 0, 0, 1, 0, 1, 0, 0], [0xff, 0xd9]), size),
  png: (size?: number) =>
    padTo(
      bytes(
        [0x89],
        'PNG\r\n\x1a\n',
        [0, 0, 0, 13],
        'IHDR',
        [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89],
        [0, 0, 0, 0],
        'IEND',
        [0xae, 0x42, 0x60, 0x82],
      ),
      size,
    ),
  gif: (size?: number) =>
    padTo(
      bytes('GIF89a', [1, 0, 1, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b]),
      size,
    ),
  webp: (size?: number) =>
    padTo(
      bytes(
        'RIFF',
        [26, 0, 0, 0],
        'WEBPVP8L',
        [13, 0, 0, 0, 0x2f, 0, 0, 0, 0x10, 7, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 7, 0],
      ),
      size,
    ),
  mp4: (size?: number) => isoMedia('isom', 'isomiso2avc1mp41', size),
  mov: (size?: number) => isoMedia('qt  ', 'qt  ', size),
  pdf: (size?: number) =>
    padTo(
      bytes('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
      size,
    ),
  vtt: () => bytes('WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello from Herald\n'),
  /** With a UTF-8 byte order mark, as many subtitle editors write it. */
  srt: () => bytes([0xef, 0xbb, 0xbf], '1\r\n00:00:00,000 --> 00:00:01,500\r\nHello from Herald\r\n\r\n'),
};

export type MediaFileKind = keyof typeof mediaFiles;
