import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BlueskyClient, recordKeyFor } from '../../functions/platforms/bluesky/client.ts';
import type {
  CommentsInput,
  MediaForNetwork,
  RemoteBlock,
  RemoteComment,
  ReplyInput,
} from '../../functions/ports/network-client.ts';
import {
  type BlueskySimulator,
  blueskyHandleOf,
  simDidForHandle,
  startBlueskySimulator,
} from '../../simulators/bluesky/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simCommentHooks } from '../support/sim-comments.ts';

/**
 * Issue 31: the Bluesky client's comments against the Bluesky simulator: the thread from
 * getPostThread (flattened, whole, no cursor; blocked and deleted replies left out with what hangs
 * from them), one comment by getPosts, replies made as posts at a record key from the idempotency
 * key (so a lost one is found with getRecord), images, deletes.
 */

const DID = 'did:plc:alice2345abcdefghijklmno';
const credentials = { accessToken: 'bsky-access-jwt-alice', remoteAccountId: DID };
const input = blockInput(credentials);

let sim: BlueskySimulator;
let client: BlueskyClient;
const files = new Map<string, Buffer>();
let fileServer: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  sim = await startBlueskySimulator({ holdMs: 2_000 });
  client = new BlueskyClient({ baseUrl: sim.url, timeoutMs: 300 });
  fileServer = await startFileServer(servedFrom(files));
});
afterAll(async () => {
  await sim?.stop();
  await fileServer?.close();
});
beforeEach(() => sim.reset());

/** Someone else replies (the common `/_sim/comments` hook): the new reply's at-uri. */
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

const ids = async (block: RemoteBlock, overrides: Partial<CommentsInput> = {}) => {
  const page = await client.comments(listInput(block, overrides));
  expect(page.nextCursor).toBeNull();
  return page.comments.map((c) => c.remoteId);
};

const find = (block: RemoteBlock, remoteId: string) =>
  client.findComment({ credentials, block, blocks: [block], remoteId });

const replyInput = (
  block: RemoteBlock,
  target: RemoteComment,
  content: string,
  media: MediaForNetwork[] = [],
): ReplyInput => ({
  credentials,
  block,
  comment: target,
  content,
  media,
  idempotencyKey: `reply-${content}`,
});

const rkeyOf = (uri: string) => uri.split('/').pop() as string;

