import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BlueskyClient } from '../../functions/platforms/bluesky/client.ts';
import { blueskyAuth } from '../../functions/platforms/bluesky/oauth.ts';
import { checkGuarded, sendGuarded } from '../../functions/platforms/guarded-http.ts';
import { TransportError } from '../../functions/platforms/network-http.ts';
import type { OutboundPolicy } from '../../functions/ports/outbound.ts';
import { type BlueskySimulator, startBlueskySimulator } from '../../simulators/bluesky/simulator.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

/**
 * The Bluesky client and session flow call a channel's own PDS (a host a client or a DID document
 * named) only through the guarded path: its address checked at every connection (no second
 * lookup), refused addresses never sent anything (the token least of all), redirects not followed.
 * Here loopback is allowed, as in the local runtime, so only a loopback PDS can answer; the refused
 * addresses are the unspecified 0.0.0.0 (which Linux connects to this machine) and private ones.
 */

const DID = 'did:plc:alice2345abcdefghijklmno';
const TOKEN = 'bsky-access-jwt-alice';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

/** A listener on 127.0.0.1 that records every request and answers with `answer` (default 404). */
const listener = async (
  answer: (
    req: IncomingMessage,
    body: string,
  ) => { status: number; headers?: Record<string, string>; body?: unknown } = () => ({
    status: 404,
  }),
) => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
      const reply = answer(req, Buffer.concat(chunks).toString('utf8'));
      res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

type Listener = Awaited<ReturnType<typeof listener>>;
const open: Listener[] = [];
const started = async (...args: Parameters<typeof listener>) => {
  const one = await listener(...args);
  open.push(one);
  return one;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((one) => one.stop()));
});

/** The local runtime's policy: loopback (and plain http to it) allowed; `answers` decides DNS. */
const localPolicy = (answers: (host: string) => string): OutboundPolicy & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    resolve: async (host) => {
      asked.push(host);
      const address = answers(host);
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    },
    allowLoopback: () => true,
  };
};

let sim: BlueskySimulator;
beforeAll(async () => {
  sim = await startBlueskySimulator();
});
afterAll(async () => {
  await sim?.stop();
});

/** A client whose configured PDS is the simulator (trusted), calling `serviceUrl` as the channel's own. */
const clientFor = (policy: OutboundPolicy) =>
  new BlueskyClient({ baseUrl: sim.url, timeoutMs: 2_000, outbound: policy });
const inputAt = (serviceUrl: string) => blockInput({ accessToken: TOKEN, remoteAccountId: DID, serviceUrl });

