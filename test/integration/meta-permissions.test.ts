import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstagramClient } from '../../functions/platforms/instagram/client.ts';
import {
  INSTAGRAM_GRAPH_VERSION,
  INSTAGRAM_SCOPES,
  instagramAuth,
} from '../../functions/platforms/instagram/oauth.ts';
import { ThreadsClient } from '../../functions/platforms/threads/client.ts';
import { THREADS_SCOPES, threadsAuth } from '../../functions/platforms/threads/oauth.ts';
import type { NetworkAuth } from '../../functions/ports/network-auth.ts';
import type {
  MediaForNetwork,
  NetworkCredentials,
  RemoteBlock,
} from '../../functions/ports/network-client.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { SIM_DEFAULT_REDIRECT_URI } from '../../simulators/framework/oauth.ts';
import { startInstagramSimulator } from '../../simulators/instagram/simulator.ts';
import { startThreadsSimulator, type ThreadsSimulator } from '../../simulators/threads/simulator.ts';
import { startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';

/**
 * Issue 26: the Instagram and Threads simulators require on every data route the permissions
 * Meta documents for it, for tokens granted through their consent (Graph's 403, code 10,
 * otherwise); Herald's consent asks for every permission its clients use; a call refused for a
 * missing permission is a reconnect that names the permission.
 */

let instagram: Simulator;
let threads: ThreadsSimulator;
let files: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  files = await startFileServer((name) =>
    name === 'photo.jpg' ? { bytes: mediaFiles.jpeg(20_000), type: 'image/jpeg' } : undefined,
  );
  instagram = await startInstagramSimulator({ listLagMs: 0, processingMs: 50 });
  threads = await startThreadsSimulator({ switches: { imageProcessingMs: 20 } });
});
afterAll(async () => {
  await instagram?.stop();
  await threads?.stop();
  await files?.close();
});

interface Granted {
  credentials: NetworkCredentials;
  /** The scopes Herald stores with the channel. */
  scopes: string[];
}

/**
 * A token from Herald's connect flow through the simulator's consent, as `user`: Herald's scopes,
 * granted all or only `granted` (the user unticked the others).
 */
const grant = async (
  auth: NetworkAuth,
  network: 'instagram' | 'threads',
  user: string,
  granted?: readonly string[],
): Promise<Granted> => {
  const app = { clientId: `herald-sim-${network}`, clientSecret: `herald-sim-secret-${network}` };
  const authorize = auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>;
  const url = new URL(
    authorize({ app, redirectUri: SIM_DEFAULT_REDIRECT_URI, state: 's', codeChallenge: null }),
  );
  url.searchParams.set('sim_user', user);
  if (granted) url.searchParams.set('sim_scopes', granted.join(','));
  const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') as string);
  const code = back.searchParams.get('code');
  expect(code, back.toString()).not.toBeNull();
  const tokens = await (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
    app,
    code: code as string,
    redirectUri: SIM_DEFAULT_REDIRECT_URI,
    codeVerifier: null,
  });
  const { remoteAccountId } = await auth.identify({ app, tokens });
  return { credentials: { accessToken: tokens.accessToken, remoteAccountId }, scopes: tokens.scopes };
};

