import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createLinkedInClient,
  DEFAULT_LINKEDIN_VERSION,
  type LinkedInClient,
  linkedInVersionOf,
  toLittleText,
} from '../../functions/platforms/linkedin/client.ts';
import type { Simulator } from '../../simulators/framework/framework.ts';
import {
  fromLittleText,
  linkedInVersionActive,
  startLinkedInSimulator,
} from '../../simulators/linkedin/simulator.ts';
import { blockInput, failureOf } from '../support/network.ts';

const credentials = { accessToken: 'li-token-alice', remoteAccountId: 'AbC123xyz' };
const AUTHOR = 'urn:li:person:AbC123xyz';

let sim: Simulator;
let client: LinkedInClient;

const input = blockInput(credentials);

const rawPost = (body: unknown, headers: Record<string, string> = {}, token = credentials.accessToken) =>
  fetch(`${sim.url}/rest/posts`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'linkedin-version': DEFAULT_LINKEDIN_VERSION,
      'x-restli-protocol-version': '2.0.0',
      ...headers,
    },
    body: JSON.stringify(body),
  });

const validPost = (commentary: string) => ({
  author: AUTHOR,
  commentary,
  visibility: 'PUBLIC',
  distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
  lifecycleState: 'PUBLISHED',
  isReshareDisabledByAuthor: false,
});

beforeAll(async () => {
  sim = await startLinkedInSimulator();
  client = createLinkedInClient('linkedin', { baseUrl: sim.url, timeoutMs: 300 });
});
afterAll(async () => {
  await sim?.stop();
});
beforeEach(() => {
  sim.reset();
});

