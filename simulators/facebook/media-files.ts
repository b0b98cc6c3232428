/** Graph's time format: `2026-11-25T23:10:00+0000`. */
export const graphTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;

/** A Graph boolean parameter: `true`/`false` as JSON or as a form/query string. */
export const boolParam = (value: unknown, fallback: boolean) =>
  value === undefined ? fallback : value === true || value === 'true' || value === '1';

/** What the first bytes say a file is (Facebook reads the file, not the `Content-Type`). */
export const sniff = (head: Buffer): string => {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (head.subarray(4, 8).toString('latin1') === 'ftyp') {
    return head.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4';
  }
  return 'application/octet-stream';
};

/** Downloads a URL as Facebook does for `url`/`file_url`: null unless it answers 200. */
export const fetchMedia = async (url: string): Promise<{ size: number; contentType: string } | null> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      return null;
    }
    let size = 0;
    let head = Buffer.alloc(0);
    for await (const chunk of response.body) {
      const bytes = chunk as Uint8Array;
      if (head.length < 16) head = Buffer.concat([head, Buffer.from(bytes.subarray(0, 16))]);
      size += bytes.byteLength;
    }
    return { size, contentType: sniff(head) };
  } catch {
    return null;
  }
};
