import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import { FacebookClient } from '../../functions/platforms/facebook/client.ts';
import { FACEBOOK_SCOPES, facebookAuth, GRAPH_VERSION } from '../../functions/platforms/facebook/oauth.ts';
import type { NetworkAuth, NetworkTarget } from '../../functions/ports/network-auth.ts';
import type { NetworkCredentials, RemoteBlock, RemoteComment } from '../../functions/ports/network-client.ts';
import { type FacebookSimulator, startFacebookSimulator } from '../../simulators/facebook/simulator.ts';
import { SIM_DEFAULT_REDIRECT_URI } from '../../simulators/framework/oauth.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simCommentHooks } from '../support/sim-comments.ts';

/**
 * Issue 31: the Facebook client's comments half against the Facebook simulator: a post's whole
 * conversation (`filter=stream`, flat, with each reply's parent), findComment tied to the post by
 * the comment id's post prefix, replies as the page (a reply to a reply refused: Graph nests two
 * levels), lookups after a lost reply, deletes, `from` left out for people, permissions and rate
 * limits.
 */

const PAGE = '104857600077777';
const credentials = { accessToken: 'fb-page-token-comments', remoteAccountId: PAGE };

let sim: FacebookSimulator;
let client: FacebookClient;

beforeAll(async () => {
  sim = await startFacebookSimulator({ holdMs: 2_000 });
  client = new FacebookClient({ baseUrl: sim.url, timeoutMs: 1_500 });
});
afterAll(async () => {
  await sim?.stop();
});
beforeEach(() => sim.reset());

const post = (text: string, who: NetworkCredentials = credentials) => client.publish(blockInput(who)(text));
const hooks = simCommentHooks(() => sim.url);
const someone = hooks.add;
const setState = async (id: string, state: 'visible' | 'hidden' | 'deleted') =>
  expect((await hooks.setState(id, state)).status).toBe(204);

const listAll = async (block: RemoteBlock, limit: number, since: Date | null = null, who = credentials) => {
  const all: RemoteComment[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await client.comments({ credentials: who, block, blocks: [block], cursor, since, limit });
    expect(page.comments.length).toBeLessThanOrEqual(limit);
    all.push(...page.comments);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== null && pages < 50);
  return { all, pages };
};
const find = (block: RemoteBlock, remoteId: string, who = credentials) =>
  client.findComment({ credentials: who, block, blocks: [block], remoteId });
const reply = (block: RemoteBlock, comment: RemoteComment, content: string, who = credentials) =>
  client.reply({ credentials: who, block, comment, content, media: [], idempotencyKey: `k-${content}` });

