import { createHash } from 'node:crypto';
import { SimHttpError } from '../framework/framework.ts';
import { pinError } from './errors.ts';
import type { SimPinImage } from './records.ts';

/** Pinterest's field limits, pin ids, and the files it pulls or takes: image sniffing, the image pull, the upload form. */
export const TITLE_MAX = 100;
export const DESCRIPTION_MAX = 800;
export const LINK_MAX = 2048;
export const ALT_MAX = 500;
export const MAX_IMAGE_BYTES = 20_000_000;

let pinSequence = 0n;
/** Pin ids look like Pinterest's: 18 digits, increasing. */
export const pinId = () => {
  pinSequence += 1n;
  return (BigInt(Date.now()) * 100000n + (pinSequence % 100000n)).toString();
};

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The image type its first bytes say (Pinterest reads the file, not the Content-Type), or null. */
export const imageTypeOf = (bytes: Buffer): string | null => {
  if (bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'image/jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (/^GIF8[79]a/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  if (bytes.subarray(0, 2).toString('latin1') === 'BM') return 'image/bmp';
  if (['II*\0', 'MM\0*'].includes(bytes.subarray(0, 4).toString('latin1'))) return 'image/tiff';
  return null;
};

/** Fetches an image the way Pinterest pulls `image_url`: a 200 with an image, else the pin is refused. */
export const pullImage = async (url: unknown, what: string): Promise<SimPinImage> => {
  const refuse = (detail: string) =>
    new SimHttpError(
      pinError(400, 1, `Invalid request: Sorry we could not fetch the image (${what}: ${detail}).`),
    );
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw refuse('not an http(s) URL');
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw refuse((error as Error).message);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw refuse(`HTTP ${res.status}`);
  }
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const bytes = Buffer.from(await res.arrayBuffer());
  const sniffed = imageTypeOf(bytes);
  if (!sniffed) throw refuse(`not an image (${contentType || 'no content type'})`);
  if (bytes.length === 0 || bytes.length > MAX_IMAGE_BYTES) throw refuse('empty or too large');
  return { url, size: bytes.length, sha256: sha256(bytes), contentType: sniffed };
};

/** A multipart/form-data body split into its fields (strings) and its `file` part (bytes). */
export const parseForm = (raw: Buffer, contentType: string | undefined) => {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  const mark = boundary ? (boundary[1] ?? boundary[2]) : undefined;
  if (!mark) return null;
  const delimiter = Buffer.from(`--${mark}`);
  const fields: Record<string, string> = {};
  const order: string[] = [];
  let file: { bytes: Buffer; contentType: string | null } | null = null;
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) return null;
    const part = raw.subarray(start + 2, next - 2); // after CRLF, before CRLF
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) return null;
    const head = part.subarray(0, split).toString('utf8');
    const body = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) return null;
    order.push(name);
    if (/filename="/i.test(head) || name === 'file') {
      file = { bytes: Buffer.from(body), contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? null };
    } else {
      fields[name] = body.toString('utf8');
    }
    at = next;
  }
  return { fields, order, file };
};