describe('a channel’s own PDS goes through the guarded path', () => {
  it('a stored PDS the policy refuses (http://0.0.0.0:<port>, as a DID document made the old code store it) fails every call permanently, and nothing reaches it', async () => {
    const named = await started(() => ({
      status: 200,
      body: { uri: `at://${DID}/app.bsky.feed.post/x`, cid: 'c' },
    }));
    const policy = localPolicy(() => '127.0.0.1');
    const client = clientFor(policy);
    const input = inputAt(`http://0.0.0.0:${named.port}`);
    const block = { remoteId: `at://${DID}/app.bsky.feed.post/x`, remoteUrl: 'https://bsky.app/x', meta: {} };
    const failures = [
      await failureOf(client.publish(input('Hello'))),
      await failureOf(client.lookup({ ...input('Hello'), since: new Date() })),
      await failureOf(client.metrics({ credentials: input('x').credentials, block })),
      await failureOf(client.delete({ credentials: input('x').credentials, block } as never)),
    ];
    for (const failure of failures) {
      expect(failure).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
      expect(failure.details.outcomeUnknown).toBeUndefined();
      expect(failure.message).toMatch(/0\.0\.0\.0 is an unspecified address/);
    }
    expect(named.seen).toEqual([]);
  });

  it('refuses plain http:// to a PDS that is not on loopback, and loopback itself when it is not allowed', async () => {
    const policy = localPolicy(() => '93.184.215.14');
    const strict = { ...localPolicy(() => '127.0.0.1'), allowLoopback: () => false };
    const publicHttp = await failureOf(clientFor(policy).publish(inputAt('http://93.184.215.14')('Hi')));
    expect(publicHttp).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
    const named = await started();
    const loopback = await failureOf(
      clientFor(strict).publish(inputAt(`https://localhost:${named.port}`)('Hi')),
    );
    expect(loopback).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
    expect(loopback.message).toMatch(/localhost resolves to 127\.0\.0\.1, which is a loopback address/);
    expect(named.seen).toEqual([]);
  });

  it('DNS rebinding: the PDS’s name answers loopback for the first publish and a private address later; the later call is refused and nothing is sent', async () => {
    const port = new URL(sim.url).port;
    let answer = '127.0.0.1';
    const policy = localPolicy(() => answer);
    const client = clientFor(policy);
    const input = inputAt(`http://localhost:${port}`);
    sim.reset();
    await client.publish(input('First, at a checked address'));
    expect(sim.records().map((r) => r.text)).toEqual(['First, at a checked address']);

    answer = '10.0.0.7';
    const refused = await failureOf(client.publish(input('Second, after the name moved')));
    expect(refused).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
    expect(refused.message).toMatch(/localhost resolves to 10\.0\.0\.7, which is a private network address/);
    expect(sim.records().map((r) => r.text)).toEqual(['First, at a checked address']);
    // Both publishes looked the name up at their own connection.
    expect(policy.asked.filter((host) => host === 'localhost').length).toBeGreaterThanOrEqual(2);
  });

  it('a redirect from the PDS (uploadBlob answered 307 to http://0.0.0.0:<port>) is not followed: its target gets nothing, the token goes nowhere else, nothing is posted', async () => {
    const target = await started(() => ({ status: 200, body: { blob: { ref: 'x' } } }));
    const pds = await started((req) =>
      req.url?.startsWith('/xrpc/com.atproto.repo.uploadBlob')
        ? {
            status: 307,
            headers: { location: `http://0.0.0.0:${target.port}/xrpc/com.atproto.repo.uploadBlob` },
          }
        : { status: 500, body: { error: 'Unexpected' } },
    );
    const png = Buffer.from(mediaFiles.png());
    const storage = createServer((_req, res) =>
      res.writeHead(200, { 'content-length': png.length }).end(png),
    );
    await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
    try {
      const policy = localPolicy(() => '127.0.0.1');
      const failure = await failureOf(
        clientFor(policy).publish(
          inputAt(`http://localhost:${pds.port}`)('With an image', {
            media: [
              {
                mediaId: 'med_redirected',
                mimeType: 'image/png',
                size: png.length,
                altText: null,
                url: `http://127.0.0.1:${(storage.address() as AddressInfo).port}/image.png`,
              },
            ],
          }),
        ),
      );
      expect(failure).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
      expect(failure.message).toMatch(/answered 307 redirecting to http:\/\/0\.0\.0\.0.*not followed/);
      expect(target.seen).toEqual([]);
      expect(pds.seen.map((s) => s.url)).toEqual(['/xrpc/com.atproto.repo.uploadBlob']);
    } finally {
      await new Promise<void>((resolve) => storage.close(() => resolve()));
    }
  });
});

describe('the Bluesky session flow goes through the guarded path', () => {
  const jwt = (seconds: number) =>
    `e30.${Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + seconds })).toString('base64url')}.x`;
  const app = { clientId: '', clientSecret: '' };

  it('createSession answered with a DID document naming a refused PDS (http://0.0.0.0:<port>) is refused before it can be stored; refresh and deleteSession to a stored one send nothing', async () => {
    const named = await started(() => ({ status: 200, body: {} }));
    const pds = await started(() => ({
      status: 200,
      body: {
        did: DID,
        handle: 'alice.test',
        accessJwt: jwt(7200),
        refreshJwt: jwt(86400),
        didDoc: {
          id: DID,
          service: [
            {
              id: '#atproto_pds',
              type: 'AtprotoPersonalDataServer',
              serviceEndpoint: `http://0.0.0.0:${named.port}`,
            },
          ],
        },
      },
    }));
    const auth = blueskyAuth({
      baseUrls: { bluesky: `http://127.0.0.1:${pds.port}` },
      timeoutMs: 2_000,
      outbound: localPolicy(() => '127.0.0.1'),
    });
    const refused = await failureOf(
      auth.createSession?.({
        identifier: 'alice.test',
        appPassword: 'x',
        serviceUrl: 'https://bsky.social',
      }) ?? Promise.resolve(),
    );
    expect(refused).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
    expect(refused.message).toMatch(
      /DID document names its PDS at http:\/\/0\.0\.0\.0:\d+: 0\.0\.0\.0 is an unspecified address/,
    );

    const tokens = {
      accessToken: jwt(7200),
      refreshToken: jwt(86400),
      expiresAt: null,
      refreshExpiresAt: null,
      scopes: [],
      issuedAt: new Date().toISOString(),
    };
    const stored = `http://0.0.0.0:${named.port}`;
    const refresh = await failureOf(auth.refresh({ app, tokens, serviceUrl: stored }));
    expect(refresh).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
    const revoke = await failureOf(auth.revoke?.({ app, tokens, serviceUrl: stored }) ?? Promise.resolve());
    expect(revoke).toMatchObject({ kind: 'permanent', details: { notAllowed: true } });
    expect(named.seen).toEqual([]);
  });
});

