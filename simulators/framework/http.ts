import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { SimResponse, SimRoute } from './types.ts';

/** The HTTP plumbing of the simulators' server: route matching, bodies, answers. */

const MAX_BODY_BYTES = 5 * 1024 * 1024;

export interface CompiledRoute {
  route: SimRoute;
  segments: string[];
}

export const splitPath = (path: string) => path.split('/').filter((segment) => segment !== '');

export const matchRoute = (compiled: CompiledRoute, rawSegments: string[]): Record<string, string> | null => {
  if (compiled.segments.length !== rawSegments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < rawSegments.length; i++) {
    const pattern = compiled.segments[i] as string;
    const raw = rawSegments[i] as string;
    if (pattern.startsWith(':')) {
      try {
        params[pattern.slice(1)] = decodeURIComponent(raw);
      } catch {
        return null;
      }
    } else if (pattern !== raw) {
      return null;
    }
  }
  return params;
};

export const readBody = (req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });

export const send = (res: ServerResponse, response: SimResponse) => {
  const headers: Record<string, string | number> = { ...(response.headers ?? {}) };
  let payload: string | undefined;
  if (response.html !== undefined) {
    payload = response.html;
    headers['content-type'] = 'text/html; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(payload);
  } else if (response.body !== undefined) {
    payload = JSON.stringify(response.body);
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = Buffer.byteLength(payload);
  } else {
    headers['content-length'] = 0;
  }
  res.writeHead(response.status, headers);
  res.end(payload);
};

/** Reads a header that may be repeated, as one string. */
export const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** A plain JSON object, or null. */
export const objectOf = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
