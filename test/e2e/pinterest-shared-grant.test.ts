import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { sealTokens, tokenFields } from '../../functions/core/channels/tokens.ts';
import { tokenSetOf } from '../../functions/platforms/oauth-http.ts';
import { PINTEREST_SCOPES, pinterestAuth } from '../../functions/platforms/pinterest/oauth.ts';
import { simPinterestBoards } from '../../simulators/pinterest/oauth.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { consentOAuth, expireTokens, simUrl, storedChannel } from '../support/channels.ts';
import { mediaFiles } from '../support/media-files.ts';
import { uploadMedia } from '../support/media-upload.ts';
import { needsReconnectEvents } from '../support/outbox.ts';
import { waitForPost } from '../support/publishing.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Issue 26, defect 6: Pinterest's continuous refresh tokens rotate (every refresh answers a new
 * refresh token; the simulator kills the one just used), and the boards of one Pinterest account
 * are connected from one grant. Each board channel must not keep its own copy of that grant: the
 * first board to refresh would leave its siblings with a dead refresh token, and they would fall to
 * needs_reconnect. The grant is stored once and shared.
 */

let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime({ env: { NETWORK_TIMEOUT_MS: '5000', PUBLISH_RETRY_BASE_SECONDS: '0.2' } });
});
afterAll(async () => {
  await rt?.destroy();
});

type Ws = Awaited<ReturnType<typeof freshWorkspace>> & { imageId: string };

/** A workspace with an image to pin (a pin needs one). */
const workspace = async (options: { keepEvents?: boolean } = {}): Promise<Ws> => {
  const ws = await freshWorkspace(rt, [], 'live', options);
  const image = await uploadMedia(rt, ws.key, mediaFiles.png(2_000), 'a.png', 'image/png');
  return { ...ws, imageId: image.id as string };
};

/** The boards of one Pinterest user (a new one unless given) connected as channels, from one grant. */
const connectBoards = async (ws: Ws, user = `p${randomBytes(3).toString('hex')}`) => {
  const landed = await consentOAuth(rt, 'pinterest', { key: ws.key, user });
  expect(landed.get('error')).toBeNull();
  const completed = await rt.api('/channels/connect/complete', {
    method: 'POST',
    key: ws.key,
    body: { connectCode: landed.get('connectCode') },
  });
  expect(completed.status, completed.text).toBe(200);
  const targets = completed.body.data as { id: string }[];
  expect(targets).toHaveLength(2);
  const chosen = await rt.api(`/channels/connect/${completed.body.connectionId}/targets`, {
    method: 'POST',
    key: ws.key,
    body: { targetIds: targets.map((t) => t.id) },
  });
  expect(chosen.status, chosen.text).toBe(201);
  const channels = chosen.body.data as { id: string; remoteAccountId?: string }[];
  return { user, boards: channels.map((c, i) => ({ id: c.id, board: (targets[i] as { id: string }).id })) };
};