describe('Facebook comments against the Facebook simulator', () => {
  it('a sim:comments post: the whole conversation flat (filter=stream), oldest first, with parents; pages of 2', async () => {
    const block = await post('Launch day sim:comments');
    const { all, pages } = await listAll(block, 2);
    expect(pages).toBe(2);
    expect(all.map((c) => c.text)).toEqual([
      'Congratulations on the launch!',
      'Where can I read more about this?',
      'Agreed, great news.',
    ]);
    const [first, , answer] = all as [RemoteComment, RemoteComment, RemoteComment];
    expect(first).toMatchObject({
      parentRemoteId: block.remoteId,
      author: { name: 'Ada Reader', handle: null },
      meta: { commentId: first.remoteId, postId: block.remoteId },
    });
    expect(first.url).toContain(`comment_id=${first.remoteId}`);
    expect(answer).toMatchObject({ parentRemoteId: first.remoteId, author: { name: 'Linus Lurker' } });
    expect(typeof first.likeCount).toBe('number');
    // The page's own later block is a comment too: listed, with the page as author (the core filters blocks).
    const later = await client.publish(
      blockInput(credentials)('A later block', { parent: { block, root: block } }),
    );
    const withBlock = (await listAll(block, 10)).all;
    expect(withBlock.find((c) => c.remoteId === later.remoteId)?.author.name).toBe(`Page ${PAGE}`);
  });

  it('since filters; from is left out for people who did not authorise the app (names null)', async () => {
    const block = await post('Old and new');
    await someone(block.remoteId, 'Old one', { createdAt: new Date(Date.now() - 3_600_000).toISOString() });
    const fresh = await someone(block.remoteId, 'New one', { author: { name: 'Nia New', handle: 'nia' } });
    const recent = (await listAll(block, 10, new Date(Date.now() - 60_000))).all;
    expect(recent.map((c) => [c.remoteId, c.author.name])).toEqual([[fresh, 'Nia New']]);
    sim.setSwitches({ hideCommenters: true });
    const hidden = (await listAll(block, 10)).all;
    expect(hidden.map((c) => c.author)).toEqual([
      { name: null, handle: null },
      { name: null, handle: null },
    ]);
    expect((await find(block, fresh))?.author.name).toBeNull();
  });

  it('hidden comments are listed with meta.hidden and still found (the page may answer them); deleted ones are gone with their replies', async () => {
    const block = await post('Moderated');
    const hidden = await someone(block.remoteId, 'Hide me');
    const deleted = await someone(block.remoteId, 'Delete me');
    const orphan = await someone(deleted, 'Reply to the deleted');
    await setState(hidden, 'hidden');
    await setState(deleted, 'deleted');
    expect((await listAll(block, 10)).all.map((c) => [c.text, c.meta.hidden])).toEqual([['Hide me', 'true']]);
    expect((await find(block, hidden))?.meta.hidden).toBe('true');
    expect(await find(block, deleted)).toBeNull();
    expect(await find(block, orphan)).toBeNull();
  });

  it('findComment: a comment or reply of this post; null for another post’s comment, an unknown id, or one that is not a comment id', async () => {
    const block = await post('Find here');
    const other = await post('Another post');
    const top = await someone(block.remoteId, 'Findable');
    const answer = await someone(top, 'Findable reply');
    const elsewhere = await someone(other.remoteId, 'On the other post');
    expect(await find(block, top)).toMatchObject({ remoteId: top, parentRemoteId: block.remoteId });
    expect(await find(block, answer)).toMatchObject({ parentRemoteId: top, meta: { canReply: 'false' } });
    expect(await find(block, elsewhere)).toBeNull();
    const prefix = block.remoteId.split('_')[1];
    expect(await find(block, `${prefix}_999999999999`)).toBeNull();
    // The other post itself is no comment of this one.
    expect(await find(block, other.remoteId)).toBeNull();
  });

  it('reply: stored as the page under the comment, shown in the listing, recorded once; a reply to a reply is refused before any call', async () => {
    const block = await post('Reply here sim:comments');
    const listed = (await listAll(block, 10)).all;
    const first = listed.find((c) => c.text === 'Congratulations on the launch!') as RemoteComment;
    const answer = listed.find((c) => c.text === 'Agreed, great news.') as RemoteComment;
    const mine = await reply(block, (await find(block, first.remoteId)) as RemoteComment, 'Thank you!');
    expect(mine).toMatchObject({
      parentRemoteId: first.remoteId,
      text: 'Thank you!',
      author: { name: `Page ${PAGE}`, handle: null },
    });
    expect(mine.remoteId.startsWith(`${block.remoteId.split('_')[1]}_`)).toBe(true);
    expect((await listAll(block, 10)).all.find((c) => c.remoteId === mine.remoteId)?.parentRemoteId).toBe(
      first.remoteId,
    );
    const deep = await failureOf(
      reply(block, (await find(block, answer.remoteId)) as RemoteComment, 'Too deep'),
    );
    expect(deep.kind).toBe('permanent');
    expect(deep.message).toContain(first.remoteId);
    // The simulator refuses it too, as Graph does (can_comment false).
    const raw = await fetch(`${sim.url}/${GRAPH_VERSION}/${answer.remoteId}/comments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Too deep' }),
    });
    expect(raw.status).toBe(400);
    expect(sim.records().filter((r) => r.kind === 'reply')).toMatchObject([
      { id: mine.remoteId, parentId: first.remoteId, rootId: block.remoteId, text: 'Thank you!' },
    ]);
  });

  it('a reply whose answer was lost (sim:timeout) is found by lookupReply at once, never sent twice; a refused one is not found', async () => {
    const block = await post('Lost replies');
    const top = await someone(block.remoteId, 'Ask me');
    const comment = (await find(block, top)) as RemoteComment;
    const quick = new FacebookClient({ baseUrl: sim.url, timeoutMs: 500 });
    const since = new Date();
    const content = 'Answer sim:timeout';
    const lost = await failureOf(
      quick.reply({ credentials, block, comment, content, media: [], idempotencyKey: 'k1' }),
    );
    expect(lost).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    const lookup = { credentials, block, comment, content, idempotencyKey: 'k1', since };
    const found = await client.lookupReply(lookup);
    const stored = sim.records().filter((r) => r.kind === 'reply');
    expect(stored).toHaveLength(1);
    expect(found).toMatchObject({ remoteId: stored[0]?.id, parentRemoteId: top, text: content });
    const refusedSince = new Date();
    expect((await failureOf(reply(block, comment, 'No sim:fail'))).kind).toBe('permanent');
    expect(await client.lookupReply({ ...lookup, content: 'No sim:fail', since: refusedSince })).toBeNull();
    // A person's reply with the same text is not the page's.
    await someone(top, 'Same words');
    expect(await client.lookupReply({ ...lookup, content: 'Same words' })).toBeNull();
    // An older reply with the same text is not this one.
    expect(await client.lookupReply({ ...lookup, since: new Date(Date.now() + 2_000) })).toBeNull();
  });

  it('deleteReply deletes; a second delete (already gone) is no error', async () => {
    const block = await post('Delete replies');
    const top = await someone(block.remoteId, 'Ask');
    const mine = await reply(block, (await find(block, top)) as RemoteComment, 'Short-lived');
    await client.deleteReply({ credentials, block, reply: mine });
    await client.deleteReply({ credentials, block, reply: mine });
    expect((await listAll(block, 10)).all.map((c) => c.text)).toEqual(['Ask']);
    expect(sim.records().filter((r) => r.kind === 'delete')).toHaveLength(1);
  });

  it('a rate limit (80001 with the usage header) is rateLimited on every comment call', async () => {
    const block = await post('Throttled');
    const top = await someone(block.remoteId, 'Ask');
    const comment = (await find(block, top)) as RemoteComment;
    sim.setRateLimited(120);
    const calls = [
      client.comments({ credentials, block, blocks: [block], cursor: null, since: null, limit: 10 }),
      find(block, top),
      reply(block, comment, 'Throttled reply'),
      client.lookupReply({
        credentials,
        block,
        comment,
        content: 'x',
        idempotencyKey: 'k',
        since: new Date(),
      }),
      client.deleteReply({ credentials, block, reply: comment }),
    ];
    for (const call of calls) {
      expect(await failureOf(call)).toMatchObject({
        kind: 'transient',
        details: { rateLimited: true, retryAfterSeconds: 120 },
      });
    }
    expect(sim.records().filter((r) => r.kind !== 'post')).toEqual([]);
  });

  describe('permissions', () => {
    const app = SIM_OAUTH_APPS.facebook;
    /** A page token of a login that granted all Herald asks but `missing`. */
    const pageWithout = async (missing: string): Promise<NetworkCredentials> => {
      const auth = facebookAuth({ baseUrls: { facebook: sim.url }, timeoutMs: 5_000 });
      const url = new URL(
        (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
          app,
          redirectUri: SIM_DEFAULT_REDIRECT_URI,
          state: 'st',
          codeChallenge: null,
        }),
      );
      url.searchParams.set('sim_user', `lacks-${missing}`);
      url.searchParams.set('sim_scopes', FACEBOOK_SCOPES.filter((s) => s !== missing).join(','));
      const consent = await fetch(url, { redirect: 'manual' });
      const code = new URL(consent.headers.get('location') as string).searchParams.get('code') as string;
      const tokens = await (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
        app,
        code,
        redirectUri: SIM_DEFAULT_REDIRECT_URI,
        codeVerifier: null,
      });
      const [target] = await (auth.targets as NonNullable<NetworkAuth['targets']>)({ app, tokens });
      const page = target as NetworkTarget;
      const pageTokens = await (auth.targetTokens as NonNullable<NetworkAuth['targetTokens']>)({
        app,
        tokens,
        target: page,
      });
      return { accessToken: pageTokens.accessToken, remoteAccountId: page.targetId };
    };
    const commentOf = (block: RemoteBlock, id: string): RemoteComment => ({
      remoteId: id,
      parentRemoteId: block.remoteId,
      author: { name: null, handle: null },
      text: 'Ask',
      createdAt: new Date().toISOString(),
      likeCount: null,
      url: null,
      meta: {},
    });

    it('Herald asks for pages_read_user_content; without it, reading people’s comments is Graph’s (#10), a reconnect naming it', async () => {
      expect(FACEBOOK_SCOPES).toContain('pages_read_user_content');
      const who = await pageWithout('pages_read_user_content');
      const block = await post('No reading', who);
      const top = await someone(block.remoteId, 'Ask');
      const reads = [
        client.comments({ credentials: who, block, blocks: [block], cursor: null, since: null, limit: 10 }),
        find(block, top, who),
        client.lookupReply({
          credentials: who,
          block,
          comment: commentOf(block, top),
          content: 'x',
          idempotencyKey: 'k',
          since: new Date(),
        }),
      ];
      for (const call of reads) {
        const error = await failureOf(call);
        expect(error).toMatchObject({ kind: 'reconnect', details: { missingPermission: true } });
        expect(error.message).toMatch(/missing permission: pages_read_user_content/);
      }
    });

    it('without pages_manage_engagement, replying and deleting are Graph’s (#200), a reconnect naming it; nothing stored', async () => {
      const who = await pageWithout('pages_manage_engagement');
      const block = await post('No answering', who);
      const top = await someone(block.remoteId, 'Ask');
      const comment = (await find(block, top, who)) as RemoteComment;
      for (const call of [
        reply(block, comment, 'Not allowed', who),
        client.deleteReply({ credentials: who, block, reply: comment }),
      ]) {
        const error = await failureOf(call);
        expect(error).toMatchObject({ kind: 'reconnect', details: { missingPermission: true } });
        expect(error.message).toMatch(/missing permission: pages_manage_engagement/);
      }
      expect(sim.records().filter((r) => r.kind !== 'post')).toEqual([]);
    });
  });
});
