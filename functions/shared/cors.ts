/**
 * Which browser origins may call the API, and with what: one definition for API Gateway's CORS
 * configuration (lib/constructs/http-api.ts, from the `corsOrigins` context) and the local HTTP
 * server (functions/adapters/local/http-server.ts, from CORS_ORIGINS). None by default: a browser
 * app on another origin gets no answer it may read until its origin is listed.
 */

/** What a browser app may send: the key (either header), a JSON body and an idempotency key. */
export const CORS_ALLOW_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-api-key'] as const;
export const CORS_ALLOW_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The answer headers a browser app may read besides the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = [
  'idempotent-replayed',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-request-id',
] as const;
/** How long a browser may keep a preflight's answer (browsers cap it lower: Chrome at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 3600;

/**
 * A comma-separated list of origins (`https://app.example.com,http://localhost:5173`), checked:
 * each is a bare http(s) origin (scheme, host, port; no path, no `*`). Empty or absent: none.
 */
export const parseCorsOrigins = (raw: string | undefined, source: string): string[] => {
  if (raw === undefined || raw.trim() === '') return [];
  const origins = raw
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  for (const origin of origins) {
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      throw new Error(
        `${source} must list origins such as https://app.example.com (scheme and host, no path, no *), got ${origin}`,
      );
    }
  }
  return [...new Set(origins)];
};

/**
 * The CORS headers API Gateway adds for a request from `origin`: none unless the origin is
 * listed; on a preflight, what may be sent and for how long, otherwise what may be read.
 */
export const corsHeadersFor = (
  allowed: readonly string[],
  origin: string | undefined,
  preflight: boolean,
): Record<string, string> => {
  if (!origin || !allowed.includes(origin)) return {};
  return preflight
    ? {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': CORS_ALLOW_METHODS.join(','),
        'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS.join(','),
        'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
      }
    : {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS.join(','),
      };
};
