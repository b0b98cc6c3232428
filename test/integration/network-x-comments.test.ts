import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { XClient } from '../../functions/platforms/x/client.ts';
import { xAuth } from '../../functions/platforms/x/oauth.ts';
import type { NetworkAuth } from '../../functions/ports/network-auth.ts';
import type {
  CommentsInput,
  MediaForNetwork,
  RemoteBlock,
  RemoteComment,
} from '../../functions/ports/network-client.ts';
import { pkceChallenge } from '../../simulators/framework/oauth.ts';
import { startXSimulator, type XSimulator, xIdForHandle } from '../../simulators/x/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simCommentHooks } from '../support/sim-comments.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Issue 31: the X client's comments against the X simulator: the conversation from recent search
 * (paged, nested, `since` as `start_time` clamped into search's 7 days, search's lag and its own
 * rate limit), one comment by id, replies with images, a lost reply found in the timeline, deletes.
 */

const TOKEN = 'x-token-alice';
const credentials = { accessToken: TOKEN, remoteAccountId: 'alice' };
const input = blockInput(credentials);

let sim: XSimulator;
let client: XClient;
const files = new Map<string, Buffer>();
let fileServer: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  // No lag here (timeline or search): the lag has its own test below.
  sim = await startXSimulator({ timelineLagMs: 0, searchLagMs: 0, holdMs: 2_000 });
  client = new XClient({ baseUrl: sim.url, timeoutMs: 300, media: { sleep: async () => {} } });
  fileServer = await startFileServer(servedFrom(files));
});
afterAll(async () => {
  await sim?.stop();
  await fileServer?.close();
});
beforeEach(() => sim.reset());

/** Someone else comments (the common `/_sim/comments` hook): the new comment's id. */
const hooks = simCommentHooks(() => sim.url);
const comment = hooks.add;

const setState = async (id: string, state: 'visible' | 'hidden' | 'deleted') =>
  expect((await hooks.setState(id, state)).status).toBe(204);

const listInput = (block: RemoteBlock, overrides: Partial<CommentsInput> = {}): CommentsInput => ({
  credentials,
  block,
  blocks: [block],
  cursor: null,
  since: null,
  limit: 100,
  ...overrides,
});

/** Every page, following `nextCursor`. */
const listAll = async (block: RemoteBlock, overrides: Partial<CommentsInput> = {}) => {
  const pages: RemoteComment[][] = [];
  let cursor: string | null = null;
  do {
    const page = await client.comments(listInput(block, { ...overrides, cursor }));
    pages.push(page.comments);
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 20);
  return pages;
};

const replyInput = (
  block: RemoteBlock,
  target: RemoteComment,
  content: string,
  media: MediaForNetwork[] = [],
) => ({
  credentials,
  block,
  comment: target,
  content,
  media,
  idempotencyKey: `reply-${content}`,
});

