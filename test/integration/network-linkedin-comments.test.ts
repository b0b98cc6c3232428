import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIM_OAUTH_APPS } from '../../functions/adapters/local/sim-oauth-apps.ts';
import {
  createLinkedInClient,
  DEFAULT_LINKEDIN_VERSION,
  type LinkedInPageClient,
} from '../../functions/platforms/linkedin/client.ts';
import { linkedInPageAuth } from '../../functions/platforms/linkedin/oauth.ts';
import type { NetworkAuth, TokenSet } from '../../functions/ports/network-auth.ts';
import type {
  MediaForNetwork,
  NetworkCredentials,
  RemoteBlock,
  RemoteComment,
} from '../../functions/ports/network-client.ts';
import { SEEDED_COMMENTS } from '../../simulators/framework/comments.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import { startLinkedInSimulator } from '../../simulators/linkedin/simulator.ts';
import { servedFrom, startFileServer } from '../support/file-server.ts';
import { blockInput, failureOf } from '../support/network.ts';
import { simCommentHooks } from '../support/sim-comments.ts';

/**
 * The LinkedIn page client's comments (issue 31) against the LinkedIn simulator: the conversation
 * (first-level comments and their nested answers, paged behind one cursor), one comment, answers
 * (one level deep, images), lost answers looked up, deletes, and LinkedIn's refusals.
 */

const credentials: NetworkCredentials = { accessToken: 'li-token-page', remoteAccountId: '2414183' };
const PAGE = 'urn:li:organization:2414183';
const TIMEOUT = 1_000;

let sim: Simulator;
let page: LinkedInPageClient;
let files: Awaited<ReturnType<typeof startFileServer>>;
const stored = new Map<string, Buffer>();
const input = blockInput(credentials);

beforeAll(async () => {
  sim = await startLinkedInSimulator({ holdMs: 3_000, media: { processingMs: 20 } });
  page = createLinkedInClient('linkedin_page', {
    baseUrl: sim.url,
    timeoutMs: TIMEOUT,
    media: { pollMs: 10, maxProcessingSeconds: 5 },
  });
  files = await startFileServer(servedFrom(stored));
});
afterAll(async () => {
  await sim?.stop();
  await files?.close();
});
beforeEach(() => {
  sim.reset();
});

/** Someone else comments (`/_sim/comments`): on the post (its URN) or on a comment (its URN). */
const hooks = simCommentHooks(() => sim.url);
const comment = hooks.add;
const setState = hooks.setState;

const conversation = (
  post: RemoteBlock,
  extra: Partial<Parameters<LinkedInPageClient['comments']>[0]> = {},
) =>
  page.comments({
    credentials,
    block: post,
    blocks: [post],
    cursor: null,
    since: null,
    limit: 100,
    ...extra,
  });

/** Every page of the conversation, `limit` at a time, and the cursors that led to them. */
const allPages = async (post: RemoteBlock, limit: number, since: Date | null = null) => {
  const pages: RemoteComment[][] = [];
  const cursors: string[] = [];
  let cursor: string | null = null;
  do {
    const result = await conversation(post, { cursor, limit, since });
    pages.push(result.comments);
    cursor = result.nextCursor;
    if (cursor) cursors.push(cursor);
    expect(pages.length, 'the cursor comes to an end').toBeLessThan(50);
  } while (cursor);
  return { pages, cursors, comments: pages.flat() };
};

const find = (post: RemoteBlock, remoteId: string) =>
  page.findComment({ credentials, block: post, blocks: [post], remoteId });

const replyTo = (post: RemoteBlock, to: RemoteComment, content: string, media: MediaForNetwork[] = []) =>
  page.reply({ credentials, block: post, comment: to, content, media, idempotencyKey: randomUUID() });

const records = () =>
  sim
    .records()
    .map(({ kind, id, parentId, rootId, text, account }) => ({ kind, id, parentId, rootId, text, account }));

const versioned = {
  authorization: `Bearer ${credentials.accessToken}`,
  'content-type': 'application/json',
  'linkedin-version': DEFAULT_LINKEDIN_VERSION,
  'x-restli-protocol-version': '2.0.0',
};

