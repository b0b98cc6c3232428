import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedditClient } from '../../functions/platforms/reddit/client.ts';
import { REDDIT_SCOPES } from '../../functions/platforms/reddit/oauth.ts';
import type { NetworkCredentials, RemoteBlock, RemoteComment } from '../../functions/ports/network-client.ts';
import { type RedditSimulator, startRedditSimulator } from '../../simulators/reddit/simulator.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simCommentHooks } from '../support/sim-comments.ts';
import { simOAuthToken } from '../support/sim-oauth-token.ts';

/** The Reddit client's comment half against the simulator (issue 31). */

const credentials: NetworkCredentials = { accessToken: 'rd-token-comments', remoteAccountId: 'commenter' };

let sim: RedditSimulator;
let client: RedditClient;

const publish = (content: string, who: NetworkCredentials = credentials): Promise<RemoteBlock> =>
  client.publish(blockInput(who)(content, { title: 'A title', options: { subreddit: 'heraldtest' } }));

/** Someone else comments (on the post's `t3_`, or answering a comment's `t1_`) through the simulator's hook. */
const hooks = simCommentHooks(() => sim.url);
const comment = (parentId: string, text: string, createdAt?: Date, handle = 'ada_reader') =>
  hooks.add(parentId, text, {
    author: { handle },
    ...(createdAt ? { createdAt: createdAt.toISOString() } : {}),
  });
const setState = async (id: string, state: 'visible' | 'hidden' | 'deleted') =>
  expect((await hooks.setState(id, state)).status).toBe(204);

const page = (
  block: RemoteBlock,
  cursor: string | null = null,
  limit = 100,
  since: Date | null = null,
  who = credentials,
) => client.comments({ credentials: who, block, blocks: [block], cursor, since, limit });

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

const tokenWith = async (granted: string[]): Promise<NetworkCredentials> => {
  const issued = await simOAuthToken({
    simUrl: sim.url,
    network: 'reddit',
    authorizePath: '/api/v1/authorize',
    tokenPath: '/api/v1/access_token',
    scope: REDDIT_SCOPES.join(' '),
    simScopes: granted.join(' '),
    user: `scoped${randomBytes(2).toString('hex')}`,
    extra: { duration: 'permanent' },
  });
  return { accessToken: issued.accessToken, remoteAccountId: 'scoped' };
};

beforeAll(async () => {
  sim = await startRedditSimulator({ holdMs: 2_000, switches: { processingMs: 50 } });
  client = new RedditClient({ baseUrl: sim.url, timeoutMs: 500, mediaWaitMs: 500, pollIntervalMs: 50 });
});
afterAll(async () => {
  await sim?.stop();
});
beforeEach(() => {
  sim.reset();
});

