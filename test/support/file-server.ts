import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file the server holds; without a type it is served as `application/octet-stream`. */
export interface ServedFile {
  bytes: Buffer;
  type?: string;
}

/** What a server of the files in `stored` (name to bytes) finds: each as `application/octet-stream`. */
export const servedFrom =
  (stored: ReadonlyMap<string, Buffer>) =>
  (name: string): ServedFile | undefined => {
    const bytes = stored.get(name);
    return bytes && { bytes };
  };

/**
 * Stands in for S3's presigned URLs in the network clients' integration tests: serves each file
 * `find` knows at `/<name>` (404 otherwise). With `ranges`, a `Range: bytes=N-` request gets the
 * rest from N (206), as a resumed upload reads from its offset; `onRead` hears each read's start.
 */
export const startFileServer = async (
  find: (name: string) => ServedFile | undefined,
  options: { ranges?: boolean; onRead?: (start: number) => void } = {},
): Promise<{ url: string; close: () => Promise<void> }> => {
  const server = createServer((req, res) => {
    const file = find((req.url ?? '/').slice(1));
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    const { bytes } = file;
    const range = options.ranges ? /^bytes=(\d+)-$/.exec(req.headers.range ?? '') : null;
    const start = range ? Number(range[1]) : 0;
    options.onRead?.(start);
    const part = bytes.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-type': file.type ?? 'application/octet-stream',
      'content-length': part.length,
      ...(range ? { 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
    });
    res.end(part);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