describe('the guarded path itself', () => {
  /** A resolver that fails the test if it is asked: refusals that need no lookup make none. */
  const noLookup: OutboundPolicy = {
    resolve: async (host) => {
      throw new Error(`looked up ${host}`);
    },
    allowLoopback: () => false,
  };
  const refusedBefore = async (policy: OutboundPolicy, url: string) => {
    const error = await sendGuarded(policy, { method: 'GET', url, timeoutMs: 1_000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, url).toBeInstanceOf(TransportError);
    expect(error, url).toMatchObject({ sent: false, code: 'URL_NOT_ALLOWED' });
    return (error as TransportError).message;
  };

  it('refuses, before any lookup or connection, what can never be allowed', async () => {
    for (const url of [
      'http://93.184.215.14/xrpc/x', // plain http
      'ftp://pds.example/x',
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/xrpc/x',
      'https://0.0.0.0/xrpc/x',
      'https://127.0.0.1/xrpc/x', // loopback, not allowed here
      'https://[::ffff:10.0.0.1]/xrpc/x',
      'https://[fd00:ec2::254]/xrpc/x',
      'https://user:pw@pds.example/xrpc/x',
      'https://bad_label-.example/xrpc/x',
    ]) {
      await refusedBefore(noLookup, url);
    }
    const local = { ...noLookup, allowLoopback: () => true };
    expect(await refusedBefore(local, 'http://10.0.0.1:4555/x')).toMatch(/only to loopback addresses/);
    expect(await refusedBefore(local, 'http://93.184.215.14/x')).toMatch(/only to loopback addresses/);
  });

  it('refuses a name when any address it resolves to is refused, and plain http to a name that is not loopback', async () => {
    const mixed = localPolicy((host) => (host === 'pds.test' ? '127.0.0.1' : '93.184.215.14'));
    const twoAnswers: OutboundPolicy = {
      ...mixed,
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '192.168.1.9', family: 4 },
      ],
    };
    const split = await sendGuarded(twoAnswers, {
      method: 'GET',
      url: 'https://pds.test/x',
      timeoutMs: 1_000,
    }).catch((e: unknown) => e);
    expect(split).toMatchObject({ sent: false, code: 'URL_NOT_ALLOWED' });
    expect((split as Error).message).toMatch(
      /pds\.test resolves to 192\.168\.1\.9, which is a private network address/,
    );
    const plainPublic = await sendGuarded(mixed, {
      method: 'GET',
      url: 'http://elsewhere.test/x',
      timeoutMs: 1_000,
    }).catch((e: unknown) => e);
    expect(plainPublic).toMatchObject({ sent: false, code: 'URL_NOT_ALLOWED' });
  });

  it('never follows a redirect, even to an address it would allow; checkGuarded sends nothing', async () => {
    const target = await started(() => ({ status: 200, body: {} }));
    const redirecting = await started(() => ({
      status: 302,
      headers: { location: `http://127.0.0.1:${target.port}/x` },
    }));
    const policy = localPolicy(() => '127.0.0.1');
    const error = await sendGuarded(policy, {
      method: 'GET',
      url: `http://localhost:${redirecting.port}/x`,
      headers: { authorization: 'Bearer secret' },
      timeoutMs: 1_000,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ sent: true, code: 'REDIRECT_NOT_FOLLOWED' });
    expect(redirecting.seen).toHaveLength(1);
    expect(target.seen).toEqual([]);

    await checkGuarded(policy, `http://localhost:${target.port}`);
    await expect(checkGuarded(policy, `http://0.0.0.0:${target.port}`)).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    expect(target.seen).toEqual([]);
  });
});
