import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { YouTubeClient } from '../../functions/platforms/youtube/client.ts';
import { YOUTUBE_SCOPES, youtubeAuth } from '../../functions/platforms/youtube/oauth.ts';
import type { NetworkAuth } from '../../functions/ports/network-auth.ts';
import type { NetworkCredentials, RemoteBlock, RemoteComment } from '../../functions/ports/network-client.ts';
import { pkceChallenge } from '../../simulators/framework/oauth.ts';
import { startYouTubeSimulator, type YouTubeSimulator } from '../../simulators/youtube/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simCommentHooks } from '../support/sim-comments.ts';

/** The YouTube client's comment half against the simulator (issue 31). */

const credentials: NetworkCredentials = { accessToken: 'yt-token-comments', remoteAccountId: 'UCcomments' };
const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;

let sim: YouTubeSimulator;
let client: YouTubeClient;
let auth: NetworkAuth;
let files: Awaited<ReturnType<typeof startFileServer>> | undefined;
const stored = new Map<string, Buffer>();

const videoFile = async () => {
  const name = `${randomBytes(4).toString('hex')}.mp4`;
  const bytes = Buffer.concat([mediaFiles.mp4(64), randomBytes(2_000)]);
  stored.set(name, bytes);
  return {
    mediaId: `med_${name}`,
    mimeType: 'video/mp4',
    size: bytes.length,
    altText: null,
    url: `${files?.url}/${name}`,
  };
};
const publish = async (content: string, who: NetworkCredentials = credentials): Promise<RemoteBlock> =>
  client.publish(blockInput(who)(content, { title: 'Comments video', media: [await videoFile()] }));

/** Someone else comments (on the video, or answering a comment) through the simulator's hook. */
const hooks = simCommentHooks(() => sim.url);
const comment = (parentId: string, text: string, createdAt?: Date): Promise<string> =>
  hooks.add(parentId, text, createdAt ? { createdAt: createdAt.toISOString() } : {});
const setState = async (id: string, state: 'visible' | 'hidden' | 'deleted') =>
  expect((await hooks.setState(id, state)).status).toBe(204);

const page = (
  block: RemoteBlock,
  cursor: string | null = null,
  limit = 100,
  since: Date | null = null,
  who = credentials,
) => client.comments({ credentials: who, block, blocks: [block], cursor, since, limit });

/** Every page, following the cursors. */
const everything = async (block: RemoteBlock, limit: number) => {
  const all: RemoteComment[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const next = await page(block, cursor, limit);
    expect(next.comments.length).toBeLessThanOrEqual(limit);
    all.push(...next.comments);
    cursor = next.nextCursor;
    pages += 1;
  } while (cursor);
  return { all, pages };
};

const find = (block: RemoteBlock, remoteId: string, who = credentials) =>
  client.findComment({ credentials: who, block, blocks: [block], remoteId });

const replyTo = (block: RemoteBlock, target: RemoteComment, content: string, who = credentials) =>
  client.reply({
    credentials: who,
    block,
    comment: target,
    content,
    media: [],
    idempotencyKey: randomBytes(8).toString('hex'),
  });

const connect = async (only: string[]): Promise<NetworkCredentials> => {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(
    (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
      app: SIM_OAUTH_APPS.youtube,
      redirectUri: 'https://herald.example/v1/channels/callback',
      state: 's',
      codeChallenge: pkceChallenge(verifier),
    }),
  );
  url.searchParams.set('sim_user', `c${randomBytes(3).toString('hex')}`);
  url.searchParams.set('sim_scopes', only.join(' '));
  const back = await fetch(url, { redirect: 'manual' });
  const code = new URL(back.headers.get('location') as string).searchParams.get('code') as string;
  const tokens = await (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
    app: SIM_OAUTH_APPS.youtube,
    code,
    redirectUri: 'https://herald.example/v1/channels/callback',
    codeVerifier: verifier,
  });
  return { accessToken: tokens.accessToken, remoteAccountId: 'UC' };
};

beforeAll(async () => {
  sim = await startYouTubeSimulator({ processingMs: 20 });
  client = new YouTubeClient({ baseUrl: sim.url, timeoutMs: 1_500, pollMs: 20 });
  auth = youtubeAuth({ baseUrls: { youtube: sim.url }, timeoutMs: 5_000 });
  files = await startFileServer(servedFrom(stored));
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.reset();
});

