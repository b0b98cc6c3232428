import { createHash } from 'node:crypto';
import { objectOf, type SimContext, SimHttpError } from '../framework/framework.ts';
import { invalidParam } from './errors.ts';

/** Graph's values as Threads writes them (ids, shortcodes, times, parameters), and its media fetch. */
/** Graph's timestamp format: `2026-11-25T23:14:56+0000`. */
export const graphTimestamp = (date: Date) => `${date.toISOString().slice(0, 19)}+0000`;

export const SHORTCODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
export const shortcodeOf = (id: string) => {
  let n = BigInt(id);
  let code = '';
  while (n > 0n) {
    code = SHORTCODE_ALPHABET[Number(n % 64n)] + code;
    n /= 64n;
  }
  return code;
};

/** The simulated username of a Threads user id. */
export const threadsUsernameOf = (userId: string) =>
  `sim_${createHash('sha256').update(userId).digest('hex').slice(0, 8)}`;

let idSequence = 0n;
/** Threads ids: 17-digit numbers, increasing. */
export const nextId = () => {
  idSequence += 1n;
  return (17_841_400_000_000_000n + BigInt(Date.now() % 1_000_000_000) * 1000n + idSequence).toString();
};

/** Parameters from the query string and the body (form or JSON), the body winning. */
export const paramsOf = (ctx: SimContext): Record<string, unknown> => {
  const params: Record<string, unknown> = Object.fromEntries(ctx.query);
  const body = objectOf(ctx.body);
  if (body) Object.assign(params, body);
  return params;
};

export const stringParam = (params: Record<string, unknown>, key: string): string | null => {
  const value = params[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new SimHttpError(invalidParam(`Param ${key} must be a string`));
};

export const fieldsOf = (ctx: SimContext) =>
  new Set(
    (ctx.query.get('fields') ?? 'id')
      .split(',')
      .map((field) => field.trim())
      .filter(Boolean),
  );

/** Fetches a media URL as Threads does (following redirects): its size and type, or null when it does not answer 200. */
export const fetchMedia = async (
  url: string,
): Promise<{ bytes: number; contentType: string | null } | null> => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(15_000) });
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      return null;
    }
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
    return { bytes, contentType: res.headers.get('content-type') };
  } catch {
    return null;
  }
};
