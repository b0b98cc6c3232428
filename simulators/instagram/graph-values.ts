import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { objectOf, type SimContext } from '../framework/framework.ts';

/** Graph's values as Instagram writes them (ids, shortcodes, times, parameters), and its crawler's fetch. */
/** Graph's timestamp format: `2026-11-25T23:10:42+0000`. */
export const graphTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;

export const DAY_MS = 86_400_000;
export const SHORTCODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

let idCounter = 0n;
/** Instagram's 17-digit ids (`17895695668004550`), increasing. */
export const nextId = () => {
  idCounter += 1n;
  return (
    17_800_000_000_000_000n +
    BigInt(Date.now() % 1_000_000_000) * 1000n +
    (idCounter % 1000n)
  ).toString();
};
export const shortcodeOf = (id: string) => {
  let n = BigInt(id);
  let out = '';
  while (n > 0n) {
    out = SHORTCODE_ALPHABET[Number(n % 64n)] + out;
    n /= 64n;
  }
  return `C${out}`;
};

export const isJpeg = (head: Buffer) =>
  head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
export const isMp4OrMov = (head: Buffer) =>
  head.length >= 8 && head.subarray(4, 8).toString('latin1') === 'ftyp';

/** Fetches a URL as Instagram's crawler would: the status, the first bytes and the size (streamed). */
export const fetchMedia = (
  url: string,
  timeoutMs = 20_000,
): Promise<{ status: number; head: Buffer; size: number }> =>
  new Promise((resolve) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      resolve({ status: 0, head: Buffer.alloc(0), size: 0 });
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      resolve({ status: 0, head: Buffer.alloc(0), size: 0 });
      return;
    }
    const send = parsed.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(parsed, { method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      let headLength = 0;
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (headLength < 16) {
          chunks.push(chunk);
          headLength += chunk.length;
        }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, head: Buffer.concat(chunks), size }));
      res.on('error', () => resolve({ status: 0, head: Buffer.alloc(0), size: 0 }));
    });
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('error', () => resolve({ status: 0, head: Buffer.alloc(0), size: 0 }));
    req.end();
  });

/** Parameters from the query string, a form or a JSON body (Graph takes all three). */
export const paramsOf = (ctx: SimContext): Record<string, unknown> => ({
  ...Object.fromEntries(ctx.query),
  ...(objectOf(ctx.body) ?? {}),
});

export const listOf = (value: unknown): string[] | null => {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value.every((v) => typeof v === 'string') ? (value as string[]) : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      return Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')
        ? (parsed as string[])
        : null;
    } catch {
      return null;
    }
  }
  return trimmed
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
};

export const boolOf = (value: unknown): boolean | null =>
  value === true || value === 'true' ? true : value === false || value === 'false' ? false : null;