describe('YouTube comments against the simulator', () => {
  it('lists a sim:comments video’s seeded conversation: two threads, the reply naming its top-level comment', async () => {
    const video = await publish('Launch day sim:comments');
    const { comments, nextCursor } = await page(video);
    expect(nextCursor).toBeNull();
    expect(comments).toHaveLength(3);
    const first = comments.find((c) => c.text === 'Congratulations on the launch!');
    expect(first).toMatchObject({
      parentRemoteId: video.remoteId,
      author: { name: '@ada_reader', handle: 'ada_reader' },
      likeCount: 0,
      url: `https://www.youtube.com/watch?v=${video.remoteId}&lc=${first?.remoteId}`,
    });
    expect(comments.find((c) => c.text === 'Agreed, great news.')).toMatchObject({
      parentRemoteId: first?.remoteId,
      author: { handle: 'linus_l' },
    });
    expect(comments.find((c) => c.text === 'Where can I read more about this?')?.parentRemoteId).toBe(
      video.remoteId,
    );
  });

  it('pages threads newest first, at most limit comments a page (ending inside a thread), and reads every reply of a thread holding more than it shows', async () => {
    const video = await publish('Paging');
    const base = Date.now() - 60_000;
    const tops: string[] = [];
    for (let i = 0; i < 5; i += 1)
      tops.push(await comment(video.remoteId, `top ${i}`, new Date(base + i * 1000)));
    // Seven replies: a thread carries five inline, the client must fetch the rest.
    for (let i = 0; i < 7; i += 1)
      await comment(tops[0] as string, `reply ${i}`, new Date(base + 10_000 + i));
    // A reply to a reply lands in the thread (YouTube has two levels).
    const replies = await page(video);
    const nested = replies.comments.find((c) => c.text === 'reply 3') as RemoteComment;
    await comment(nested.remoteId, 'reply to a reply');

    const first = await page(video, null, 2);
    expect(first.comments.filter((c) => c.parentRemoteId === video.remoteId).map((c) => c.text)).toEqual([
      'top 4',
      'top 3',
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    // Five top-level comments and eight replies, two a page: pages end inside top 0's thread.
    const { all, pages } = await everything(video, 2);
    expect(pages).toBe(7);
    expect(all).toHaveLength(13);
    expect(all.filter((c) => c.parentRemoteId === video.remoteId).map((c) => c.text)).toEqual([
      'top 4',
      'top 3',
      'top 2',
      'top 1',
      'top 0',
    ]);
    const thread = all.filter((c) => c.parentRemoteId === tops[0]).map((c) => c.text);
    expect(thread).toHaveLength(8);
    expect(thread).toEqual(expect.arrayContaining(['reply 0', 'reply 6', 'reply to a reply']));
    expect(new Set(all.map((c) => c.remoteId)).size).toBe(all.length);
  });

  it('applies since in the client (YouTube filters by no date)', async () => {
    const video = await publish('Since');
    await comment(video.remoteId, 'old', new Date(Date.now() - 3_600_000));
    await comment(video.remoteId, 'new');
    const { comments } = await page(video, null, 100, new Date(Date.now() - 60_000));
    expect(comments.map((c) => c.text)).toEqual(['new']);
  });

  it('reads others’ text from textDisplay as plain text (textOriginal is for the author only)', async () => {
    const video = await publish('Text');
    await comment(video.remoteId, 'a < b & "c"\nline two');
    const raw = (await (
      await fetch(`${sim.url}/youtube/v3/commentThreads?part=snippet&videoId=${video.remoteId}`, {
        headers: { authorization: `Bearer ${credentials.accessToken}` },
      })
    ).json()) as { items: { snippet: { topLevelComment: { snippet: Record<string, unknown> } } }[] };
    const snippet = raw.items[0]?.snippet.topLevelComment.snippet;
    expect(snippet?.textOriginal).toBeUndefined();
    expect(snippet?.textDisplay).toBe('a &lt; b &amp; "c"<br>line two');
    expect((await page(video)).comments[0]?.text).toBe('a < b & "c"\nline two');
  });

  it('finds a comment of this video only: not held for review, not deleted, not under another video', async () => {
    const video = await publish('Find');
    const other = await publish('Other');
    const top = await comment(video.remoteId, 'here');
    const reply = await comment(top, 'a reply');
    const elsewhere = await comment(other.remoteId, 'elsewhere');
    expect(await find(video, top)).toMatchObject({
      remoteId: top,
      parentRemoteId: video.remoteId,
      text: 'here',
    });
    expect(await find(video, reply)).toMatchObject({
      remoteId: reply,
      parentRemoteId: top,
      meta: { threadId: top },
    });
    expect(await find(video, elsewhere)).toBeNull();
    expect(await find(video, 'UgzNoSuchComment')).toBeNull();
    await setState(top, 'hidden');
    expect(await find(video, top)).toBeNull();
    await setState(top, 'visible');
    await setState(reply, 'deleted');
    expect(await find(video, reply)).toBeNull();
    expect((await page(video)).comments.map((c) => c.text)).toEqual(['here']);
  });

  it('replies into the thread, shows the reply in the listing, and records it once', async () => {
    const video = await publish('Reply');
    const top = (await find(video, await comment(video.remoteId, 'question?'))) as RemoteComment;
    const reply = await replyTo(video, top, 'Thanks for asking');
    expect(reply).toMatchObject({ parentRemoteId: top.remoteId, text: 'Thanks for asking', likeCount: 0 });
    expect(reply.remoteId.startsWith(`${top.remoteId}.`)).toBe(true);
    const listed = (await page(video)).comments.find((c) => c.remoteId === reply.remoteId);
    expect(listed).toMatchObject({ parentRemoteId: top.remoteId, text: 'Thanks for asking' });
    // A reply to a reply goes to the top-level comment (YouTube's parentId must be one).
    const nested = await replyTo(video, listed as RemoteComment, 'And a follow-up');
    expect(nested).toMatchObject({ parentRemoteId: top.remoteId, meta: { inReplyTo: reply.remoteId } });
    expect(sim.records().filter((r) => r.kind === 'reply')).toMatchObject([
      { id: reply.remoteId, parentId: top.remoteId, rootId: video.remoteId, text: 'Thanks for asking' },
      { id: nested.remoteId, parentId: top.remoteId, text: 'And a follow-up' },
    ]);
  });

  it('after a sim:timeout reply, lookupReply finds the stored reply; after a refused one it finds nothing', async () => {
    const video = await publish('Lost');
    const top = (await find(video, await comment(video.remoteId, 'hello'))) as RemoteComment;
    const since = new Date();
    const lost = await failureOf(replyTo(video, top, 'Answer sim:timeout'));
    expect(lost).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    const lookup = (content: string) =>
      client.lookupReply({ credentials, block: video, comment: top, content, idempotencyKey: 'k', since });
    const found = await lookup('Answer sim:timeout');
    expect(found).toMatchObject({ parentRemoteId: top.remoteId, text: 'Answer sim:timeout' });
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'reply')
        .map((r) => r.id),
    ).toEqual([found?.remoteId]);

    const refused = await failureOf(replyTo(video, top, 'Answer sim:fail'));
    expect(refused.kind).toBe('permanent');
    expect(await lookup('Answer sim:fail')).toBeNull();
    // Someone else's identical text is not Herald's reply.
    await comment(top.remoteId, 'Same words');
    expect(await lookup('Same words')).toBeNull();
  });

  it('deletes a reply, and deleting it again is no error', async () => {
    const video = await publish('Delete');
    const top = (await find(video, await comment(video.remoteId, 'hi'))) as RemoteComment;
    const reply = await replyTo(video, top, 'Bye');
    await client.deleteReply({ credentials, block: video, reply });
    await client.deleteReply({ credentials, block: video, reply });
    expect((await page(video)).comments.map((c) => c.remoteId)).toEqual([top.remoteId]);
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'delete')
        .map((r) => r.id),
    ).toEqual([reply.remoteId]);
  });

  it('a grant without youtube.force-ssl is missingPermission (reconnect), and Herald asks for the scope', async () => {
    expect(YOUTUBE_SCOPES).toContain(scope('youtube.force-ssl'));
    const video = await publish('Scopes');
    const top = await comment(video.remoteId, 'hi');
    const narrow = await connect([scope('youtube.readonly'), scope('youtube.upload')]);
    const found = (await find(video, top)) as RemoteComment;
    for (const attempt of [
      () => page(video, null, 100, null, narrow),
      () => find(video, top, narrow),
      () => replyTo(video, found, 'No', narrow),
      () => client.deleteReply({ credentials: narrow, block: video, reply: found }),
    ]) {
      const error = await failureOf(attempt());
      expect(error).toMatchObject({ kind: 'reconnect', details: { status: 403, missingPermission: true } });
      expect(error.message).toMatch(/youtube\.force-ssl.*reconnect/);
    }
    const full = await connect(YOUTUBE_SCOPES);
    expect((await page(video, null, 100, null, full)).comments).toHaveLength(1);
  });

  it('the rate limit and the spent daily quota are rateLimited; a video with comments off (or made for kids) has none', async () => {
    const video = await publish('Limits');
    await comment(video.remoteId, 'hi');
    sim.setRateLimited(30);
    expect(await failureOf(page(video))).toMatchObject({ kind: 'transient', details: { rateLimited: true } });
    sim.setRateLimited(0);
    sim.setQuotaExceeded(true);
    const quota = await failureOf(page(video));
    expect(quota).toMatchObject({ kind: 'transient', details: { status: 403, rateLimited: true } });
    sim.setQuotaExceeded(false);
    sim.setCommentsDisabled(video.remoteId, true);
    expect(await page(video)).toEqual({ comments: [], nextCursor: null });
    sim.setCommentsDisabled(video.remoteId, false);
    expect((await page(video)).comments).toHaveLength(1);
    // YouTube turns comments off on every video made for kids.
    const kids = await client.publish(
      blockInput(credentials)('For kids', {
        title: 'Kids video',
        options: { madeForKids: 'true' },
        media: [await videoFile()],
      }),
    );
    expect(await page(kids)).toEqual({ comments: [], nextCursor: null });
  });
});
