/**
 * CORS, locally as API Gateway does it on AWS: allowed origins are configuration (CORS_ORIGINS,
 * none by default); with origins listed, a preflight is answered without running a function, and
 * only a listed origin gets Access-Control-* headers, on the preflight and on the answer itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from '../../functions/shared/cors.ts';
import { sharedTestRuntime, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';
const STRANGER = 'https://evil.example.net';

let configured: TestRuntime;
let plain: TestRuntime;

beforeAll(async () => {
  [configured, plain] = await Promise.all([
    sharedTestRuntime({ env: { CORS_ORIGINS: `${APP}, ${DEV}/` } }),
    sharedTestRuntime(),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([configured?.destroy(), plain?.destroy()]);
});

/**
 * A browser's preflight. Sent with node:http, not fetch: the suite checks every fetch answer against
 * the OpenAPI document, which describes the API's operations, not the gateway's preflight answers.
 */
const preflight = (rt: TestRuntime, path: string, origin: string) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = request(`${rt.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-api-key,content-type,idempotency-key',
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );

const corsHeaders = (headers: Record<string, string | string[] | undefined> | Headers) =>
  Object.fromEntries(
    (headers instanceof Headers ? [...headers.entries()] : Object.entries(headers)).filter(([name]) =>
      name.toLowerCase().startsWith('access-control-'),
    ),
  );

describe('CORS', () => {
  it('answers a listed origin’s preflight itself, with what it may send and for how long', async () => {
    for (const origin of [APP, DEV]) {
      const answer = await preflight(configured, '/v1/posts', origin);
      expect(answer.status).toBe(204);
      expect(answer.body).toBe('');
      expect(answer.headers['access-control-allow-origin']).toBe(origin);
      expect(String(answer.headers['access-control-allow-methods']).split(',')).toEqual(
        expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
      );
      expect(String(answer.headers['access-control-allow-headers']).split(',')).toEqual(
        expect.arrayContaining([...CORS_ALLOW_HEADERS]),
      );
      expect(Number(answer.headers['access-control-max-age'])).toBeGreaterThan(0);
      // No function ran: a function's answer always carries its request id.
      expect(answer.headers['x-request-id']).toBeUndefined();
    }
  });

  it('gives an unlisted origin’s preflight no CORS headers, so its browser refuses the call', async () => {
    const answer = await preflight(configured, '/v1/posts', STRANGER);
    expect(answer.status).toBe(204);
    expect(corsHeaders(answer.headers)).toEqual({});
  });

  it('lets a listed origin read the answer and its rate-limit and request-id headers; nobody else', async () => {
    const listed = await configured.api('/v1/platforms', { headers: { origin: APP } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(listed.headers.get('access-control-expose-headers')?.split(',')).toEqual(
      expect.arrayContaining([...CORS_EXPOSE_HEADERS]),
    );
    expect(listed.headers.get('x-ratelimit-remaining')).not.toBeNull();

    // Errors too: a browser app reads the envelope of a refused key.
    const refused = await configured.api('/v1/platforms', { key: 'sk_live_nope', headers: { origin: DEV } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(DEV);

    const stranger = await configured.api('/v1/platforms', { headers: { origin: STRANGER } });
    expect(stranger.status).toBe(200);
    expect(corsHeaders(stranger.headers)).toEqual({});
  });

  it('allows no origin by default: no CORS headers, and OPTIONS is an unknown method like any other', async () => {
    const answer = await plain.api('/v1/platforms', { headers: { origin: APP } });
    expect(answer.status).toBe(200);
    expect(corsHeaders(answer.headers)).toEqual({});
    const options = await preflight(plain, '/v1/posts', APP);
    expect(options.status).toBe(405);
    expect(corsHeaders(options.headers)).toEqual({});
  });

  it('refuses to start with an origin that is not one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-cors-'));
    try {
      for (const origins of ['https://app.example.com/path', '*']) {
        await expect(startTestRuntime({ dataDir, env: { CORS_ORIGINS: origins } }), origins).rejects.toThrow(
          /CORS_ORIGINS must list origins/,
        );
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