describe('Bluesky comments against the Bluesky simulator', () => {
  it('lists the whole thread flat, parents before replies, with authors, likes and links; no cursor', async () => {
    const root = await client.publish(input('Launch day'));
    const second = await client.publish(input('Launch day, part 2', { parent: { block: root, root } }));
    const first = await comment(root.remoteId, 'Congrats!', {
      author: { name: 'Ada Reader', handle: 'ada_reader' },
    });
    const answer = await comment(first, 'Agreed', { author: { name: 'Linus Lurker', handle: 'linus_l' } });
    const onSecond = await comment(second.remoteId, 'And part 2?');

    const page = await client.comments(listInput(root));
    expect(page.nextCursor).toBeNull();
    expect(page.comments.map((c) => [c.remoteId, c.parentRemoteId])).toEqual([
      [second.remoteId, root.remoteId],
      [onSecond, second.remoteId],
      [first, root.remoteId],
      [answer, first],
    ]);
    const ada = page.comments.find((c) => c.remoteId === first);
    const handle = blueskyHandleOf('ada_reader');
    expect(handle).toBe('ada-reader.bsky.social');
    expect(ada).toMatchObject({
      author: { name: 'Ada Reader', handle },
      text: 'Congrats!',
      url: `https://bsky.app/profile/${handle}/post/${rkeyOf(first)}`,
      meta: { uri: first, cid: expect.stringMatching(/^bafyrei/) },
    });
    expect(first.startsWith(`at://${simDidForHandle(handle)}/app.bsky.feed.post/`)).toBe(true);
    expect(ada?.likeCount).toEqual(expect.any(Number));
    // The account's own post shows under its DID: the simulator knows no verified handle for it.
    expect(page.comments[0]?.author.handle).toBeNull();
    expect(page.comments[0]?.url).toBe(`https://bsky.app/profile/${DID}/post/${rkeyOf(second.remoteId)}`);
  });

  it('pages are cut from the one answer getPostThread gives (it has no cursor), each reply once', async () => {
    const root = await client.publish(input('Paged'));
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await comment(root.remoteId, `Comment ${i}`));
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await client.comments(listInput(root, { limit: 2, cursor }));
      pages.push(page.comments.map((c) => c.remoteId));
      cursor = page.nextCursor;
    } while (cursor !== null && pages.length < 10);
    expect(pages).toEqual([made.slice(0, 2), made.slice(2, 4), made.slice(4)]);
    // since is applied before the pages are cut.
    const recent = await client.comments(listInput(root, { limit: 2, since: new Date(Date.now() + 60_000) }));
    expect(recent).toEqual({ comments: [], nextCursor: null });
  });

  it('a thread deeper than getPostThread’s default depth of 6 still comes whole', async () => {
    const root = await client.publish(input('Deep thread'));
    const chain: string[] = [];
    let parent = root.remoteId;
    for (let i = 0; i < 9; i++) {
      parent = await comment(parent, `Level ${i + 1}`);
      chain.push(parent);
    }
    expect(await ids(root)).toEqual(chain);
    // The network cuts a thread at `depth` (6 unless asked): the simulator does too.
    const response = await fetch(
      `${sim.url}/xrpc/app.bsky.feed.getPostThread?${new URLSearchParams({ uri: root.remoteId })}`,
      { headers: { authorization: `Bearer ${credentials.accessToken}` } },
    );
    let depth = 0;
    let node = ((await response.json()) as { thread: { replies?: unknown[] } }).thread;
    while (node.replies?.[0]) {
      node = node.replies[0] as typeof node;
      depth++;
    }
    expect(depth).toBe(6);
  });

  it('since filters on each reply’s createdAt', async () => {
    const root = await client.publish(input('Since when'));
    const hour = 3600_000;
    await comment(root.remoteId, 'Two hours ago', {
      createdAt: new Date(Date.now() - 2 * hour).toISOString(),
    });
    const recent = await comment(root.remoteId, 'Just now');
    expect(await ids(root, { since: new Date(Date.now() - hour) })).toEqual([recent]);
    expect(await ids(root)).toHaveLength(2);
  });

  it('blocked and deleted replies are left out with the replies that hang from them; findComment is null for them, another post’s reply and the post', async () => {
    const root = await client.publish(input('Find me'));
    const other = await client.publish(input('Another post'));
    const present = await comment(root.remoteId, 'Present', {
      author: { name: 'Ada', handle: 'ada.example.com' },
    });
    const hidden = await comment(root.remoteId, 'Hidden');
    const underHidden = await comment(hidden, 'Under the hidden one');
    const deleted = await comment(root.remoteId, 'Deleted');
    const underDeleted = await comment(deleted, 'Under the deleted one');
    const elsewhere = await comment(other.remoteId, 'Elsewhere');
    await setState(hidden, 'hidden');
    await setState(deleted, 'deleted');

    expect(await ids(root)).toEqual([present]);
    expect(await find(root, present)).toMatchObject({
      remoteId: present,
      parentRemoteId: root.remoteId,
      author: { name: 'Ada', handle: 'ada.example.com' },
      text: 'Present',
    });
    expect(await find(root, hidden)).toBeNull();
    expect(await find(root, deleted)).toBeNull();
    expect(await find(root, elsewhere)).toBeNull();
    expect(await find(root, root.remoteId)).toBeNull();
    expect(await find(root, 'not-a-uri')).toBeNull();
    // A reply under a reply of this post is of this post; under a deleted one it is still a record.
    expect((await find(root, underDeleted))?.parentRemoteId).toBe(deleted);
    await setState(hidden, 'visible');
    expect(await ids(root)).toEqual([present, hidden, underHidden]);
  });

  it('reply: a post with strong refs to the post and the comment, in the thread, with images', async () => {
    const root = await client.publish(input('Reply to me'));
    const id = await comment(root.remoteId, 'Question?');
    const target = (await find(root, id)) as RemoteComment;
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
      text: 'Thanks, here it is',
      meta: { uri: reply.remoteId, cid: expect.any(String) },
    });
    // The record key comes from the idempotency key, as a block's does.
    expect(rkeyOf(reply.remoteId)).toBe(recordKeyFor('reply-Thanks, here it is'));
    const stored = sim.storedRecords().find((r) => r.uri === reply.remoteId);
    expect(stored?.value).toMatchObject({
      text: 'Thanks, here it is',
      reply: { root: { uri: root.remoteId, cid: root.meta.cid }, parent: { uri: id, cid: target.meta.cid } },
      embed: { $type: 'app.bsky.embed.images', images: [expect.objectContaining({ alt: 'A chart' })] },
    });
    expect(sim.records()).toContainEqual(
      expect.objectContaining({ kind: 'reply', id: reply.remoteId, parentId: id, rootId: root.remoteId }),
    );
    expect(await ids(root)).toEqual([id, reply.remoteId]);
  });

  it('lookupReply finds a reply whose answer was lost at its record key, and nothing for one refused', async () => {
    const root = await client.publish(input('Lost replies'));
    const id = await comment(root.remoteId, 'Answer me');
    const target = (await find(root, id)) as RemoteComment;
    const since = new Date();
    const lost = await failureOf(client.reply(replyInput(root, target, 'Lost answer sim:timeout')));
    expect(lost.details.outcomeUnknown).toBe(true);
    const lookup = (content: string) =>
      client.lookupReply({
        credentials,
        block: root,
        comment: target,
        content,
        idempotencyKey: `reply-${content}`,
        since,
      });
    const stored = sim.records().find((r) => r.kind === 'reply');
    expect(await lookup('Lost answer sim:timeout')).toMatchObject({
      remoteId: stored?.id,
      parentRemoteId: id,
      text: 'Lost answer sim:timeout',
    });
    const refused = await failureOf(client.reply(replyInput(root, target, 'Refused sim:fail')));
    expect(refused.kind).toBe('permanent');
    expect(await lookup('Refused sim:fail')).toBeNull();
    expect(sim.records().filter((r) => r.kind === 'reply')).toHaveLength(1);
  });

  it('deleteReply deletes, and deleting again is no error', async () => {
    const root = await client.publish(input('Delete my reply'));
    const id = await comment(root.remoteId, 'Hello');
    const target = (await find(root, id)) as RemoteComment;
    const reply = await client.reply(replyInput(root, target, 'Bye'));
    await client.deleteReply({ credentials, block: root, reply });
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'delete')
        .map((r) => r.id),
    ).toEqual([reply.remoteId]);
    await client.deleteReply({ credentials, block: root, reply });
    expect(await ids(root)).toEqual([id]);
  });

  it('a rate limit is rateLimited with the reset the PDS announces', async () => {
    const root = await client.publish(input('Rate limits'));
    sim.setRateLimited(120);
    const limited = await failureOf(client.comments(listInput(root)));
    expect(limited).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
    expect(limited.details.retryAfterSeconds).toBeGreaterThan(100);
  });

  it('a post with sim:comments gets three replies at once, one answering another', async () => {
    const root = await client.publish(input('Big news sim:comments'));
    const { comments } = await client.comments(listInput(root));
    expect(comments).toHaveLength(3);
    const answer = comments.find((c) => c.parentRemoteId !== root.remoteId);
    expect(comments.map((c) => c.remoteId)).toContain(answer?.parentRemoteId);
    expect(comments.map((c) => c.author.handle).sort()).toEqual([
      'ada-reader.bsky.social',
      'grace-f.bsky.social',
      'linus-l.bsky.social',
    ]);
  });
});
