import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshWorkspace } from '../support/accounts.ts';
import { publishNow } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * A PDS is a host a client chose (`service`) or a network's answer named (the DID document of the
 * session): every call to it goes through the guarded path (ARCHITECTURE.md, "Trust at the
 * edges"). Here the runtime's configured Bluesky host is a fake PDS this test controls (so any
 * version of Herald reaches it), and the DID document it answers names the PDS the channel keeps.
 * Loopback is allowed, as in every local runtime: the refused addresses are 0.0.0.0 (which Linux
 * connects to this machine) and private ones a test resolver answers.
 */

const DID = 'did:plc:guardedpds234567abcdefgh';
const jwt = (seconds: number) =>
  `e30.${Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + seconds })).toString('base64url')}.x`;

interface Seen {
  method: string;
  path: string;
  host: string | undefined;
  authorization: string | undefined;
}

/** A plain HTTP listener on 127.0.0.1 recording every request. */
const listen = async (answer: (req: IncomingMessage, body: string) => { status: number; body?: unknown }) => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0] as string,
        host: req.headers.host,
        authorization: req.headers.authorization,
      });
      const reply = answer(req, Buffer.concat(chunks).toString('utf8'));
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Where the fake PDS's DID documents say the account's PDS is (set per test). */
let pdsEndpoint = '';
let pds: Awaited<ReturnType<typeof listen>>;
/** Listens where a refused DID document points (http://0.0.0.0:<port>): must never hear anything. */
let named: Awaited<ReturnType<typeof listen>>;
let rt: TestRuntime;
/** What the test resolver answers for `localhost` (the runtime's checks and connections ask it). */
let localhostIs = '127.0.0.1';
let restore: (() => void) | undefined;

beforeAll(async () => {
  named = await listen(() => ({ status: 200, body: {} }));
  pds = await listen((req, body) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/xrpc/com.atproto.server.createSession') {
      return {
        status: 200,
        body: {
          did: DID,
          handle: 'guarded.test',
          accessJwt: jwt(7200),
          refreshJwt: jwt(90 * 86400),
          didDoc: {
            id: DID,
            service: [
              { id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: pdsEndpoint },
            ],
          },
          active: true,
        },
      };
    }
    if (path === '/xrpc/com.atproto.repo.createRecord') {
      const { rkey } = JSON.parse(body) as { rkey: string };
      return { status: 200, body: { uri: `at://${DID}/app.bsky.feed.post/${rkey}`, cid: 'bafyguarded' } };
    }
    return { status: 400, body: { error: 'InvalidRequest', message: `not served here: ${path}` } };
  });
  rt = await startTestRuntime({
    env: { NETWORK_BASE_URLS: JSON.stringify({ bluesky: `http://127.0.0.1:${pds.port}` }) },
  });
  restore = rt.container.override({
    resolveHost: async (host: string) => {
      const address = host === 'localhost' ? localhostIs : '93.184.215.14';
      return [{ address, family: 4 }];
    },
  });
});
afterAll(async () => {
  restore?.();
  await rt?.destroy();
  await pds?.close();
  await named?.close();
});

const connect = (key: string) =>
  rt.api('/channels', {
    method: 'POST',
    key,
    body: { platform: 'bluesky', identifier: 'guarded.test', appPassword: 'abcd-efgh-ijkl-mnop' },
  });

describe('a Bluesky PDS is called only through the guarded path', () => {
  it('a DID document naming a refused PDS (http://0.0.0.0:<port>): 422 url_not_allowed, nothing stored, nothing sent there', async () => {
    const ws = await freshWorkspace(rt, []);
    pdsEndpoint = `http://0.0.0.0:${named.port}`;
    const res = await connect(ws.key);
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.code).toBe('url_not_allowed');
    expect(res.body.error.message).toMatch(/DID document names its PDS at http:\/\/0\.0\.0\.0:\d+/);
    expect(res.body.error.message).toMatch(/unspecified address/);
    expect((await rt.api('/channels', { key: ws.key })).body.data).toEqual([]);
    expect(await rt.container.deps.channels.listChannels(ws.workspaceId)).toEqual([]);
    expect(named.seen).toEqual([]);
  });

  it('a PDS stored before this check (http://0.0.0.0:<port>) is refused at every publish: the post fails with the reason, no token is sent', async () => {
    const ws = await freshWorkspace(rt, []);
    pdsEndpoint = `http://127.0.0.1:${pds.port}`;
    const res = await connect(ws.key);
    expect(res.status, res.text).toBe(201);
    // What the old code stored from such a DID document.
    const deps = rt.container.deps;
    const record = await deps.channels.getChannel(ws.workspaceId, res.body.id);
    if (!record) throw new Error('the channel was not stored');
    const { channelId: _, tokenCiphertext, ...base } = record;
    await deps.channels.upsertChannel(
      { ...base, serviceUrl: `http://0.0.0.0:${named.port}` },
      async () => tokenCiphertext,
      null,
    );
    expect((await deps.channels.getChannel(ws.workspaceId, res.body.id))?.serviceUrl).toBe(
      `http://0.0.0.0:${named.port}`,
    );

    const post = await publishNow(rt, ws.key, res.body.id, 'To a refused PDS');
    expect(post.status).toBe('failed');
    expect(post.channels[0].error).toMatch(/0\.0\.0\.0 is an unspecified address/);
    expect(named.seen).toEqual([]);
  });

  it('DNS rebinding: the PDS named at connect resolved to an allowed address; once it resolves to a private one, publishing is refused and nothing reaches it', async () => {
    const ws = await freshWorkspace(rt, []);
    // The DID document names the fake PDS under another name: a host Herald did not configure.
    pdsEndpoint = `http://localhost:${pds.port}`;
    localhostIs = '127.0.0.1';
    const res = await connect(ws.key);
    expect(res.status, res.text).toBe(201);
    const first = await publishNow(rt, ws.key, res.body.id, 'While localhost is loopback');
    expect(first.status).toBe('published');
    const creates = () => pds.seen.filter((s) => s.path === '/xrpc/com.atproto.repo.createRecord');
    expect(creates().map((s) => s.host)).toEqual([`localhost:${pds.port}`]);

    localhostIs = '10.1.2.3';
    const seenBefore = pds.seen.length;
    const second = await publishNow(rt, ws.key, res.body.id, 'After localhost moved');
    expect(second.status).toBe('failed');
    expect(second.channels[0].error).toMatch(
      /localhost resolves to 10\.1\.2\.3, which is a private network address/,
    );
    expect(pds.seen.length).toBe(seenBefore);
    localhostIs = '127.0.0.1';
  });
});
