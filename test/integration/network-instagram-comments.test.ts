import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InstagramClient } from '../../functions/platforms/instagram/client.ts';
import {
  INSTAGRAM_GRAPH_VERSION,
  INSTAGRAM_SCOPES,
  instagramAuth,
} from '../../functions/platforms/instagram/oauth.ts';
import type { NetworkAuth } from '../../functions/ports/network-auth.ts';
import type {
  MediaForNetwork,
  NetworkCredentials,
  RemoteBlock,
  RemoteComment,
} from '../../functions/ports/network-client.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { SIM_DEFAULT_REDIRECT_URI } from '../../simulators/framework/oauth.ts';
import { startInstagramSimulator } from '../../simulators/instagram/simulator.ts';
import { startFileServer } from '../support/file-server.ts';
import { mediaFiles } from '../support/media-files.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simCommentHooks } from '../support/sim-comments.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Issue 31: the Instagram client's comments half against the Instagram simulator: the post's
 * conversation (top-level comments through the media edge, replies through each comment's
 * replies, one level deep), findComment, replies (a reply to a reply lands under the top-level
 * comment, as Instagram does), lookups after a lost reply, deletes, permissions and rate limits.
 */

const ACCOUNT = '17841400000000077';
const credentials = { accessToken: 'ig-token-comments', remoteAccountId: ACCOUNT };

let sim: Simulator;
let files: Awaited<ReturnType<typeof startFileServer>>;
let client: InstagramClient;