describe('LinkedIn client against the LinkedIn simulator', () => {
  it('posts the first block and the others as comments on it', async () => {
    const post = await client.publish(input('Main post', { options: { visibility: 'CONNECTIONS' } }));
    const first = await client.publish(input('Comment one', { parent: { block: post, root: post } }));
    const second = await client.publish(input('Comment two', { parent: { block: post, root: post } }));

    expect(post.remoteId).toMatch(/^urn:li:share:\d{19}$/);
    expect(post.remoteUrl).toBe(`https://www.linkedin.com/feed/update/${post.remoteId}/`);
    expect(post.meta).toEqual({ urn: post.remoteId });
    for (const comment of [first, second]) {
      const id = comment.meta.commentId as string;
      // As LinkedIn answers: the comment URN names the post's activity, not the share.
      expect(comment.remoteId).toMatch(new RegExp(`^urn:li:comment:\\(urn:li:activity:\\d+,${id}\\)$`));
      expect(comment.meta).toEqual({ urn: comment.remoteId, postUrn: post.remoteId, commentId: id });
      expect(comment.remoteUrl).toBe(`${post.remoteUrl}?commentUrn=${encodeURIComponent(comment.remoteId)}`);
    }
    expect(
      sim.records().map(({ kind, id, parentId, rootId, text, account }) => ({
        kind,
        id,
        parentId,
        rootId,
        text,
        account,
      })),
    ).toEqual([
      { kind: 'post', id: post.remoteId, parentId: null, rootId: null, text: 'Main post', account: AUTHOR },
      {
        kind: 'comment',
        id: first.remoteId,
        parentId: post.remoteId,
        rootId: post.remoteId,
        text: 'Comment one',
        account: AUTHOR,
      },
      {
        kind: 'comment',
        id: second.remoteId,
        parentId: post.remoteId,
        rootId: post.remoteId,
        text: 'Comment two',
        account: AUTHOR,
      },
    ]);
    const overHttp = await fetch(`${sim.url}/_sim/records`);
    expect(((await overHttp.json()) as { data: unknown }).data).toEqual(sim.records());
  });

  it('escapes little-text markup so LinkedIn keeps the whole text', async () => {
    const text = 'Launch (beta) [v2] {soon} <b> a|b @team #launch C# x_y *z* ~w \\ done';
    await client.publish(input(text));
    expect(sim.records()[0]?.text).toBe(text);
    // Unescaped, LinkedIn would cut the text at the first markup character.
    expect(fromLittleText(text)).toBe('Launch ');
    expect(toLittleText('#launch now')).toBe('{hashtag|\\#|launch} now');
  });

  it('edits the post and a comment, then deletes both', async () => {
    const post = await client.publish(input('Before edit'));
    const comment = await client.publish(input('Comment before', { parent: { block: post, root: post } }));
    await client.edit({ credentials, block: post, content: 'After edit (v2)' });
    await client.edit({ credentials, block: comment, content: 'Comment after' });
    await client.delete({ credentials, block: comment });
    await client.delete({ credentials, block: post });
    await client.delete({ credentials, block: post });

    expect(sim.records().map(({ kind, id, parentId, text }) => ({ kind, id, parentId, text }))).toEqual([
      { kind: 'post', id: post.remoteId, parentId: null, text: 'Before edit' },
      { kind: 'comment', id: comment.remoteId, parentId: post.remoteId, text: 'Comment before' },
      { kind: 'edit', id: post.remoteId, parentId: null, text: 'After edit (v2)' },
      { kind: 'edit', id: comment.remoteId, parentId: post.remoteId, text: 'Comment after' },
      { kind: 'delete', id: comment.remoteId, parentId: post.remoteId, text: null },
      { kind: 'delete', id: post.remoteId, parentId: null, text: null },
    ]);
    // Editing what is gone is LinkedIn's 404: permanent.
    const gone = await failureOf(client.edit({ credentials, block: post, content: 'Too late' }));
    expect(gone).toMatchObject({ kind: 'permanent', details: { status: 404 } });
  });

  it('linkedin_page posts as the organization', async () => {
    const page = createLinkedInClient('linkedin_page', { baseUrl: sim.url, timeoutMs: 300 });
    expect(page.platform).toBe('linkedin_page');
    const pageCredentials = { accessToken: 'li-token-page', remoteAccountId: '2414183' };
    const post = await page.publish(input('From the page', { credentials: pageCredentials }));
    await page.publish(
      input('Page comment', { credentials: pageCredentials, parent: { block: post, root: post } }),
    );
    expect(sim.records().map((record) => record.account)).toEqual([
      'urn:li:organization:2414183',
      'urn:li:organization:2414183',
    ]);
  });

  it('maps each sim token to the right NetworkError kind', async () => {
    const fail = await failureOf(client.publish(input('Launch sim:fail')));
    expect(fail).toMatchObject({
      kind: 'permanent',
      message: 'ERROR :: /commentary :: content was rejected (sim:fail)',
    });
    expect(fail.details).toEqual({ status: 422 });

    const flaky = await failureOf(client.publish(input('Launch sim:flaky')));
    expect(flaky).toMatchObject({
      kind: 'transient',
      message: 'Service Unavailable',
      // LinkedIn may have created the post before failing: the outcome is unknown.
      details: { status: 503, outcomeUnknown: true },
    });
    await expect(client.publish(input('Launch sim:flaky'))).resolves.toBeDefined();

    const reconnect = await failureOf(client.publish(input('Launch sim:reconnect')));
    expect(reconnect).toMatchObject({
      kind: 'reconnect',
      message: 'The token used in the request has expired',
    });

    // Comments go through the same tokens.
    const post = sim.records()[0];
    const parent = {
      block: { remoteId: post?.id as string, remoteUrl: '', meta: {} },
      root: { remoteId: post?.id as string, remoteUrl: '', meta: {} },
    };
    const commentFail = await failureOf(client.publish(input('Comment sim:fail', { parent })));
    expect(commentFail.kind).toBe('permanent');
    expect(sim.records().map((record) => record.text)).toEqual(['Launch sim:flaky']);
  });

  it('sim:fail-once fails the first send and accepts the second', async () => {
    const first = await failureOf(client.publish(input('Once sim:fail-once')));
    expect(first.kind).toBe('permanent');
    const block = await client.publish(input('Once sim:fail-once'));
    expect(sim.records()).toEqual([expect.objectContaining({ kind: 'post', id: block.remoteId })]);
  });

  it('sim:timeout: a member post is not listable, so lookup finds nothing until a resend names it as DUPLICATE_POST; then it is adopted', async () => {
    const block = input('Slow sim:timeout');
    const error = await failureOf(client.publish(block));
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBe(true);
    expect(sim.records()).toEqual([expect.objectContaining({ kind: 'post', text: 'Slow sim:timeout' })]);
    const stored = sim.records()[0]?.id as string;
    const since = new Date(Date.now() - 60_000);
    const lookup = {
      credentials,
      idempotencyKey: block.idempotencyKey,
      content: block.content,
      parent: null,
      since,
    };
    expect(await client.lookup(lookup)).toBeNull();
    // The resend is refused as LinkedIn does: DUPLICATE_POST inside errorDetails.inputErrors[], naming the post.
    const raw = await rawPost(validPost('Slow sim:timeout'));
    expect(raw.status).toBe(422);
    expect(await raw.json()).toMatchObject({
      status: 422,
      errorDetails: {
        inputErrors: [{ code: 'DUPLICATE_POST', description: `Content is a duplicate of ${stored}` }],
      },
    });
    const again = await failureOf(client.publish(block));
    expect(again).toMatchObject({ kind: 'permanent', details: { status: 422, duplicate: true } });
    expect(again.message).toContain(stored);
    // The engine looks up after a duplicate following a lost answer: the named post is adopted.
    expect(await client.lookup(lookup)).toEqual({
      remoteId: stored,
      remoteUrl: `https://www.linkedin.com/feed/update/${stored}/`,
      meta: { urn: stored },
    });
    expect(sim.records()).toHaveLength(1);
  });

  it('a duplicate of an older post (made before the first send) is not adopted', async () => {
    const older = await client.publish(input('Same words'));
    const block = input('Same words');
    const refused = await failureOf(client.publish(block));
    expect(refused.details.duplicate).toBe(true);
    const error = await failureOf(
      client.lookup({
        credentials,
        idempotencyKey: block.idempotencyKey,
        content: block.content,
        parent: null,
        since: new Date(Date.now() + 60_000),
      }),
    );
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain(older.remoteId);
  });

  it('looks a lost comment up among the post’s comments, and a page post through the author finder', async () => {
    const post = await client.publish(input('Parent post'));
    const parent = { block: post, root: post };
    const comment = input('Lost comment sim:timeout', { parent });
    expect((await failureOf(client.publish(comment))).details.outcomeUnknown).toBe(true);
    const since = new Date(Date.now() - 60_000);
    const found = await client.lookup({
      credentials,
      idempotencyKey: comment.idempotencyKey,
      content: comment.content,
      parent,
      since,
    });
    expect(found?.remoteId).toBe(sim.records()[1]?.id);
    expect(found?.meta.postUrn).toBe(post.remoteId);
    const missing = await client.lookup({
      credentials,
      idempotencyKey: 'k',
      content: 'Never sent',
      parent,
      since,
    });
    expect(missing).toBeNull();

    const page = createLinkedInClient('linkedin_page', { baseUrl: sim.url, timeoutMs: 300 });
    const pageCredentials = { accessToken: 'li-token-page', remoteAccountId: '2414183' };
    const pageBlock = blockInput(pageCredentials)('Page news (lost) sim:timeout');
    expect((await failureOf(page.publish(pageBlock))).details.outcomeUnknown).toBe(true);
    const pageFound = await page.lookup({
      credentials: pageCredentials,
      idempotencyKey: pageBlock.idempotencyKey,
      content: pageBlock.content,
      parent: null,
      since,
    });
    expect(pageFound?.remoteId).toBe(sim.records().at(-1)?.id);
    expect(
      await page.lookup({
        credentials: pageCredentials,
        idempotencyKey: 'x',
        content: 'Other',
        parent: null,
        since,
      }),
    ).toBeNull();
  });

  it('edits and deletes a comment through the stored post URN (the activity in the comment URN is refused)', async () => {
    const post = await client.publish(input('Post for comments'));
    const comment = await client.publish(input('Comment', { parent: { block: post, root: post } }));
    const activity = /^urn:li:comment:\((urn:li:activity:\d+),/.exec(comment.remoteId)?.[1] as string;
    const viaActivity = await fetch(
      `${sim.url}/rest/socialActions/${encodeURIComponent(activity)}/comments/${comment.meta.commentId}?actor=${encodeURIComponent(AUTHOR)}`,
      {
        method: 'DELETE',
        headers: {
          authorization: `Bearer ${credentials.accessToken}`,
          'linkedin-version': DEFAULT_LINKEDIN_VERSION,
          'x-restli-protocol-version': '2.0.0',
        },
      },
    );
    expect(viaActivity.status).toBe(404);
    await client.edit({ credentials, block: comment, content: 'Comment, edited' });
    await client.delete({ credentials, block: comment });
    expect(sim.records().map((r) => r.kind)).toEqual(['post', 'comment', 'edit', 'delete']);
  });

  it('answers 429 without Retry-After (a short throttle or the daily limit): transient, rateLimited, no reset announced, midnight UTC the latest', async () => {
    sim.setRateLimited(120);
    const raw = await rawPost(validPost('x'));
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBeNull();
    expect(await raw.json()).toEqual({
      status: 429,
      serviceErrorCode: 101,
      code: 'TOO_MANY_REQUESTS',
      message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
    });
    const error = await failureOf(client.publish(input('Rate limited')));
    expect(error).toMatchObject({ kind: 'transient', details: { status: 429, rateLimited: true } });
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    // The answer alone cannot tell a throttle of seconds from the spent daily limit: no reset is
    // claimed, and the daily reset bounds the engine's growing wait.
    expect(error.details.retryAfterSeconds).toBeUndefined();
    expect(
      Math.abs((error.details.resetBySeconds as number) - (midnight - now.getTime()) / 1000),
    ).toBeLessThan(120);
    sim.setRateLimited(0);
    await expect(client.publish(input('Rate limited'))).resolves.toBeDefined();
  });

  it('a revoked or expired token means reconnect, with LinkedIn’s 401 bodies', async () => {
    const cases = [
      {
        token: 'revoked-a',
        code: 'REVOKED_ACCESS_TOKEN',
        message: 'The token used in the request has been revoked by the user',
      },
      {
        token: 'expired-a',
        code: 'EXPIRED_ACCESS_TOKEN',
        message: 'The token used in the request has expired',
      },
    ];
    for (const { token, code, message } of cases) {
      const error = await failureOf(
        client.publish(input('Hello', { credentials: { accessToken: token, remoteAccountId: 'AbC123xyz' } })),
      );
      expect(error).toMatchObject({ kind: 'reconnect', message, details: { status: 401 } });
      const raw = await rawPost(validPost('Hello'), {}, token);
      expect(raw.status).toBe(401);
      expect(await raw.json()).toEqual({ status: 401, serviceErrorCode: expect.any(Number), code, message });
    }
    expect(sim.records()).toEqual([]);
  });

  it('requires the versioned-API headers, like LinkedIn: 426 for a missing or sunset version', async () => {
    const noVersion = await rawPost(validPost('No version'), { 'linkedin-version': '' });
    expect(noVersion.status).toBe(426);
    expect(await noVersion.json()).toMatchObject({ status: 426, code: 'VERSION_MISSING' });
    const sunset = await rawPost(validPost('Old version'), { 'linkedin-version': '202511' });
    expect(sunset.status).toBe(426);
    expect(await sunset.json()).toMatchObject({
      status: 426,
      code: 'NONEXISTENT_VERSION',
      message: 'Requested version 202511 is not active',
    });
    const accepted = await rawPost(validPost('Versioned'));
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get('x-restli-id')).toMatch(/^urn:li:share:\d+$/);
    const badVisibility = await rawPost({ ...validPost('Bad'), visibility: 'FRIENDS' });
    expect(badVisibility.status).toBe(422);

    const old = createLinkedInClient('linkedin', { baseUrl: sim.url, timeoutMs: 300, apiVersion: '202511' });
    const error = await failureOf(old.publish(input('Old client')));
    expect(error).toMatchObject({ kind: 'permanent', details: { status: 426 } });
    expect(error.message).toContain('API version 202511');
    expect(error.message).toContain('LINKEDIN_API_VERSION');
    expect(sim.records().map((r) => r.text)).toEqual(['Versioned']);
  });

  it('takes the version from LINKEDIN_API_VERSION, defaulting to a live one, and refuses a malformed one', () => {
    expect(linkedInVersionOf(undefined, {})).toBe(DEFAULT_LINKEDIN_VERSION);
    expect(linkedInVersionOf(undefined, { LINKEDIN_API_VERSION: '202609' })).toBe('202609');
    expect(linkedInVersionOf('202608', { LINKEDIN_API_VERSION: '202609' })).toBe('202608');
    expect(() => linkedInVersionOf(undefined, { LINKEDIN_API_VERSION: 'latest' })).toThrow(
      /LINKEDIN_API_VERSION/,
    );
    expect(linkedInVersionActive(DEFAULT_LINKEDIN_VERSION, new Date('2026-11-25T00:00:00Z'))).toBe(true);
    expect(linkedInVersionActive('202511', new Date('2026-11-25T00:00:00Z'))).toBe(false);
    expect(linkedInVersionActive('202701', new Date('2026-11-25T00:00:00Z'))).toBe(false);
  });

  it('refuses a file type LinkedIn does not take, before anything is sent', async () => {
    const media = [
      {
        mediaId: 'med_1',
        mimeType: 'image/webp',
        size: 10,
        altText: null,
        url: 'https://example.test/a.webp',
      },
    ];
    const error = await failureOf(client.publish(input('With a picture', { media })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/image\/webp/);
    expect(sim.records()).toEqual([]);
  });
});
