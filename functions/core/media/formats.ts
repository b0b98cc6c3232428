/**
 * The file types the media library takes (spec 8, media limits), their size limits and the names
 * clients use for them. The type a file really is comes from its bytes (`sniff.ts`); what a
 * client declares (a MIME type, a file name extension) must agree with it.
 */

const MiB = 1024 * 1024;

export type MediaKind = 'image' | 'video' | 'document' | 'subtitles';

export interface MediaFormat {
  /** The canonical MIME type, as stored and as `GET /platforms` lists it in `acceptedMimeTypes`. */
  mimeType: string;
  kind: MediaKind;
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** File name extensions of this type, lower case, without the dot; the first is the usual one. */
  extensions: readonly string[];
  /** Other MIME types clients send for it. */
  aliases: readonly string[];
}

const format = (
  mimeType: string,
  kind: MediaKind,
  maxMiB: number,
  extensions: string[],
  aliases: string[] = [],
): MediaFormat => ({ mimeType, kind, maxBytes: maxMiB * MiB, extensions, aliases });

export const MEDIA_FORMATS: readonly MediaFormat[] = [
  format('image/jpeg', 'image', 10, ['jpg', 'jpeg', 'jpe', 'jfif'], ['image/jpg', 'image/pjpeg']),
  format('image/png', 'image', 10, ['png'], ['image/x-png']),
  format('image/webp', 'image', 10, ['webp']),
  format('image/gif', 'image', 10, ['gif']),
  format('video/mp4', 'video', 100, ['mp4', 'm4v'], ['video/x-m4v']),
  format('video/quicktime', 'video', 100, ['mov', 'qt']),
  format('application/pdf', 'document', 100, ['pdf'], ['application/x-pdf']),
  format('text/vtt', 'subtitles', 5, ['vtt']),
  format('application/x-subrip', 'subtitles', 5, ['srt'], ['application/srt', 'text/srt', 'text/x-srt']),
];

/**
 * Largest file `POST /v1/media` takes in its multipart body. Lambda refuses a request event above
 * 6 MiB and API Gateway hands binary bodies over base64-encoded (4 bytes for every 3), so 4 MiB of
 * file (5.33 MiB encoded) leaves room for the multipart framing and the headers. Anything larger
 * goes through the upload flow (`POST /v1/media/uploads`), straight to S3.
 */
export const MAX_DIRECT_UPLOAD_BYTES = 4 * MiB;

/** Largest file of any type (the upload flow refuses a declared size above it before anything else). */
export const MAX_MEDIA_BYTES = Math.max(...MEDIA_FORMATS.map((f) => f.maxBytes));

/** Longest file name kept, in characters. */
export const MAX_FILE_NAME_LENGTH = 255;

/**
 * MIME types that say nothing about the content, so the bytes decide alone. `text/plain` is the
 * default of a multipart part without a Content-Type (RFC 7578, 4.4), and what many tools send
 * for subtitle files.
 */
const NO_CLAIM = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'text/plain']);

/** `Image/JPEG; charset=x` → `image/jpeg`. */
export const bareMimeType = (value: string): string => (value.split(';')[0] ?? '').trim().toLowerCase();

/** The format a (canonical or alias) MIME type names, if any. */
export const formatOfMimeType = (mimeType: string): MediaFormat | undefined => {
  const bare = bareMimeType(mimeType);
  return MEDIA_FORMATS.find((f) => f.mimeType === bare || f.aliases.includes(bare));
};

export const formatOf = (canonicalMimeType: string): MediaFormat => {
  const found = MEDIA_FORMATS.find((f) => f.mimeType === canonicalMimeType);
  if (!found) throw new Error(`Not a media format: ${canonicalMimeType}`);
  return found;
};

/** `holiday.JPG` → `jpg`; no extension → undefined. */
export const extensionOf = (fileName: string): string | undefined => {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 && dot < fileName.length - 1 ? fileName.slice(dot + 1).toLowerCase() : undefined;
};

/** Whether a declared MIME type agrees with the real format (no claim at all agrees with anything). */
export const mimeTypeAgrees = (declared: string, real: MediaFormat): boolean => {
  const bare = bareMimeType(declared);
  return NO_CLAIM.has(bare) || formatOfMimeType(bare) === real;
};

/** Whether a file name agrees with the real format: no extension agrees; any other must be one of the format's. */
export const fileNameAgrees = (fileName: string, real: MediaFormat): boolean => {
  const extension = extensionOf(fileName);
  return extension === undefined || real.extensions.includes(extension);
};

const isControl = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f;
};

/**
 * The file name as kept: the last path segment (some browsers send `C:\fakepath\x.jpg`), without
 * control characters, at most 255 characters; undefined when nothing is left.
 */
export const cleanFileName = (raw: string): string | undefined => {
  const base = raw.split(/[\\/]/).pop() ?? '';
  const clean = [...base]
    .filter((char) => !isControl(char))
    .join('')
    .trim();
  if (clean === '' || clean === '.' || clean === '..') return undefined;
  return [...clean].slice(0, MAX_FILE_NAME_LENGTH).join('');
};

/** `10485760` → `10 MiB`. */
export const formatBytes = (bytes: number): string =>
  bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${(bytes / MiB).toFixed(1)} MiB`;