const without = (scopes: readonly string[], missing: string) => scopes.filter((s) => s !== missing);
const dropPermissions = async (simUrl: string, user: string, drop: string[]) => {
  const res = await fetch(`${simUrl}/_sim/oauth/permissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user, drop }),
  });
  expect(res.status).toBe(204);
};

/** A refusal for a missing permission: a reconnect naming it and saying that reconnecting grants it. */
const expectMissing = (
  error: { kind: string; message: string; details: { tokenExpired?: boolean } },
  permission: string,
) => {
  expect(error.kind).toBe('reconnect');
  expect(error.details.tokenExpired).toBeUndefined();
  expect(error.message).toContain(permission);
  expect(error.message).toMatch(/missing permission/);
  expect(error.message).toMatch(/Reconnecting the channel grants it/);
};

describe('Instagram (Instagram Login): permissions on every data route', () => {
  const auth = () => instagramAuth({ baseUrls: { instagram: instagram.url }, timeoutMs: 5_000 });
  const client = () => new InstagramClient({ baseUrl: instagram.url, timeoutMs: 3_000, pollIntervalMs: 30 });
  const jpeg = (): MediaForNetwork => ({
    mediaId: 'med_photo',
    mimeType: 'image/jpeg',
    size: 20_000,
    altText: null,
    url: `${files.url}/photo.jpg`,
  });
  const post = (who: Granted, caption: string) =>
    client().publish(blockInput(who.credentials)(caption, { media: [jpeg()] }));
  const comment = (who: Granted, root: RemoteBlock, text: string) =>
    client().publish(blockInput(who.credentials)(text, { parent: { block: root, root } }));
  const raw = (who: Granted, path: string) =>
    fetch(`${instagram.url}/${INSTAGRAM_GRAPH_VERSION}${path}`, {
      headers: { authorization: `Bearer ${who.credentials.accessToken}` },
    });

  it("Herald's consent asks for every permission its calls use: post, comment, lookups, metrics and a comment's delete work; the exchange echoes what was granted", async () => {
    const full = await grant(auth(), 'instagram', 'ig-full');
    expect([...full.scopes].sort()).toEqual([...INSTAGRAM_SCOPES].sort());
    const since = new Date(Date.now() - 2_000);
    const root = await post(full, 'Permissions post');
    const reply = await comment(full, root, 'Permissions comment');
    expect(
      await client().metrics({ credentials: full.credentials, block: root, ageSeconds: 60 }),
    ).toHaveProperty('views');
    await client().metrics({ credentials: full.credentials, block: reply, ageSeconds: 60 });
    const lookup = { credentials: full.credentials, idempotencyKey: 'k', since };
    expect((await client().lookup({ ...lookup, content: 'Permissions post', parent: null }))?.remoteId).toBe(
      root.remoteId,
    );
    expect(
      (await client().lookup({ ...lookup, content: 'Permissions comment', parent: { block: root, root } }))
        ?.remoteId,
    ).toBe(reply.remoteId);
    await client().delete({ credentials: full.credentials, block: reply });

    // The user unticked one: only what was granted is issued, and echoed as `permissions`.
    const narrow = await grant(
      auth(),
      'instagram',
      'ig-narrow',
      without(INSTAGRAM_SCOPES, 'instagram_business_manage_insights'),
    );
    expect([...narrow.scopes].sort()).toEqual(
      without(INSTAGRAM_SCOPES, 'instagram_business_manage_insights').sort(),
    );
  });

  it("a call the token's permissions do not cover gets Graph's own refusal: HTTP 403, code 10, IGApiException", async () => {
    const basicOnly = await grant(auth(), 'instagram', 'ig-basic', ['instagram_business_basic']);
    const account = basicOnly.credentials.remoteAccountId;
    const refused = await raw(basicOnly, `/${account}/content_publishing_limit?fields=quota_usage`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
      code: 10,
      type: 'IGApiException',
      message: 'Application does not have permission for this action',
    });
    // The media list needs basic only.
    expect((await raw(basicOnly, `/${account}/media?fields=id`)).status).toBe(200);
    // A token the simulator did not issue is not checked (the other tests' tokens).
    const other = { credentials: { accessToken: 'not-issued', remoteAccountId: account }, scopes: [] };
    expect((await raw(other, `/${account}/content_publishing_limit?fields=quota_usage`)).status).toBe(200);
  });

  it.each([
    ['instagram_business_content_publish', 'publishing a post'],
    ['instagram_business_manage_comments', 'a comment'],
    ['instagram_business_manage_insights', "a post's metrics"],
  ])('without %s, %s is a reconnect naming the permission', async (permission, what) => {
    const user = `ig-without-${permission.slice(19)}`;
    const full = await grant(auth(), 'instagram', user);
    const root = await post(full, `Root for ${what}`);
    const lacking = await grant(auth(), 'instagram', user, without(INSTAGRAM_SCOPES, permission));
    const attempt =
      permission === 'instagram_business_content_publish'
        ? post(lacking, `Refused ${what}`)
        : permission === 'instagram_business_manage_comments'
          ? comment(lacking, root, `Refused ${what}`)
          : client().metrics({ credentials: lacking.credentials, block: root, ageSeconds: 60 });
    expectMissing(await failureOf(attempt), permission);
  });

  it('a permission taken back after consent: the next publish is a reconnect naming it; a new consent grants it again', async () => {
    const full = await grant(auth(), 'instagram', 'ig-dropped');
    await dropPermissions(instagram.url, 'ig-dropped', ['instagram_business_content_publish']);
    expectMissing(await failureOf(post(full, 'After the drop')), 'instagram_business_content_publish');
    const again = await grant(auth(), 'instagram', 'ig-dropped');
    expect((await post(again, 'After the new consent')).remoteId).toMatch(/^\d+$/);
  });
});

describe('Threads: permissions on every data route', () => {
  const auth = () => threadsAuth({ baseUrls: { threads: threads.url }, timeoutMs: 5_000 });
  const client = () =>
    new ThreadsClient({
      baseUrl: threads.url,
      timeoutMs: 3_000,
      pollIntervalMs: 20,
      processingWaitMs: 5_000,
    });
  const post = (who: Granted, text: string) => client().publish(blockInput(who.credentials)(text));
  const reply = (who: Granted, root: RemoteBlock, text: string) =>
    client().publish(blockInput(who.credentials)(text, { parent: { block: root, root } }));

  it("Herald's consent asks for every permission its calls use: post, reply, lookups, metrics and delete work", async () => {
    const full = await grant(auth(), 'threads', 'th-full');
    expect([...full.scopes].sort()).toEqual([...THREADS_SCOPES].sort());
    const since = new Date(Date.now() - 2_000);
    const root = await post(full, 'Threads permissions root');
    const answer = await reply(full, root, 'Threads permissions reply');
    const lookup = { credentials: full.credentials, idempotencyKey: 'k', since };
    expect(
      (await client().lookup({ ...lookup, content: 'Threads permissions root', parent: null }))?.remoteId,
    ).toBe(root.remoteId);
    expect(
      (
        await client().lookup({
          ...lookup,
          content: 'Threads permissions reply',
          parent: { block: root, root },
        })
      )?.remoteId,
    ).toBe(answer.remoteId);
    expect(
      await client().metrics({ credentials: full.credentials, block: root, ageSeconds: 60 }),
    ).toHaveProperty('views');
    await client().delete({ credentials: full.credentials, block: answer });
    expect(threads.posts().find((p) => p.id === answer.remoteId)?.deleted).toBe(true);
  });

  it("a call the token's permissions do not cover gets Graph's 403, code 10", async () => {
    const basicOnly = await grant(auth(), 'threads', 'th-basic', ['threads_basic']);
    const refused = await fetch(
      `${threads.url}/v1.0/${basicOnly.credentials.remoteAccountId}/threads_publishing_limit?fields=quota_usage`,
      { headers: { authorization: `Bearer ${basicOnly.credentials.accessToken}` } },
    );
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ code: 10 });
  });

  it.each([
    ['threads_content_publish', 'publishing a post'],
    ['threads_manage_replies', 'publishing a reply'],
    ['threads_read_replies', 'looking up a reply whose answer was lost'],
    ['threads_manage_insights', "a post's metrics"],
    ['threads_delete', 'deleting a post'],
  ])('without %s, %s is a reconnect naming the permission', async (permission, what) => {
    const user = `th-without-${permission.slice(8)}`;
    const full = await grant(auth(), 'threads', user);
    const root = await post(full, `Root for ${what}`);
    const lacking = await grant(auth(), 'threads', user, without(THREADS_SCOPES, permission));
    const since = new Date(Date.now() - 2_000);
    const attempt = {
      threads_content_publish: () => post(lacking, `Refused ${what}`),
      threads_manage_replies: () => reply(lacking, root, `Refused ${what}`),
      threads_read_replies: () =>
        client().lookup({
          credentials: lacking.credentials,
          idempotencyKey: 'k',
          content: `A reply to ${what}`,
          parent: { block: root, root },
          since,
        }),
      threads_manage_insights: () =>
        client().metrics({ credentials: lacking.credentials, block: root, ageSeconds: 60 }),
      threads_delete: () => client().delete({ credentials: lacking.credentials, block: root }),
    }[permission] as () => Promise<unknown>;
    const refused = await failureOf(attempt());
    expectMissing(refused, permission);
    if (permission === 'threads_read_replies') expect(refused.message).toMatch(/looked up again/);
  });

  it('a permission taken back after consent: the next delete is a reconnect naming it; a new consent grants it again', async () => {
    const full = await grant(auth(), 'threads', 'th-dropped');
    const root = await post(full, 'Threads dropped root');
    await dropPermissions(threads.url, 'th-dropped', ['threads_delete']);
    expectMissing(
      await failureOf(client().delete({ credentials: full.credentials, block: root })),
      'threads_delete',
    );
    const again = await grant(auth(), 'threads', 'th-dropped');
    await client().delete({ credentials: again.credentials, block: root });
  });
});
