/**
 * The OAuth `redirect_uri` Herald sends a network comes from its configuration (the runtime's own
 * base URL locally, the API's URL or PUBLIC_BASE_URL on AWS), never from the request's `Host`
 * header: a forged Host neither changes the callback a network is told to send the user to, nor
 * the one the code is exchanged with.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { sharedTestRuntime, type TestRuntime } from '../support/runtime.ts';

let rt: TestRuntime;
let ws: Awaited<ReturnType<typeof freshWorkspace>>;
const REDIRECT = 'https://client.example/after-connect';
const FORGED_HOST = 'attacker.example';

beforeAll(async () => {
  rt = await sharedTestRuntime();
  ws = await freshWorkspace(rt, []);
});
afterAll(async () => {
  await rt?.destroy();
});

/** A request to the runtime with a Host header of the caller's choosing (fetch cannot set it). */
const withHost = (
  path: string,
  host: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; location: string | undefined; body: string }> =>
  new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: rt.port,
        path,
        method: options.method ?? 'GET',
        headers: { ...options.headers, host },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, location: res.headers.location, body }));
      },
    );
    req.on('error', fail);
    req.end(options.body);
  });

const ownCallback = () => `http://localhost:${rt.port}/v1/channels/callback`;

describe('the OAuth redirect_uri', () => {
  it('is the runtime’s own callback whatever Host the request names, at authorize and at the code exchange', async () => {
    const started = await withHost('/v1/channels/connect', FORGED_HOST, {
      method: 'POST',
      headers: { 'x-api-key': ws.key, 'content-type': 'application/json' },
      body: JSON.stringify({ platform: 'x', redirectUrl: REDIRECT }),
    });
    expect(started.status, started.body).toBe(201);
    const authorizeUrl = new URL(JSON.parse(started.body).authorizeUrl);
    expect(authorizeUrl.searchParams.get('redirect_uri')).toBe(ownCallback());

    // The runtime registered its own callback with the simulators' preset apps, and only that one.
    const swapped = new URL(authorizeUrl);
    swapped.searchParams.set('redirect_uri', `http://${FORGED_HOST}/v1/channels/callback`);
    const refused = await fetch(swapped, { redirect: 'manual' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();

    // The simulator consents and sends the browser back to the callback it was given.
    authorizeUrl.searchParams.set('sim_user', 'forged-host');
    const atNetwork = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(atNetwork.status).toBe(302);
    const callback = new URL(atNetwork.headers.get('location') as string);
    expect(`${callback.origin}${callback.pathname}`).toBe(ownCallback());

    // The browser's request to the callback names another host: the code is still exchanged with
    // the registered callback, so the network accepts it.
    const atHerald = await withHost(`${callback.pathname}${callback.search}`, FORGED_HOST);
    expect(atHerald.status, atHerald.body).toBe(302);
    const landed = new URL(atHerald.location as string);
    expect(`${landed.origin}${landed.pathname}`).toBe(REDIRECT);
    expect(landed.searchParams.get('error'), landed.searchParams.get('error_description') ?? '').toBeNull();
  });
});