describe('LinkedIn page comments against the simulator', () => {
  it('only the page client reads and answers comments: the member profile has none of the methods', () => {
    const profile = createLinkedInClient('linkedin', { baseUrl: sim.url });
    for (const method of ['comments', 'findComment', 'reply', 'lookupReply', 'deleteReply'] as const) {
      expect(profile[method as keyof typeof profile], method).toBeUndefined();
      expect(typeof page[method], method).toBe('function');
    }
  });

  it('a sim:comments post gets the seeded conversation: two comments on the post, one answering the first, each with its parent', async () => {
    const post = await page.publish(input('Launch day sim:comments'));
    const later = await page.publish(input('A later block', { parent: { block: post, root: post } }));
    const { comments, nextCursor } = await page.comments({
      credentials,
      block: post,
      blocks: [post, later],
      cursor: null,
      since: null,
      limit: 100,
    });
    expect(nextCursor).toBeNull();
    const byText = new Map(comments.map((c) => [c.text, c]));
    const [first, second, answer] = SEEDED_COMMENTS.map((seed) => byText.get(seed.text) as RemoteComment);
    expect(first?.parentRemoteId).toBe(post.remoteId);
    expect(second?.parentRemoteId).toBe(post.remoteId);
    expect(answer?.parentRemoteId).toBe(first?.remoteId);
    expect(answer?.meta.threadUrn).toBe(first?.remoteId);
    // LinkedIn names the actor only: no display name, the URN as the handle.
    expect(first).toMatchObject({
      author: { name: null, handle: 'urn:li:person:ada_reader' },
      likeCount: 0,
      remoteId: expect.stringMatching(/^urn:li:comment:\(urn:li:activity:\d+,\d+\)$/),
      url: `${post.remoteUrl}?commentUrn=${encodeURIComponent(first?.remoteId as string)}`,
      meta: { actor: 'urn:li:person:ada_reader', postUrn: post.remoteId },
    });
    expect(new Date(first?.createdAt as string).toISOString()).toBe(first?.createdAt);
    // The page's own later block is in the conversation under its block id (the core filters it).
    expect(byText.get('A later block')?.remoteId).toBe(later.remoteId);
    expect(comments).toHaveLength(4);
    // A post without the token gets none.
    const quiet = await page.publish(input('No comments here'));
    expect((await conversation(quiet)).comments).toEqual([]);
  });

  it('pages the whole conversation with one cursor, limit at a time, even inside a long thread', async () => {
    const post = await page.publish(input('Busy post'));
    const tops: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      tops.push(
        await comment(post.remoteId, `Top ${i}`, {
          createdAt: new Date(Date.now() - (10 - i) * 1000).toISOString(),
        }),
      );
    }
    const answers: string[] = [];
    for (let i = 0; i < 4; i += 1) answers.push(await comment(tops[2] as string, `Answer ${i}`));
    const everything = (await conversation(post)).comments;
    expect(everything).toHaveLength(9);
    // Newest first, each first-level comment followed by its answers.
    expect(everything.map((c) => c.text).slice(0, 3)).toEqual(['Top 4', 'Top 3', 'Top 2']);
    expect(everything.slice(3, 7).every((c) => c.parentRemoteId === tops[2])).toBe(true);

    const { pages, cursors, comments } = await allPages(post, 2);
    expect(pages.every((p) => p.length <= 2)).toBe(true);
    expect(comments.map((c) => c.remoteId)).toEqual(everything.map((c) => c.remoteId));
    // A page ended inside the thread of answers and the next one went on from there.
    expect(cursors.some((cursor) => cursor.includes('.'))).toBe(true);
    // LinkedIn's own paging is start/count with paging.total.
    const raw = await fetch(
      `${sim.url}/rest/socialActions/${encodeURIComponent(post.remoteId)}/comments?start=0&count=2`,
      { headers: versioned },
    );
    const body = (await raw.json()) as { paging: { start: number; count: number; total: number } };
    expect(body.paging).toMatchObject({ start: 0, count: 2, total: 5 });
  });

  it('a newer comment arriving between pages does not make the next page skip a thread’s answers or the newcomer', async () => {
    const post = await page.publish(input('Moving target'));
    const at = (secondsAgo: number) => ({
      createdAt: new Date(Date.now() - secondsAgo * 1000).toISOString(),
    });
    const older = await comment(post.remoteId, 'Older', at(60));
    const busy = await comment(post.remoteId, 'Busy', at(50));
    const answers = [
      await comment(busy, 'Answer 1', at(40)),
      await comment(busy, 'Answer 2', at(30)),
      await comment(busy, 'Answer 3', at(20)),
    ];
    const first = await conversation(post, { limit: 2 });
    expect(first.nextCursor).toMatch(/^0\.1\.\d+$/);
    // LinkedIn lists newest first: the newcomer moves every first-level comment one place on.
    const newcomer = await comment(post.remoteId, 'Newcomer', at(10));
    const seen = new Set(first.comments.map((c) => c.remoteId));
    let cursor = first.nextCursor;
    while (cursor) {
      const next = await conversation(post, { limit: 2, cursor });
      for (const c of next.comments) seen.add(c.remoteId);
      cursor = next.nextCursor;
    }
    for (const id of [older, busy, newcomer, ...answers]) expect(seen.has(id), id).toBe(true);
  });

  it('since: LinkedIn cannot filter, the client does, and an old comment’s new answer still comes', async () => {
    const post = await page.publish(input('Filtered post'));
    const hour = 3_600_000;
    const old = await comment(post.remoteId, 'Old one', {
      createdAt: new Date(Date.now() - 2 * hour).toISOString(),
    });
    await comment(post.remoteId, 'New one');
    const fresh = await comment(old, 'New answer to the old one');
    const since = new Date(Date.now() - hour);
    const { comments } = await allPages(post, 1, since);
    expect(comments.map((c) => c.text).sort()).toEqual(['New answer to the old one', 'New one']);
    expect(comments.find((c) => c.remoteId === fresh)?.parentRemoteId).toBe(old);
  });

  it('findComment: a comment or answer of this post; null when hidden, deleted, another post’s, or not a comment URN', async () => {
    const post = await page.publish(input('Find me'));
    const other = await page.publish(input('Another post'));
    const top = await comment(post.remoteId, 'Visible');
    const nested = await comment(top, 'Nested');
    const hidden = await comment(post.remoteId, 'Hidden soon');
    const deleted = await comment(post.remoteId, 'Deleted soon');
    const elsewhere = await comment(other.remoteId, 'On the other post');

    expect(await find(post, top)).toMatchObject({
      remoteId: top,
      parentRemoteId: post.remoteId,
      text: 'Visible',
    });
    expect(await find(post, nested)).toMatchObject({
      remoteId: nested,
      parentRemoteId: top,
      meta: { threadUrn: top },
      url: `${post.remoteUrl}?commentUrn=${encodeURIComponent(top)}&replyUrn=${encodeURIComponent(nested)}`,
    });
    expect((await setState(hidden, 'hidden')).status).toBe(204);
    expect((await setState(deleted, 'deleted')).status).toBe(204);
    expect(await find(post, hidden)).toBeNull();
    expect(await find(post, deleted)).toBeNull();
    expect(await find(post, elsewhere)).toBeNull();
    expect(await find(post, 'urn:li:share:123')).toBeNull();
    // Hidden and deleted ones are absent from the listing too; shown again, it comes back.
    expect((await conversation(post)).comments.map((c) => c.text).sort()).toEqual(['Nested', 'Visible']);
    expect((await setState(hidden, 'visible')).status).toBe(204);
    expect(await find(post, hidden)).toMatchObject({ text: 'Hidden soon' });
    // The hooks refuse what they do not know.
    expect((await setState('urn:li:comment:(urn:li:activity:1,2)', 'hidden')).status).toBe(404);
    const unknown = await fetch(`${sim.url}/_sim/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parentId: 'urn:li:share:1', text: 'x' }),
    });
    expect(unknown.status).toBe(404);
  });

  it('answers a comment as the page: stored nested under it, recorded, in the listing; an answer to an answer goes to its thread', async () => {
    const post = await page.publish(input('Answer me'));
    const top = (await find(post, await comment(post.remoteId, 'Question?'))) as RemoteComment;
    const reply = await replyTo(post, top, 'Thanks for asking (here is how)');
    expect(reply).toMatchObject({
      parentRemoteId: top.remoteId,
      author: { name: null, handle: PAGE },
      text: 'Thanks for asking (here is how)',
      remoteId: expect.stringMatching(/^urn:li:comment:\(urn:li:activity:\d+,\d+\)$/),
      meta: { threadUrn: top.remoteId, actor: PAGE },
    });
    expect(records()).toEqual([
      expect.objectContaining({ kind: 'post', id: post.remoteId }),
      {
        kind: 'reply',
        id: reply.remoteId,
        parentId: top.remoteId,
        rootId: post.remoteId,
        text: 'Thanks for asking (here is how)',
        account: PAGE,
      },
    ]);
    const listed = (await conversation(post)).comments;
    expect(listed.find((c) => c.remoteId === reply.remoteId)).toMatchObject({ parentRemoteId: top.remoteId });

    // LinkedIn nests one level: the simulator refuses a comment under an answer...
    const nested = await fetch(
      `${sim.url}/rest/socialActions/${encodeURIComponent(reply.remoteId)}/comments`,
      {
        method: 'POST',
        headers: versioned,
        body: JSON.stringify({
          actor: PAGE,
          message: { text: 'Too deep' },
          parentComment: reply.remoteId,
        }),
      },
    );
    expect(nested.status).toBe(422);
    // ...so the client answers an answer in its thread.
    const someone = (await find(
      post,
      await comment(top.remoteId, 'Follow-up from a reader'),
    )) as RemoteComment;
    const second = await replyTo(post, someone, 'Answered in the thread');
    expect(second.parentRemoteId).toBe(top.remoteId);
    expect(
      sim
        .records()
        .filter((r) => r.kind === 'reply')
        .map((r) => r.parentId),
    ).toEqual([top.remoteId, top.remoteId]);
  });

  it('an answer takes 1,250 characters (code points), as LinkedIn: one more is refused, permanent', async () => {
    const post = await page.publish(input('Long answers'));
    const top = (await find(post, await comment(post.remoteId, 'Tell us everything'))) as RemoteComment;
    const longest = '😀'.repeat(1250);
    expect((await replyTo(post, top, longest)).text).toBe(longest);
    const refused = await failureOf(replyTo(post, top, `${longest}!`));
    expect(refused).toMatchObject({ kind: 'permanent', details: { status: 422 } });
    expect(refused.message).toMatch(/length of 1251 exceeds the maximum allowed length 1250/);
    expect(sim.records().filter((r) => r.kind === 'reply')).toHaveLength(1);
  });

  it('an answer carries one image, uploaded as the page and AVAILABLE first', async () => {
    const post = await page.publish(input('Pictures welcome'));
    const top = (await find(post, await comment(post.remoteId, 'Show us?'))) as RemoteComment;
    stored.set('answer.png', randomBytes(1_200));
    const image: MediaForNetwork = {
      mediaId: 'med_answer',
      mimeType: 'image/png',
      size: 1_200,
      altText: null,
      url: `${files.url}/answer.png`,
    };
    const reply = await replyTo(post, top, 'Here it is', [image]);
    const raw = await fetch(`${sim.url}/rest/socialActions/${encodeURIComponent(top.remoteId)}/comments`, {
      headers: versioned,
    });
    const { elements } = (await raw.json()) as {
      elements: { commentUrn: string; content?: { entity: { image: string }; type: string }[] }[];
    };
    expect(elements).toEqual([
      expect.objectContaining({
        commentUrn: reply.remoteId,
        content: [
          expect.objectContaining({
            type: 'IMAGE',
            entity: { image: expect.stringMatching(/^urn:li:image:/) },
          }),
        ],
      }),
    ]);
    const media = (await (await fetch(`${sim.url}/_sim/linkedin/media`)).json()) as {
      data: { owner: string; status: string }[];
    };
    expect(media.data).toEqual([expect.objectContaining({ owner: PAGE, status: 'AVAILABLE' })]);
  });

  it('lookupReply finds an answer whose answer was lost (sim:timeout), sent once; a refused one is not found', async () => {
    const post = await page.publish(input('Lossy'));
    const top = (await find(post, await comment(post.remoteId, 'Hello?'))) as RemoteComment;
    const since = new Date();
    const lost = await failureOf(replyTo(post, top, 'Hello back sim:timeout'));
    expect(lost).toMatchObject({ kind: 'transient', details: { outcomeUnknown: true } });
    const found = await page.lookupReply({
      credentials,
      block: post,
      comment: top,
      content: 'Hello back sim:timeout',
      idempotencyKey: randomUUID(),
      since,
    });
    expect(found).toMatchObject({
      parentRemoteId: top.remoteId,
      text: 'Hello back sim:timeout',
      author: { handle: PAGE },
    });
    expect(sim.records().filter((r) => r.kind === 'reply')).toHaveLength(1);
    expect(found?.remoteId).toBe(sim.records().find((r) => r.kind === 'reply')?.id);

    const refused = await failureOf(replyTo(post, top, 'Not this sim:fail'));
    expect(refused).toMatchObject({ kind: 'permanent', details: { status: 422 } });
    const lookup = (content: string, at: Date) =>
      page.lookupReply({
        credentials,
        block: post,
        comment: top,
        content,
        idempotencyKey: randomUUID(),
        since: at,
      });
    expect(await lookup('Not this sim:fail', since)).toBeNull();
    // Same text by someone else, or the page's own answer from before the send, is not it.
    await comment(top.remoteId, 'Echo');
    expect(await lookup('Echo', since)).toBeNull();
    expect(await lookup('Hello back sim:timeout', new Date(Date.now() + 60_000))).toBeNull();
  });

  it('deleteReply deletes the answer; deleting it again is no error', async () => {
    const post = await page.publish(input('Regrets'));
    const top = (await find(post, await comment(post.remoteId, 'Hm?'))) as RemoteComment;
    const reply = await replyTo(post, top, 'Oops');
    await page.deleteReply({ credentials, block: post, reply });
    await page.deleteReply({ credentials, block: post, reply });
    expect((await conversation(post)).comments.map((c) => c.text)).toEqual(['Hm?']);
    expect(await find(post, reply.remoteId)).toBeNull();
    expect(sim.records().filter((r) => r.kind === 'delete')).toEqual([
      expect.objectContaining({ id: reply.remoteId, account: PAGE }),
    ]);
  });

  it('rate limit: LinkedIn’s bare 429 on reads and answers is transient and rateLimited', async () => {
    const post = await page.publish(input('Throttled'));
    const top = (await find(post, await comment(post.remoteId, 'Hi'))) as RemoteComment;
    sim.setRateLimited(60);
    for (const attempt of [conversation(post), replyTo(post, top, 'Later'), find(post, top.remoteId)]) {
      expect(await failureOf(attempt)).toMatchObject({
        kind: 'transient',
        details: { status: 429, rateLimited: true },
      });
    }
    sim.setRateLimited(0);
    expect(sim.records().filter((r) => r.kind === 'reply')).toHaveLength(0);
  });
});

describe('LinkedIn page comments and the grant’s scopes', () => {
  const REDIRECT = 'https://herald.example/v1/channels/callback';
  const app = SIM_OAUTH_APPS.linkedin_page;
  let auth: NetworkAuth;
  beforeAll(() => {
    auth = linkedInPageAuth({ baseUrls: { linkedin_page: sim.url }, timeoutMs: 5_000 });
  });

  /** A page grant for one simulated member, with only `scopes` when given. */
  const connect = async (member: string, scopes?: string[]): Promise<TokenSet> => {
    const url = new URL(
      (auth.authorizeUrl as NonNullable<NetworkAuth['authorizeUrl']>)({
        app,
        redirectUri: REDIRECT,
        state: 's',
        codeChallenge: null,
      }),
    );
    url.searchParams.set('sim_user', member);
    if (scopes) url.searchParams.set('sim_scopes', scopes.join(' '));
    const response = await fetch(url, { redirect: 'manual' });
    const code = new URL(response.headers.get('location') as string).searchParams.get('code');
    return (auth.exchangeCode as NonNullable<NetworkAuth['exchangeCode']>)({
      app,
      code: code as string,
      redirectUri: REDIRECT,
      codeVerifier: null,
    });
  };

  it('without r_organization_social the conversation cannot be read, without w_organization_social not answered: reconnect, naming the scope', async () => {
    const member = `li${randomBytes(3).toString('hex')}`;
    const full = await connect(member);
    const [target] = await (auth.targets as NonNullable<NetworkAuth['targets']>)({ app, tokens: full });
    const pageId = target?.targetId as string;
    const as = (tokens: TokenSet) => ({ accessToken: tokens.accessToken, remoteAccountId: pageId });
    const post = await page.publish(blockInput(as(full))('Scoped post'));
    const top = await comment(post.remoteId, 'Scoped question');
    const topComment = (await page.findComment({
      credentials: as(full),
      block: post,
      blocks: [post],
      remoteId: top,
    })) as RemoteComment;

    const noRead = await connect(member, [
      'r_basicprofile',
      'w_organization_social',
      'rw_organization_admin',
    ]);
    const readFailure = await failureOf(
      page.comments({
        credentials: as(noRead),
        block: post,
        blocks: [post],
        cursor: null,
        since: null,
        limit: 10,
      }),
    );
    expect(readFailure).toMatchObject({
      kind: 'reconnect',
      details: { status: 403, missingPermission: true },
    });
    expect(readFailure.message).toMatch(/r_organization_social/);
    expect(readFailure.message).toMatch(/reconnecting the channel grants it/);

    const noWrite = await connect(member, [
      'r_basicprofile',
      'r_organization_social',
      'rw_organization_admin',
    ]);
    const writeFailure = await failureOf(
      page.reply({
        credentials: as(noWrite),
        block: post,
        comment: topComment,
        content: 'Cannot',
        media: [],
        idempotencyKey: randomUUID(),
      }),
    );
    expect(writeFailure).toMatchObject({
      kind: 'reconnect',
      details: { status: 403, missingPermission: true },
    });
    expect(writeFailure.message).toMatch(/w_organization_social/);
    // The full grant does both.
    const reply = await page.reply({
      credentials: as(full),
      block: post,
      comment: topComment,
      content: 'Can',
      media: [],
      idempotencyKey: randomUUID(),
    });
    expect(reply.author.handle).toBe(`urn:li:organization:${pageId}`);
  });
});