describe('X comments against the X simulator', () => {
  it('lists the whole conversation, nested and paged, with authors, likes and links; the root is left out', async () => {
    const root = await client.publish(input('Launch day'));
    const second = await client.publish(input('Launch day, part 2', { parent: { block: root, root } }));
    const first = await comment(root.remoteId, 'Congrats & good luck <3', {
      author: { name: 'Ada Reader', handle: 'ada_reader' },
    });
    const answer = await comment(first, 'Agreed, see example.com/news', {
      author: { name: 'Linus Lurker', handle: 'linus_l' },
    });
    const onSecond = await comment(second.remoteId, 'And part 2?');

    const pages = await listAll(root, { limit: 2 });
    expect(pages.map((page) => page.length)).toEqual([2, 2]);
    const all = pages.flat();
    // Newest first, as recent search pages them; the post's own second block is in the conversation.
    expect(all.map((c) => [c.remoteId, c.parentRemoteId])).toEqual([
      [onSecond, second.remoteId],
      [answer, first],
      [first, root.remoteId],
      [second.remoteId, root.remoteId],
    ]);
    const byId = new Map(all.map((c) => [c.remoteId, c]));
    expect(byId.get(first)).toMatchObject({
      author: { name: 'Ada Reader', handle: 'ada_reader' },
      // X returns & < > as HTML entities: the client gives the text back as written.
      text: 'Congrats & good luck <3',
      url: `https://x.com/ada_reader/status/${first}`,
      meta: { conversationId: root.remoteId },
    });
    expect(byId.get(first)?.likeCount).toEqual(expect.any(Number));
    expect(Date.parse(byId.get(first)?.createdAt ?? '')).not.toBeNaN();
    // The link comes back from X as t.co; the client expands it.
    expect(byId.get(answer)?.text).toBe('Agreed, see http://example.com/news');
    expect(byId.get(answer)?.author).toEqual({ name: 'Linus Lurker', handle: 'linus_l' });

    // A page of 10 or more is one search page.
    const whole = await client.comments(listInput(root, { limit: 50 }));
    expect(whole.nextCursor).toBeNull();
    expect(whole.comments.map((c) => c.remoteId)).toEqual(all.map((c) => c.remoteId));
  });

  it('pages smaller than search’s minimum of 10 still reach every comment once', async () => {
    const root = await client.publish(input('Many comments'));
    const ids: string[] = [];
    for (let i = 0; i < 13; i++) ids.push(await comment(root.remoteId, `Comment ${i}`));
    const pages = await listAll(root, { limit: 3 });
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3, 1, 3]);
    expect(pages.flat().map((c) => c.remoteId)).toEqual([...ids].reverse());
  });

  it('since becomes start_time; one further back than search’s 7 days is clamped, and older comments are not returned', async () => {
    const root = await client.publish(input('Since when'));
    const hour = 3600_000;
    const old = await comment(root.remoteId, 'Two hours ago', {
      createdAt: new Date(Date.now() - 2 * hour).toISOString(),
    });
    const recent = await comment(root.remoteId, 'Just now', {
      createdAt: new Date(Date.now() - 60_000).toISOString(),
    });
    await comment(root.remoteId, 'Eight days ago', {
      createdAt: new Date(Date.now() - 8 * 24 * hour).toISOString(),
    });

    const sinceHour = await client.comments(listInput(root, { since: new Date(Date.now() - hour) }));
    expect(sinceHour.comments.map((c) => c.remoteId)).toEqual([recent]);
    // Closer to now than 10 s would be X's 400 too: clamped, so nothing older than that shows.
    expect((await client.comments(listInput(root, { since: new Date() }))).comments).toEqual([]);
    // A month back would be X's 400 ("'start_time' must be on or after ..."): the client clamps it.
    const sinceMonth = await client.comments(
      listInput(root, { since: new Date(Date.now() - 30 * 24 * hour) }),
    );
    expect(sinceMonth.comments.map((c) => c.remoteId)).toEqual([recent, old]);
    const unclamped = await fetch(
      `${sim.url}/2/tweets/search/recent?query=conversation_id:${root.remoteId}&start_time=${new Date(Date.now() - 30 * 24 * hour).toISOString()}`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
    );
    expect(unclamped.status).toBe(400);
    expect(JSON.stringify(await unclamped.json())).toMatch(/'start_time' must be on or after/);
  });

  it('search lags behind the tweets made: a new comment shows only after the lag', async () => {
    const root = await client.publish(input('Lagging search'));
    sim.setSwitches({ searchLagMs: 600 });
    const id = await comment(root.remoteId, 'Fresh comment');
    expect((await client.comments(listInput(root))).comments).toEqual([]);
    const shown = await waitFor(async () => (await client.comments(listInput(root))).comments[0], {
      what: 'the comment in search',
    });
    expect(shown.remoteId).toBe(id);
  });

  it('findComment: a comment of this post; null when deleted, hidden, on another post, or the post itself', async () => {
    const root = await client.publish(input('Find me'));
    const other = await client.publish(input('Another post'));
    const present = await comment(root.remoteId, 'Present', { author: { name: 'Ada', handle: 'ada' } });
    const hidden = await comment(root.remoteId, 'Hidden');
    const deleted = await comment(root.remoteId, 'Deleted');
    const elsewhere = await comment(other.remoteId, 'Elsewhere');
    await setState(hidden, 'hidden');
    await setState(deleted, 'deleted');
    const find = (remoteId: string) =>
      client.findComment({ credentials, block: root, blocks: [root], remoteId });

    expect(await find(present)).toMatchObject({
      remoteId: present,
      parentRemoteId: root.remoteId,
      author: { name: 'Ada', handle: 'ada' },
      text: 'Present',
    });
    expect(await find(hidden)).toBeNull();
    expect(await find(deleted)).toBeNull();
    expect(await find(elsewhere)).toBeNull();
    expect(await find(root.remoteId)).toBeNull();
    expect(await find('not-an-id')).toBeNull();
    // Hidden and deleted comments are not in the listing either.
    expect((await client.comments(listInput(root))).comments.map((c) => c.remoteId)).toEqual([present]);
    // Shown again, it is found again.
    await setState(hidden, 'visible');
    expect((await find(hidden))?.remoteId).toBe(hidden);
  });

  it('reply: stored as X does (a tweet answering the comment), in the listing, with images', async () => {
    const root = await client.publish(input('Reply to me'));
    const id = await comment(root.remoteId, 'Question?');
    const target = (await client.findComment({
      credentials,
      block: root,
      blocks: [root],
      remoteId: id,
    })) as RemoteComment;
    files.set('a.png', mediaFiles.png(2_000));
    const image: MediaForNetwork = {
      mediaId: 'med_a',
      mimeType: 'image/png',
      size: 2_000,
      altText: 'A chart',
      url: `${fileServer.url}/a.png`,
    };
    const reply = await client.reply(replyInput(root, target, 'Thanks, here it is', [image]));
    expect(reply).toMatchObject({
      parentRemoteId: id,
      author: { handle: 'alice' },
      text: 'Thanks, here it is',
      url: `https://x.com/alice/status/${reply.remoteId}`,
    });
    expect(sim.records()).toContainEqual(
      expect.objectContaining({ kind: 'reply', id: reply.remoteId, parentId: id, rootId: root.remoteId }),
    );
    expect(sim.media()).toEqual([
      expect.objectContaining({ altText: 'A chart', tweetIds: [reply.remoteId] }),
    ]);
    const listed = (await client.comments(listInput(root))).comments;
    expect(listed.find((c) => c.remoteId === reply.remoteId)).toMatchObject({
      parentRemoteId: id,
      // The media's t.co link is not part of the text.
      text: 'Thanks, here it is',
    });
  });

  it('lookupReply finds a reply whose answer was lost, and nothing for one X refused', async () => {
    const root = await client.publish(input('Lost replies'));
    const id = await comment(root.remoteId, 'Answer me');
    const target = (await client.findComment({
      credentials,
      block: root,
      blocks: [root],
      remoteId: id,
    })) as RemoteComment;
    const since = new Date();
    const lost = await failureOf(client.reply(replyInput(root, target, 'Lost answer sim:timeout')));
    expect(lost.details.outcomeUnknown).toBe(true);
    const stored = sim.records().find((r) => r.kind === 'reply');
    const found = await client.lookupReply({
      credentials,
      block: root,
      comment: target,
      content: 'Lost answer sim:timeout',
      idempotencyKey: 'reply-Lost answer sim:timeout',
      since,
    });
    expect(found).toMatchObject({
      remoteId: stored?.id,
      parentRemoteId: id,
      text: 'Lost answer sim:timeout',
    });
    // The same text answering another comment is not this reply.
    const other = await comment(root.remoteId, 'Another');
    const otherTarget = { ...target, remoteId: other };
    expect(
      await client.lookupReply({
        credentials,
        block: root,
        comment: otherTarget,
        content: 'Lost answer sim:timeout',
        idempotencyKey: 'k',
        since,
      }),
    ).toBeNull();

    const refused = await failureOf(client.reply(replyInput(root, target, 'Refused sim:fail')));
    expect(refused.kind).toBe('permanent');
    expect(
      await client.lookupReply({
        credentials,
        block: root,
        comment: target,
        content: 'Refused sim:fail',
        idempotencyKey: 'k2',
        since,
      }),
    ).toBeNull();
    expect(sim.records().filter((r) => r.kind === 'reply')).toHaveLength(1);
  });

  it('deleteReply deletes, and deleting again is no error', async () => {
    const root = await client.publish(input('Delete my reply'));
    const id = await comment(root.remoteId, 'Hello');
    const target = (await client.findComment({
      credentials,
      block: root,
      blocks: [root],
      remoteId: id,
    })) as RemoteComment;
    const reply = await client.reply(replyInput(root, target, 'Bye'));
    await client.deleteReply({ credentials, block: root, reply });
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'delete')
        .map((r) => r.id),
    ).toEqual([reply.remoteId]);
    await client.deleteReply({ credentials, block: root, reply });
    expect((await client.comments(listInput(root))).comments.map((c) => c.remoteId)).toEqual([id]);
    // A comment deleted since it was found cannot be answered: X's 403, a refusal (not a scope).
    await setState(id, 'deleted');
    const refused = await failureOf(client.reply(replyInput(root, target, 'Too late')));
    expect(refused).toMatchObject({
      kind: 'permanent',
      message: 'You attempted to reply to a Tweet that is deleted or not visible to you.',
    });
  });

  it('a token without the scopes is missingPermission, naming them', async () => {
    const root = await client.publish(input('Scopes'));
    const id = await comment(root.remoteId, 'Hi');
    const target = (await client.findComment({
      credentials,
      block: root,
      blocks: [root],
      remoteId: id,
    })) as RemoteComment;
    // X's consent with only some scopes granted (the simulator's `sim_scopes`), PKCE as Herald does it.
    const auth = xAuth({ baseUrls: { x: sim.url }, timeoutMs: 2_000 });
    const app = SIM_OAUTH_APPS.x;
    const redirectUri = 'https://herald.example/v1/channels/callback';
    const tokenWith = async (simScopes: string) => {
      const verifier = randomBytes(32).toString('base64url');
      const url = new URL(
        (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
          app,
          redirectUri,
          state: 's',
          codeChallenge: pkceChallenge(verifier),
        }),
      );
      url.searchParams.set('sim_user', 'alice');
      url.searchParams.set('sim_scopes', simScopes);
      const back = await fetch(url, { redirect: 'manual' });
      const code = new URL(back.headers.get('location') as string).searchParams.get('code') as string;
      const tokens = await (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
        app,
        code,
        redirectUri,
        codeVerifier: verifier,
      });
      return tokens.accessToken;
    };
    const readOnly = { accessToken: await tokenWith('tweet.read users.read'), remoteAccountId: 'alice' };
    const noRead = { accessToken: await tokenWith('users.read tweet.write'), remoteAccountId: 'alice' };

    const cannotReply = await failureOf(
      client.reply({ ...replyInput(root, target, 'No scope'), credentials: readOnly }),
    );
    expect(cannotReply).toMatchObject({
      kind: 'reconnect',
      details: { status: 403, missingPermission: true },
    });
    expect(cannotReply.message).toMatch(/tweet\.write.*reconnect/);
    const cannotRead = await failureOf(client.comments({ ...listInput(root), credentials: noRead }));
    expect(cannotRead).toMatchObject({ kind: 'reconnect', details: { missingPermission: true } });
    expect(cannotRead.message).toMatch(/tweet\.read/);
    // The read-only token still reads.
    expect((await client.comments({ ...listInput(root), credentials: readOnly })).comments).toHaveLength(1);
    expect(sim.records().filter((r) => r.text === 'No scope')).toEqual([]);
  });

  it('rate limits: the account’s, and search’s own 15-minute window with its reset', async () => {
    const root = await client.publish(input('Rate limits'));
    sim.setRateLimited(30);
    const limited = await failureOf(client.comments(listInput(root)));
    expect(limited).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
    sim.setRateLimited(0);

    sim.setSwitches({ searchLimit: 2 });
    await client.comments(listInput(root));
    await client.comments(listInput(root));
    const spent = await failureOf(client.comments(listInput(root)));
    expect(spent).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
    // Until the window's reset, at most 15 minutes away.
    expect(spent.details.retryAfterSeconds).toBeGreaterThan(800);
    expect(spent.details.retryAfterSeconds).toBeLessThanOrEqual(901);
    // Another user's window is their own.
    const bob = { accessToken: 'x-token-bob', remoteAccountId: 'bob' };
    expect((await client.comments({ ...listInput(root), credentials: bob })).comments).toEqual([]);
  });

  it('a post with sim:comments gets three comments at once, one answering another', async () => {
    const root = await client.publish(input('Big news sim:comments'));
    const { comments } = await client.comments(listInput(root));
    expect(comments).toHaveLength(3);
    const answer = comments.find((c) => c.parentRemoteId !== root.remoteId);
    expect(comments.map((c) => c.remoteId)).toContain(answer?.parentRemoteId);
    expect(comments.map((c) => c.author.handle).sort()).toEqual(['ada_reader', 'grace_f', 'linus_l']);
    expect(answer?.url).toBe(`https://x.com/linus_l/status/${answer?.remoteId}`);
    expect(xIdForHandle('ada_reader')).toMatch(/^\d+$/);
  });
});
