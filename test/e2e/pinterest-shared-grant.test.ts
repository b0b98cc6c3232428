import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDeps } from '../../functions/runtime/container.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { consentOAuth, expireTokens } from '../support/channels.ts';
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
  const ws = await freshWorkspace([], 'live', options);
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
      expect(await needsReconnectEvents(later)).toEqual([]);
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
    const accounts = getDeps().accounts;
    const channelA = await accounts.getChannel(ws.workspaceId, a.id);
    const channelB = await accounts.getChannel(ws.workspaceId, b.id);
    const grantId = channelA?.grantId as string;
    expect(grantId).toBeTruthy();
    expect(channelB?.grantId).toBe(grantId);
    expect((await accounts.getGrant(ws.workspaceId, grantId))?.channelIds.sort()).toEqual(
      [a.id, b.id].sort(),
    );

    expect((await rt.api(`/channels/${a.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    expect((await accounts.getGrant(ws.workspaceId, grantId))?.channelIds).toEqual([b.id]);
    await expireTokens(rt, 'pinterest');
    await published(ws, await pin(ws, b, 'after the sibling left'));

    expect((await rt.api(`/channels/${b.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
    expect(await accounts.getGrant(ws.workspaceId, grantId)).toBeNull();
  });

  it('connecting the same Pinterest account again refreshes the grant every board of it shares', async () => {
    const ws = await workspace();
    const { user, boards } = await connectBoards(ws);
    const again = await connectBoards(ws, user);
    expect(again.boards.map((board) => board.id).sort()).toEqual(boards.map((board) => board.id).sort());
    const accounts = getDeps().accounts;
    const grantId = (await accounts.getChannel(ws.workspaceId, (boards[0] as { id: string }).id))
      ?.grantId as string;
    expect((await accounts.getGrant(ws.workspaceId, grantId))?.channelIds).toHaveLength(2);
    await expireTokens(rt, 'pinterest');
    for (const board of boards) await published(ws, await pin(ws, board, 'after reconnect'));
  });
});