const pin = async (ws: Ws, board: { id: string; board: string }, label: string) => {
  const created = await rt.api('/posts', {
    method: 'POST',
    key: ws.key,
    body: {
      intent: 'now',
      channels: [
        {
          channelId: board.id,
          options: { boardId: board.board, link: 'https://example.com/' },
          blocks: [{ content: `${label} ${randomBytes(3).toString('hex')}`, mediaIds: [ws.imageId] }],
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
};

const published = async (ws: Ws, postId: string) => {
  const post = await waitForPost(rt, postId, ws.key, 60_000);
  expect(post.status, JSON.stringify(post.channels)).toBe('published');
};

const statusOf = async (ws: Ws, channelId: string) =>
  (await rt.api(`/channels/${channelId}`, { key: ws.key })).body.status as string;

describe('Pinterest boards connected from one grant', () => {
  it('after one board refreshes the rotating refresh token, its sibling still publishes (and stays connected)', async () => {
    const ws = await workspace({ keepEvents: true });
    const { boards } = await connectBoards(ws);
    const [a, b] = boards as [{ id: string; board: string }, { id: string; board: string }];
    for (let round = 1; round <= 3; round++) {
      await expireTokens(rt, 'pinterest');
      // The first board refreshes (the refresh token rotates); the second must see the new tokens.
      const first = round % 2 === 1 ? a : b;
      const second = round % 2 === 1 ? b : a;
      await published(ws, await pin(ws, first, `first ${round}`));
      const later = await pin(ws, second, `second ${round}`);
      await published(ws, later);
      expect(await needsReconnectEvents(rt, later)).toEqual([]);
    }
    expect(await statusOf(ws, a.id)).toBe('connected');
    expect(await statusOf(ws, b.id)).toBe('connected');
  });

  it('both boards publishing at once during an expiry refresh the grant once: every post publishes', async () => {
    const ws = await workspace();
    const { boards } = await connectBoards(ws);
    await expireTokens(rt, 'pinterest');
    const ids = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        pin(ws, boards[i % 2] as { id: string; board: string }, `burst ${i}`),
      ),
    );
    for (const id of ids) await published(ws, id);
    for (const board of boards) expect(await statusOf(ws, board.id)).toBe('connected');
  });

  it('the boards share one stored grant; disconnecting one keeps it for the other, the last removes it', async () => {
    const ws = await workspace();
    const { boards } = await connectBoards(ws);
    const [a, b] = boards as [{ id: string; board: string }, { id: string; board: string }];
    const { channels, grants } = rt.container.deps;
    const channelA = await channels.getChannel(ws.workspaceId, a.id);
    const channelB = await channels.getChannel(ws.workspaceId, b.id);
    const grantId = channelA?.grantId as string;
    expect(grantId).toBeTruthy();
    expect(channelB?.grantId).toBe(grantId);
    expect((await grants.getGrant(ws.workspaceId, grantId))?.channelIds.sort()).toEqual([a.id, b.id].sort());

    expect((await rt.api(`/channels/${a.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    expect((await grants.getGrant(ws.workspaceId, grantId))?.channelIds).toEqual([b.id]);
    await expireTokens(rt, 'pinterest');
    await published(ws, await pin(ws, b, 'after the sibling left'));

    expect((await rt.api(`/channels/${b.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    expect(await grants.getGrant(ws.workspaceId, grantId)).toBeNull();
  });

  it('connecting the same Pinterest account again refreshes the grant every board of it shares', async () => {
    const ws = await workspace();
    const { user, boards } = await connectBoards(ws);
    const again = await connectBoards(ws, user);
    expect(again.boards.map((board) => board.id).sort()).toEqual(boards.map((board) => board.id).sort());
    const { channels, grants } = rt.container.deps;
    const grantId = (await channels.getChannel(ws.workspaceId, (boards[0] as { id: string }).id))
      ?.grantId as string;
    expect((await grants.getGrant(ws.workspaceId, grantId))?.channelIds).toHaveLength(2);
    await expireTokens(rt, 'pinterest');
    for (const board of boards) await published(ws, await pin(ws, board, 'after reconnect'));
  });
});

describe('a board channel that holds its own copy of the tokens (connected before shared grants)', () => {
  /** The consent and code exchange as Herald made them before: no continuous_refresh (a legacy 365-day refresh token). */
  const legacyTokens = async (user: string) => {
    const app = SIM_OAUTH_APPS.pinterest;
    const redirectUri = `${rt.url}/v1/channels/callback`;
    const authorize = new URL(`${simUrl(rt, 'pinterest')}/oauth/`);
    for (const [name, value] of Object.entries({
      client_id: app.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: PINTEREST_SCOPES.join(','),
      state: 'legacy',
      sim_user: user,
    }))
      authorize.searchParams.set(name, value);
    const redirected = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(redirected.headers.get('location') as string).searchParams.get('code') as string;
    const exchanged = await fetch(`${simUrl(rt, 'pinterest')}/v5/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
    });
    const body = (await exchanged.json()) as Record<string, unknown>;
    expect(exchanged.status, JSON.stringify(body)).toBe(200);
    // What Pinterest answers an app created before 2025-09-25 that does not ask for continuous tokens.
    expect(body.refresh_token_expires_in).toBe(365 * 86400);
    return { tokens: tokenSetOf('Pinterest', body) };
  };

  it('keeps publishing across refreshes: its legacy refresh token becomes a continuous one, rotated in its own record', async () => {
    const ws = await workspace();
    const user = `l${randomBytes(3).toString('hex')}`;
    const { tokens } = await legacyTokens(user);
    const deps = rt.container.deps;
    const owner = (await pinterestAuth({
      baseUrls: { pinterest: simUrl(rt, 'pinterest') },
      timeoutMs: 5000,
    }).identify({
      app: SIM_OAUTH_APPS.pinterest,
      tokens,
    })) as { remoteAccountId: string };
    const board = simPinterestBoards(owner.remoteAccountId)[0] as { id: string; name: string };
    const now = new Date();
    const policy = { marginSeconds: 86400, proactiveAfterSeconds: 7 * 86400, rotatesRefreshToken: false };
    const { channel } = await deps.channels.upsertChannel(
      {
        accountId: ws.accountId,
        workspaceId: ws.workspaceId,
        platform: 'pinterest',
        name: board.name,
        remoteAccountId: board.id,
        connection: 'connected',
        threadsPermitted: false,
        ...tokenFields(policy, tokens, now),
        scopes: tokens.scopes,
        authKind: 'oauth2',
        createdAt: now.toISOString(),
      },
      (channelId) => sealTokens(deps.tokenCipher(), channelId, tokens),
      null,
    );
    expect(channel.grantId).toBeUndefined();
    const own = { id: channel.channelId, board: board.id };
    const refreshTokens = [(await storedChannel(rt, ws.workspaceId, own.id)).tokens.refreshToken];
    for (let round = 1; round <= 2; round++) {
      await expireTokens(rt, 'pinterest');
      await published(ws, await pin(ws, own, `own copy ${round}`));
      const stored = await storedChannel(rt, ws.workspaceId, own.id);
      expect(stored.connection).toBe('connected');
      refreshTokens.push(stored.tokens.refreshToken);
    }
    // Each refresh stored the new refresh token in the channel's own record.
    expect(new Set(refreshTokens).size).toBe(3);
  });
});
