import { randomBytes } from 'node:crypto';

/** Video ids, and the multipart/related bodies of an upload with its metadata. */
export const videoIdOf = () => randomBytes(8).toString('base64url').slice(0, 11);

/** Parses a multipart/related body: its parts' headers and bytes. */
export const multipartOf = (body: Buffer, contentType: string) => {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return null;
  const marker = Buffer.from(`--${boundary}`);
  const parts: { headers: Record<string, string>; body: Buffer }[] = [];
  let at = body.indexOf(marker);
  while (at !== -1) {
    const start = at + marker.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(marker, start);
    if (next === -1) return null;
    const raw = body.subarray(start, next);
    const split = raw.indexOf('\r\n\r\n');
    if (split === -1) return null;
    const headers: Record<string, string> = {};
    for (const line of raw.subarray(0, split).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let content = raw.subarray(split + 4);
    if (content.subarray(-2).toString() === '\r\n') content = content.subarray(0, -2);
    parts.push({ headers, body: content });
    at = next;
  }
  return parts;
};