describe('Reddit comments against the simulator', () => {
  it('flattens a sim:comments post’s seeded tree: parents by fullname, usernames, score as likes, permalinks', async () => {
    const post = await publish('Launch day sim:comments');
    const { comments, nextCursor } = await page(post);
    expect(nextCursor).toBeNull();
    expect(comments).toHaveLength(3);
    const first = comments.find((c) => c.text === 'Congratulations on the launch!') as RemoteComment;
    expect(first).toMatchObject({
      parentRemoteId: post.remoteId,
      author: { name: null, handle: 'ada_reader' },
      likeCount: 1,
      url: expect.stringMatching(/^https:\/\/www\.reddit\.com\/r\/heraldtest\/comments\/.+\//),
    });
    expect(first.remoteId).toMatch(/^t1_[0-9a-z]+$/);
    expect(comments.find((c) => c.text === 'Agreed, great news.')).toMatchObject({
      parentRemoteId: first.remoteId,
      author: { handle: 'linus_l' },
    });
  });

  it('pages through Reddit’s "more" ids with morechildren, replies and all, each comment once', async () => {
    const post = await publish('Paging');
    const base = Date.now() - 600_000;
    const tops: string[] = [];
    for (let i = 0; i < 6; i += 1)
      tops.push(await comment(post.remoteId, `top ${i}`, new Date(base + i * 1000)));
    for (let i = 0; i < 3; i += 1)
      await comment(tops[0] as string, `reply ${i}`, new Date(base + 10_000 + i * 1000));
    await comment(tops[5] as string, 'inline reply', new Date(base + 20_000));

    const first = await page(post, null, 3);
    // Newest first; the limit counts replies too (depth first).
    expect(first.comments.map((c) => c.text)).toEqual(['top 5', 'inline reply', 'top 4']);
    expect(first.nextCursor).toMatch(/^[0-9a-z,]+$/);
    const second = await page(post, first.nextCursor, 2);
    expect(second.comments.map((c) => c.text)).toEqual(['top 3', 'top 2']);
    // top 0 and its three replies do not fit two: what is left over comes on the next page.
    const third = await page(post, second.nextCursor, 1);
    expect(third.comments.map((c) => c.text)).toEqual(['top 1']);
    const fourth = await page(post, third.nextCursor, 2);
    expect(fourth.comments.map((c) => c.text)).toEqual(['top 0', 'reply 2']);
    const fifth = await page(post, fourth.nextCursor, 100);
    expect(fifth.comments.map((c) => c.text)).toEqual(['reply 1', 'reply 0']);
    expect(fifth.nextCursor).toBeNull();
    expect(fifth.comments.every((c) => c.parentRemoteId === tops[0])).toBe(true);
    const all = [first, second, third, fourth, fifth].flatMap((p) => p.comments);
    expect(new Set(all.map((c) => c.remoteId)).size).toBe(10);
  });

  it('follows "continue this thread" below Reddit’s depth on a page of its own', async () => {
    const post = await publish('Deep');
    // A chain of 13 comments, each answering the one before: Reddit shows 10 levels.
    let parent = post.remoteId;
    const chain: string[] = [];
    for (let i = 0; i < 13; i += 1) {
      parent = await comment(parent, `level ${i}`);
      chain.push(parent);
    }
    const first = await page(post);
    expect(first.comments.map((c) => c.text)).toEqual(Array.from({ length: 10 }, (_, i) => `level ${i}`));
    expect(first.nextCursor).toBe(`~${(chain[9] as string).slice(3)}`);
    const second = await page(post, first.nextCursor);
    expect(second.comments.map((c) => [c.text, c.parentRemoteId])).toEqual([
      ['level 10', chain[9]],
      ['level 11', chain[10]],
      ['level 12', chain[11]],
    ]);
    expect(second.nextCursor).toBeNull();
  });

  it('applies since in the client (Reddit filters by no date)', async () => {
    const post = await publish('Since');
    await comment(post.remoteId, 'old', new Date(Date.now() - 3_600_000));
    await comment(post.remoteId, 'new');
    expect((await page(post, null, 100, new Date(Date.now() - 60_000))).comments.map((c) => c.text)).toEqual([
      'new',
    ]);
  });

  it('keeps [deleted] (with replies) and [removed] placeholders without an author; a deleted leaf is gone', async () => {
    const post = await publish('Placeholders');
    const parent = await comment(post.remoteId, 'will be deleted', new Date(Date.now() - 3_000));
    await comment(parent, 'an answer');
    const removed = await comment(post.remoteId, 'will be removed', new Date(Date.now() - 2_000));
    const leaf = await comment(post.remoteId, 'deleted leaf', new Date(Date.now() - 1_000));
    await setState(parent, 'deleted');
    await setState(removed, 'hidden');
    await setState(leaf, 'deleted');
    const { comments } = await page(post);
    expect(comments.map((c) => [c.remoteId, c.text, c.author.handle])).toEqual([
      [removed, '[removed]', null],
      [parent, '[deleted]', null],
      [expect.any(String), 'an answer', 'ada_reader'],
    ]);
  });

  it('finds a comment of this post only: not removed, not deleted, not under another post', async () => {
    const post = await publish('Find');
    const other = await publish('Other');
    const top = await comment(post.remoteId, 'here');
    const reply = await comment(top, 'a reply');
    const elsewhere = await comment(other.remoteId, 'elsewhere');
    expect(await find(post, top)).toMatchObject({
      remoteId: top,
      parentRemoteId: post.remoteId,
      text: 'here',
    });
    expect(await find(post, reply)).toMatchObject({ remoteId: reply, parentRemoteId: top });
    expect(await find(post, elsewhere)).toBeNull();
    expect(await find(post, 't1_zzzzzzz')).toBeNull();
    expect(await find(post, post.remoteId)).toBeNull();
    await setState(top, 'hidden');
    expect(await find(post, top)).toBeNull();
    await setState(reply, 'deleted');
    expect(await find(post, reply)).toBeNull();
  });

  it('replies to a comment, shows the reply nested in the listing, and records it once', async () => {
    const post = await publish('Reply');
    const top = (await find(post, await comment(post.remoteId, 'question?'))) as RemoteComment;
    const reply = await replyTo(post, top, 'Thanks for asking');
    expect(reply).toMatchObject({ parentRemoteId: top.remoteId, text: 'Thanks for asking', likeCount: 1 });
    expect((await page(post)).comments.find((c) => c.remoteId === reply.remoteId)).toMatchObject({
      parentRemoteId: top.remoteId,
    });
    // A reply to a reply nests under it (Reddit's threads have levels).
    const nested = await replyTo(post, reply, 'And a follow-up');
    expect(nested.parentRemoteId).toBe(reply.remoteId);
    expect(sim.records().filter((r) => r.kind === 'reply')).toMatchObject([
      { id: reply.remoteId, parentId: top.remoteId, rootId: post.remoteId, text: 'Thanks for asking' },
      { id: nested.remoteId, parentId: reply.remoteId, text: 'And a follow-up' },
    ]);
  });

  it('after a sim:timeout reply, lookupReply finds it in the account’s comments; after a refused one nothing', async () => {
    const post = await publish('Lost');
    const top = (await find(post, await comment(post.remoteId, 'hello'))) as RemoteComment;
    const since = new Date();
    const lost = await failureOf(replyTo(post, top, 'Answer sim:timeout'));
    expect(lost).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    const lookup = (content: string, target = top) =>
      client.lookupReply({ credentials, block: post, comment: target, content, idempotencyKey: 'k', since });
    const found = await lookup('Answer sim:timeout');
    expect(found).toMatchObject({ parentRemoteId: top.remoteId, text: 'Answer sim:timeout' });
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'reply')
        .map((r) => r.id),
    ).toEqual([found?.remoteId]);

    const refused = await failureOf(replyTo(post, top, 'Answer sim:fail'));
    expect(refused.kind).toBe('permanent');
    expect(await lookup('Answer sim:fail')).toBeNull();
    // The same text under another comment, or by someone else, is not this reply.
    const second = (await find(post, await comment(post.remoteId, 'second'))) as RemoteComment;
    expect(await lookup('Answer sim:timeout', second)).toBeNull();
    await comment(top.remoteId, 'Same words');
    expect(await lookup('Same words')).toBeNull();
  });

  it('deletes a reply, and deleting it again is no error', async () => {
    const post = await publish('Delete');
    const top = (await find(post, await comment(post.remoteId, 'hi'))) as RemoteComment;
    const reply = await replyTo(post, top, 'Bye');
    await client.deleteReply({ credentials, block: post, reply });
    await client.deleteReply({ credentials, block: post, reply });
    expect((await page(post)).comments.map((c) => c.remoteId)).toEqual([top.remoteId]);
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'delete')
        .map((r) => r.id),
    ).toEqual([reply.remoteId]);
  });

  it('a grant without the scope a call needs is missingPermission naming it; Herald asks for all of them', async () => {
    expect(REDDIT_SCOPES).toEqual(expect.arrayContaining(['read', 'submit', 'edit', 'history', 'identity']));
    const post = await publish('Scopes');
    const top = (await find(post, await comment(post.remoteId, 'hi'))) as RemoteComment;
    const without = (scope: string) => tokenWith(REDDIT_SCOPES.filter((s) => s !== scope));
    const cases: [string, (who: NetworkCredentials) => Promise<unknown>][] = [
      ['read', (who) => page(post, null, 100, null, who)],
      ['read', (who) => find(post, top.remoteId, who)],
      ['submit', (who) => replyTo(post, top, 'No', who)],
      ['edit', (who) => client.deleteReply({ credentials: who, block: post, reply: top })],
      [
        'history',
        (who) =>
          client.lookupReply({
            credentials: who,
            block: post,
            comment: top,
            content: 'x',
            idempotencyKey: 'k',
            since: new Date(),
          }),
      ],
    ];
    for (const [scope, attempt] of cases) {
      const error = await failureOf(attempt(await without(scope)));
      expect(error).toMatchObject({ kind: 'reconnect', details: { status: 403, missingPermission: true } });
      expect(error.message).toContain(`"${scope}" scope`);
    }
    const full = await tokenWith(REDDIT_SCOPES);
    expect((await page(post, null, 100, null, full)).comments).toHaveLength(1);
    expect(sim.records().filter((r) => r.kind === 'reply')).toEqual([]);
  });

  it('the API window (429) and the account’s posting limit (RATELIMIT) are rateLimited', async () => {
    const post = await publish('Limits');
    const top = (await find(post, await comment(post.remoteId, 'hi'))) as RemoteComment;
    sim.setRateLimited(30);
    expect(await failureOf(page(post))).toMatchObject({
      kind: 'transient',
      details: { status: 429, rateLimited: true },
    });
    sim.setRateLimited(0);
    sim.setSwitches({ postLimitSeconds: 300 });
    const limited = await failureOf(replyTo(post, top, 'Too fast'));
    expect(limited).toMatchObject({ kind: 'transient', details: { rateLimited: true } });
    expect(limited.details.retryAfterSeconds).toBeGreaterThan(250);
    expect(sim.records().filter((r) => r.kind === 'reply')).toEqual([]);
  });
});