beforeAll(async () => {
  files = await startFileServer((name) =>
    name === 'photo.jpg' ? { bytes: mediaFiles.jpeg(20_000), type: 'image/jpeg' } : undefined,
  );
  sim = await startInstagramSimulator({ holdMs: 2_000, processingMs: 30, listLagMs: 0 });
  client = new InstagramClient({ baseUrl: sim.url, timeoutMs: 1_500, pollIntervalMs: 30 });
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => sim.reset());

const jpeg = (): MediaForNetwork => ({
  mediaId: 'med_photo',
  mimeType: 'image/jpeg',
  size: 20_000,
  altText: null,
  url: `${files.url}/photo.jpg`,
});
const post = (text: string, who: NetworkCredentials = credentials) =>
  client.publish(blockInput(who)(text, { media: [jpeg()] }));
const simPost = async (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
/** Someone else comments (on the post or a comment), through the simulator's hook. */
const hooks = simCommentHooks(() => sim.url);
const someone = hooks.add;
const setState = async (id: string, state: 'visible' | 'hidden' | 'deleted') =>
  expect((await hooks.setState(id, state)).status).toBe(204);
const switches = async (body: Record<string, unknown>) =>
  expect((await simPost('/_sim/instagram/switches', body)).status).toBe(204);

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

describe('Instagram comments against the Instagram simulator', () => {
  it('a sim:comments post has three comments: two on the post, one answering the first; pages of 2 hold them all with their parents', async () => {
    const block = await post('Launch day sim:comments');
    const { all, pages } = await listAll(block, 2);
    expect(pages).toBe(2);
    expect(all.map((c) => c.text).sort()).toEqual(
      ['Agreed, great news.', 'Congratulations on the launch!', 'Where can I read more about this?'].sort(),
    );
    const first = all.find((c) => c.text === 'Congratulations on the launch!') as RemoteComment;
    const answer = all.find((c) => c.text === 'Agreed, great news.') as RemoteComment;
    expect(first).toMatchObject({
      parentRemoteId: block.remoteId,
      author: { name: null, handle: 'ada_reader' },
    });
    expect(answer).toMatchObject({ parentRemoteId: first.remoteId, author: { handle: 'linus_l' } });
    expect(answer.url).toBe(`${block.remoteUrl}c/${first.remoteId}/r/${answer.remoteId}/`);
    expect(typeof first.likeCount).toBe('number');
    // A post without the token gets none.
    expect((await listAll(await post('Quiet post'), 10)).all).toEqual([]);
  });

  it('replies past the nested page (25) are read through the replies edge; a reply to a reply sits under the top-level comment; limits hold across pages', async () => {
    const block = await post('Busy post');
    const top = await someone(block.remoteId, 'Top comment');
    for (let i = 0; i < 30; i += 1) await someone(top, `Reply ${i}`);
    const deep = await someone(`${top}`, 'Another');
    const nested = await someone(deep, 'Reply to a reply');
    const { all } = await listAll(block, 7);
    expect(all).toHaveLength(33);
    expect(new Set(all.map((c) => c.remoteId)).size).toBe(33);
    expect(all.filter((c) => c.parentRemoteId === top)).toHaveLength(32);
    expect(all.find((c) => c.remoteId === nested)?.parentRemoteId).toBe(top);
    // One page of 100 holds them all, each once.
    const one = await client.comments({
      credentials,
      block,
      blocks: [block],
      cursor: null,
      since: null,
      limit: 100,
    });
    expect(one.comments).toHaveLength(33);
    expect(one.nextCursor).toBeNull();
  });

  it('since: only comments made at or after it (Instagram has no filter: the client filters)', async () => {
    const block = await post('Old and new');
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await someone(block.remoteId, 'Old one', { createdAt: hourAgo });
    const fresh = await someone(block.remoteId, 'New one');
    const { all } = await listAll(block, 10, new Date(Date.now() - 60_000));
    expect(all.map((c) => c.remoteId)).toEqual([fresh]);
  });

  it('hidden comments are listed with meta.hidden; deleted ones are gone with their replies', async () => {
    const block = await post('Moderated');
    const hidden = await someone(block.remoteId, 'Hide me');
    const deleted = await someone(block.remoteId, 'Delete me');
    await someone(deleted, 'Reply to the deleted');
    await setState(hidden, 'hidden');
    await setState(deleted, 'deleted');
    const { all } = await listAll(block, 10);
    expect(all.map((c) => [c.text, c.meta.hidden])).toEqual([['Hide me', 'true']]);
  });

  it('findComment: a comment or reply of this post; null when hidden (Instagram refuses replies to it), deleted, unknown, or on another post', async () => {
    const block = await post('Find here');
    const other = await post('Another post');
    const top = await someone(block.remoteId, 'Findable');
    const answer = await someone(top, 'Findable reply');
    const hidden = await someone(block.remoteId, 'Hidden one');
    const deleted = await someone(block.remoteId, 'Deleted one');
    const elsewhere = await someone(other.remoteId, 'On the other post');
    await setState(hidden, 'hidden');
    await setState(deleted, 'deleted');
    expect(await find(block, top)).toMatchObject({
      remoteId: top,
      parentRemoteId: block.remoteId,
      text: 'Findable',
    });
    expect(await find(block, answer)).toMatchObject({ parentRemoteId: top, text: 'Findable reply' });
    expect(await find(block, hidden)).toBeNull();
    expect(await find(block, deleted)).toBeNull();
    expect(await find(block, elsewhere)).toBeNull();
    expect(await find(block, '17899999999999999')).toBeNull();
    // Shown again: findable again.
    await setState(hidden, 'visible');
    expect((await find(block, hidden))?.text).toBe('Hidden one');
  });

  it('reply: stored as the account, shown in the listing, recorded once; a reply to a reply goes under the top-level comment', async () => {
    const block = await post('Reply here sim:comments');
    const listed = (await listAll(block, 10)).all;
    const first = listed.find((c) => c.text === 'Congratulations on the launch!') as RemoteComment;
    const answer = listed.find((c) => c.text === 'Agreed, great news.') as RemoteComment;
    const mine = await reply(block, (await find(block, first.remoteId)) as RemoteComment, 'Thank you!');
    expect(mine).toMatchObject({
      parentRemoteId: first.remoteId,
      text: 'Thank you!',
      author: { handle: `sim_${ACCOUNT}` },
    });
    const deep = await reply(block, (await find(block, answer.remoteId)) as RemoteComment, 'Agreed too');
    expect(deep.parentRemoteId).toBe(first.remoteId);
    const after = (await listAll(block, 10)).all;
    expect(after.find((c) => c.remoteId === mine.remoteId)?.parentRemoteId).toBe(first.remoteId);
    expect(after.find((c) => c.remoteId === deep.remoteId)?.parentRemoteId).toBe(first.remoteId);
    expect(sim.records().filter((r) => r.kind === 'reply')).toMatchObject([
      { id: mine.remoteId, parentId: first.remoteId, rootId: block.remoteId, text: 'Thank you!' },
      { id: deep.remoteId, parentId: first.remoteId, rootId: block.remoteId, text: 'Agreed too' },
    ]);
  });

  it('Instagram refuses a reply to a hidden comment, any comment where the owner turned comments off, and more than 30 hashtags: permanent, nothing stored', async () => {
    const block = await post('Strict');
    const top = await someone(block.remoteId, 'Will be hidden');
    const comment = (await find(block, top)) as RemoteComment;
    await setState(top, 'hidden');
    const hidden = await failureOf(reply(block, comment, 'To a hidden one'));
    expect(hidden.kind).toBe('permanent');
    expect(hidden.message).toMatch(/hidden/);
    await setState(top, 'visible');
    await switches({ commentsDisabled: [block.remoteId] });
    const off = await failureOf(reply(block, comment, 'Comments off'));
    expect(off.kind).toBe('permanent');
    expect(off.message).toMatch(/turned comments off/);
    await switches({ commentsDisabled: [] });
    // More than 30 hashtags: refused before any call (the simulator refuses them too).
    const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ');
    const tooMany = await failureOf(reply(block, comment, tags));
    expect(tooMany.kind).toBe('permanent');
    expect(tooMany.message).toMatch(/at most 30 hashtags.*31/);
    const raw = await fetch(`${sim.url}/${INSTAGRAM_GRAPH_VERSION}/${top}/replies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credentials.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: tags }),
    });
    expect(raw.status).toBe(400);
    expect(sim.records().filter((r) => r.kind === 'reply')).toEqual([]);
    // Thirty are fine.
    await reply(block, comment, tags.replace(' #tag30', ''));
  });

  it('a reply whose answer was lost (sim:timeout) is found by lookupReply within the consistency window, never sent twice; a refused one is not found', async () => {
    await switches({ listLagMs: 1_000 });
    const block = await post('Lost replies');
    const top = await someone(block.remoteId, 'Ask me', {
      createdAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const comment = (await find(block, top)) as RemoteComment;
    const quick = new InstagramClient({ baseUrl: sim.url, timeoutMs: 500, pollIntervalMs: 30 });
    const since = new Date();
    const content = 'Answer sim:timeout';
    const lost = await failureOf(
      quick.reply({ credentials, block, comment, content, media: [], idempotencyKey: 'k1' }),
    );
    expect(lost).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    const lookup = { credentials, block, comment, content, idempotencyKey: 'k1', since };
    // The replies edge lags: not there yet, and the window still open (the engine looks again).
    expect(await client.lookupReply(lookup)).toBeNull();
    expect(Date.now()).toBeLessThan(since.getTime() + client.consistencyWindowSeconds * 1000);
    const found = await waitFor(() => client.lookupReply(lookup), { timeoutMs: 10_000 });
    const stored = sim.records().filter((r) => r.kind === 'reply');
    expect(stored).toHaveLength(1);
    expect(found).toMatchObject({ remoteId: stored[0]?.id, parentRemoteId: top, text: content });
    // A refused reply stores nothing: never found.
    const refusedSince = new Date();
    expect((await failureOf(reply(block, comment, 'No sim:fail'))).kind).toBe('permanent');
    await switches({ listLagMs: 0 });
    expect(await client.lookupReply({ ...lookup, content: 'No sim:fail', since: refusedSince })).toBeNull();
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

  it('a rate limit (80002 with the usage header) is rateLimited on every comment call', async () => {
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
      expect(await failureOf(call)).toMatchObject({ kind: 'transient', details: { rateLimited: true } });
    }
    expect(sim.records().filter((r) => r.kind !== 'post')).toEqual([]);
  });

  it('without instagram_business_manage_comments every comment call is a reconnect naming it', async () => {
    const auth = instagramAuth({ baseUrls: { instagram: sim.url }, timeoutMs: 5_000 });
    const app = { clientId: 'herald-sim-instagram', clientSecret: 'herald-sim-secret-instagram' };
    const url = new URL(
      (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
        app,
        redirectUri: SIM_DEFAULT_REDIRECT_URI,
        state: 's',
        codeChallenge: null,
      }),
    );
    url.searchParams.set('sim_user', 'ig-no-comments');
    url.searchParams.set(
      'sim_scopes',
      INSTAGRAM_SCOPES.filter((s) => s !== 'instagram_business_manage_comments').join(','),
    );
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') as string);
    const tokens = await (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
      app,
      code: back.searchParams.get('code') as string,
      redirectUri: SIM_DEFAULT_REDIRECT_URI,
      codeVerifier: null,
    });
    const { remoteAccountId } = await auth.identify({ app, tokens });
    const who = { accessToken: tokens.accessToken, remoteAccountId };
    const block = await post('No comment permission', who);
    const top = await someone(block.remoteId, 'Ask');
    const comment: RemoteComment = {
      remoteId: top,
      parentRemoteId: block.remoteId,
      author: { name: null, handle: 'ada_reader' },
      text: 'Ask',
      createdAt: new Date().toISOString(),
      likeCount: null,
      url: null,
      meta: {},
    };
    const calls = [
      client.comments({ credentials: who, block, blocks: [block], cursor: null, since: null, limit: 10 }),
      find(block, top, who),
      reply(block, comment, 'Not allowed', who),
      client.lookupReply({
        credentials: who,
        block,
        comment,
        content: 'x',
        idempotencyKey: 'k',
        since: new Date(),
      }),
      client.deleteReply({ credentials: who, block, reply: comment }),
    ];
    for (const call of calls) {
      const error = await failureOf(call);
      expect(error).toMatchObject({ kind: 'reconnect', details: { missingPermission: true } });
      expect(error.message).toContain('instagram_business_manage_comments');
      expect(error.message).toMatch(/Reconnecting the channel grants it/);
    }
  });
});
