import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../functions/platforms/simulator/framework.ts';
import { XClient } from '../../functions/platforms/x/client.ts';
import { startXSimulator, xUserForToken } from '../../functions/platforms/x/simulator.ts';
import type { RemoteBlock } from '../../functions/ports/network-client.ts';
import { blockInput, failureOf } from '../support/network.ts';

const TOKEN = 'x-token-alice';
const credentials = { accessToken: TOKEN, remoteAccountId: 'alice' };

let sim: Simulator;
let client: XClient;

const input = blockInput(credentials);

const getJson = async (path: string, token = TOKEN) => {
  const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
};

beforeAll(async () => {
  // No timeline lag here: the lag has its own test below.
  sim = await startXSimulator({ timelineLagMs: 0 });
  client = new XClient({ baseUrl: sim.url, timeoutMs: 300 });
});
afterAll(async () => {
  await sim?.stop();
});
beforeEach(() => {
  sim.reset();
});

describe('X client against the X simulator', () => {
  it('posts a 3-block thread, each block replying to the previous one', async () => {
    const first = await client.publish(input('Thread 1/3', { options: { replySettings: 'following' } }));
    const second = await client.publish(input('Thread 2/3', { parent: { block: first, root: first } }));
    const third = await client.publish(input('Thread 3/3', { parent: { block: second, root: first } }));

    for (const block of [first, second, third]) {
      expect(block.remoteId).toMatch(/^\d{15,20}$/);
      expect(block.remoteUrl).toBe(`https://x.com/alice/status/${block.remoteId}`);
    }
    const userId = xUserForToken(TOKEN).id;
    const records = sim.records();
    expect(
      records.map(({ kind, id, parentId, rootId, text, account }) => ({
        kind,
        id,
        parentId,
        rootId,
        text,
        account,
      })),
    ).toEqual([
      { kind: 'post', id: first.remoteId, parentId: null, rootId: null, text: 'Thread 1/3', account: userId },
      {
        kind: 'reply',
        id: second.remoteId,
        parentId: first.remoteId,
        rootId: first.remoteId,
        text: 'Thread 2/3',
        account: userId,
      },
      {
        kind: 'reply',
        id: third.remoteId,
        parentId: second.remoteId,
        rootId: first.remoteId,
        text: 'Thread 3/3',
        account: userId,
      },
    ]);
    expect(Number.isNaN(Date.parse(records[0]?.at ?? ''))).toBe(false);

    // The same log over HTTP, as the local runtime and other tools read it.
    const overHttp = await fetch(`${sim.url}/_sim/records`);
    expect(((await overHttp.json()) as { data: unknown }).data).toEqual(records);

    // reply_settings went with the first block only.
    const head = await getJson(`/2/tweets/${first.remoteId}?tweet.fields=reply_settings,conversation_id`);
    expect(head.body.data).toMatchObject({ reply_settings: 'following', conversation_id: first.remoteId });
    const tail = await getJson(`/2/tweets/${third.remoteId}?tweet.fields=reply_settings,conversation_id`);
    expect(tail.body.data).toMatchObject({ reply_settings: 'everyone', conversation_id: first.remoteId });
  });

  it('refuses edits without calling X', async () => {
    const block = await client.publish(input('Cannot be edited'));
    const error = await failureOf(client.edit({ credentials, block, content: 'Edited' }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('X does not allow edits');
    expect(sim.records().map((record) => record.kind)).toEqual(['post']);
  });

  it('deletes a tweet, and deleting it again is not an error', async () => {
    const block = await client.publish(input('Short-lived'));
    await client.delete({ credentials, block });
    await client.delete({ credentials, block });
    expect(sim.records().map((record) => [record.kind, record.id])).toEqual([
      ['post', block.remoteId],
      ['delete', block.remoteId],
    ]);
    const gone = await getJson(`/2/tweets/${block.remoteId}`);
    expect(gone.body.errors).toEqual([expect.objectContaining({ title: 'Not Found Error' })]);
  });

  it('maps each sim token to the right NetworkError kind', async () => {
    const fail = await failureOf(client.publish(input('Launch sim:fail')));
    expect(fail).toMatchObject({
      kind: 'permanent',
      message: 'You are not permitted to perform this action.',
    });
    expect(fail.details).toEqual({ status: 403 });

    const flaky = await failureOf(client.publish(input('Launch sim:flaky')));
    expect(flaky.kind).toBe('transient');
    // X may have stored the tweet before answering 503: the engine looks it up before resending.
    expect(flaky.details).toEqual({ status: 503, outcomeUnknown: true });
    await expect(client.publish(input('Launch sim:flaky'))).resolves.toMatchObject({
      remoteId: expect.any(String),
    });

    const reconnect = await failureOf(client.publish(input('Launch sim:reconnect')));
    expect(reconnect).toMatchObject({ kind: 'reconnect', message: 'Unauthorized' });
    expect(reconnect.details.status).toBe(401);

    // Nothing was stored for the refusals; the flaky one went through on its second send.
    expect(sim.records().map((record) => record.text)).toEqual(['Launch sim:flaky']);
  });

  it('sim:fail-once fails the first send and accepts the second', async () => {
    const first = await failureOf(client.publish(input('Once sim:fail-once')));
    expect(first.kind).toBe('permanent');
    const block = await client.publish(input('Once sim:fail-once'));
    expect(sim.records()).toEqual([expect.objectContaining({ kind: 'post', id: block.remoteId })]);
  });

  it('sim:timeout: the tweet is stored, the client gives up with outcomeUnknown, and lookup finds it', async () => {
    const since = new Date();
    const started = Date.now();
    const error = await failureOf(client.publish(input('Slow one & <more> sim:timeout')));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBe(true);

    const stored = sim.records();
    expect(stored).toEqual([
      expect.objectContaining({ kind: 'post', text: 'Slow one & <more> sim:timeout' }),
    ]);
    const found = await client.lookup({
      credentials,
      idempotencyKey: 'ignored-on-x',
      content: 'Slow one & <more> sim:timeout',
      parent: null,
      since,
    });
    expect(found).toEqual({
      remoteId: stored[0]?.id,
      remoteUrl: `https://x.com/alice/status/${stored[0]?.id}`,
      meta: {},
    });
    // X hands the text back HTML-escaped; lookup matched it all the same.
    const timeline = await getJson(`/2/users/${xUserForToken(TOKEN).id}/tweets?max_results=5`);
    expect(timeline.body.data).toEqual([
      expect.objectContaining({ text: 'Slow one &amp; &lt;more&gt; sim:timeout' }),
    ]);
  });

  it('closes a held sim:timeout socket after holdMs, which the client sees as an unknown outcome', async () => {
    const short = await startXSimulator({ holdMs: 150 });
    try {
      const patient = new XClient({ baseUrl: short.url, timeoutMs: 5_000 });
      const started = Date.now();
      const error = await failureOf(patient.publish(input('Held sim:timeout')));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(error.kind).toBe('transient');
      expect(error.details.outcomeUnknown).toBe(true);
      expect(short.records()).toHaveLength(1);
    } finally {
      await short.stop();
    }
  });

  it('lookup matches the reply parent and answers null for what X does not have', async () => {
    const since = new Date();
    const root = await client.publish(input('Root for lookup'));
    const error = await failureOf(
      client.publish(input('Reply lost sim:timeout', { parent: { block: root, root } })),
    );
    expect(error.details.outcomeUnknown).toBe(true);
    const lookup = (content: string, parent: { block: RemoteBlock; root: RemoteBlock } | null) =>
      client.lookup({ credentials, idempotencyKey: 'k', content, parent, since });

    const reply = await lookup('Reply lost sim:timeout', { block: root, root });
    expect(reply?.remoteId).toBe(sim.records()[1]?.id);
    expect(await lookup('Reply lost sim:timeout', null)).toBeNull();
    expect(await lookup('Never sent', null)).toBeNull();
    expect((await lookup('Root for lookup', null))?.remoteId).toBe(root.remoteId);
    // Another account's token sees its own (empty) timeline.
    const other = new XClient({ baseUrl: sim.url, timeoutMs: 300 });
    const otherCredentials = { accessToken: 'x-token-bob', remoteAccountId: 'bob' };
    expect(
      await other.lookup({
        credentials: otherCredentials,
        idempotencyKey: 'k',
        content: 'Root for lookup',
        parent: null,
        since,
      }),
    ).toBeNull();
  });

  it('the timeline lags behind a stored tweet: a lookup right after the lost answer finds nothing yet', async () => {
    const lagging = await startXSimulator({ timelineLagMs: 800 });
    try {
      const lagClient = new XClient({ baseUrl: lagging.url, timeoutMs: 300 });
      const since = new Date();
      const error = await failureOf(lagClient.publish(input('Lagging sim:timeout')));
      expect(error.details.outcomeUnknown).toBe(true);
      const [stored] = lagging.records();
      const lookup = () =>
        lagClient.lookup({
          credentials,
          idempotencyKey: 'k',
          content: 'Lagging sim:timeout',
          parent: null,
          since,
        });
      // Stored, but not in the timeline yet: a null here proves nothing.
      expect(await lookup()).toBeNull();
      // The tweet itself is there (X would refuse it again as a duplicate).
      const again = await failureOf(lagClient.publish(input('Lagging sim:timeout')));
      expect(again.details.duplicate).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect((await lookup())?.remoteId).toBe(stored?.id);
      expect(lagging.records()).toHaveLength(1);
    } finally {
      await lagging.stop();
    }
  });

  it('links come back as t.co links; lookup still matches a bare domain and a link with another case', async () => {
    const since = new Date();
    const content = 'Read example.com/news and https://Docs.Example.org/Guide/ today sim:timeout';
    const error = await failureOf(client.publish(input(content)));
    expect(error.details.outcomeUnknown).toBe(true);
    const [stored] = sim.records();
    expect(stored?.text).toBe(content);

    // X shows every link, a bare domain too, as t.co, expanded in entities.urls.
    const timeline = await getJson(
      `/2/users/${xUserForToken(TOKEN).id}/tweets?max_results=5&tweet.fields=entities`,
    );
    const [tweet] = timeline.body.data as { text: string; entities: { urls: unknown[] } }[];
    expect(tweet?.text).toMatch(
      /^Read https:\/\/t\.co\/\w{10} and https:\/\/t\.co\/\w{10} today sim:timeout$/,
    );
    expect(tweet?.entities.urls).toEqual([
      expect.objectContaining({ expanded_url: 'http://example.com/news', display_url: 'example.com/news' }),
      expect.objectContaining({ expanded_url: 'https://Docs.Example.org/Guide/' }),
    ]);

    const lookup = (text: string) =>
      client.lookup({ credentials, idempotencyKey: 'k', content: text, parent: null, since });
    expect((await lookup(content))?.remoteId).toBe(stored?.id);
    // Another link in the same place is another tweet.
    expect(await lookup(content.replace('example.com/news', 'example.com/sports'))).toBeNull();
  });

  it.each([
    ['sim:reset', undefined],
    ['sim:bad-gateway', 502],
  ])(
    '%s: the tweet is stored, the answer is lost (outcome unknown), and lookup finds it',
    async (token, status) => {
      const since = new Date();
      const content = `Stored then lost ${token}`;
      const error = await failureOf(client.publish(input(content)));
      expect(error.kind).toBe('transient');
      expect(error.details.outcomeUnknown).toBe(true);
      expect(error.details.status).toBe(status);
      const found = await client.lookup({ credentials, idempotencyKey: 'k', content, parent: null, since });
      expect(found?.remoteId).toBe(sim.records()[0]?.id);
      expect(sim.records()).toHaveLength(1);
    },
  );

  it('answers 429 with x-rate-limit-reset while rate limited: transient with retryAfterSeconds', async () => {
    sim.setRateLimited(42);
    const raw = await getJson('/2/users/me');
    expect(raw.status).toBe(429);
    expect(raw.body).toEqual({
      title: 'Too Many Requests',
      detail: 'Too Many Requests',
      type: 'about:blank',
      status: 429,
    });
    const reset = Number(raw.headers.get('x-rate-limit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 40);
    expect(raw.headers.get('x-rate-limit-remaining')).toBe('0');

    const error = await failureOf(client.publish(input('Rate limited')));
    expect(error.kind).toBe('transient');
    expect(error.details.status).toBe(429);
    expect(error.details.retryAfterSeconds).toBeGreaterThanOrEqual(40);
    expect(error.details.retryAfterSeconds).toBeLessThanOrEqual(43);

    sim.setRateLimited(0);
    await expect(client.publish(input('Rate limited'))).resolves.toMatchObject({
      remoteId: expect.any(String),
    });
  });

  it('a revoked or expired token means reconnect, with X’s 401 body', async () => {
    for (const token of ['revoked-123', 'expired-456']) {
      const error = await failureOf(
        client.publish(input('Hello', { credentials: { accessToken: token, remoteAccountId: 'alice' } })),
      );
      expect(error.kind).toBe('reconnect');
      expect(error.details).toEqual({ status: 401, tokenExpired: true });
      const raw = await getJson('/2/users/me', token);
      expect(raw).toMatchObject({
        status: 401,
        body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
      });
    }
    expect(sim.records()).toEqual([]);
  });

  it('refuses duplicate content the way X does', async () => {
    await client.publish(input('Same words'));
    const error = await failureOf(client.publish(input('Same words')));
    expect(error).toMatchObject({
      kind: 'permanent',
      message: 'You are not allowed to create a Tweet with duplicate content.',
      details: { status: 403, duplicate: true },
    });
  });

  it('answers with X’s error bodies', async () => {
    const refused = await fetch(`${sim.url}/2/tweets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'sim:fail' }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      title: 'Forbidden',
      detail: 'You are not permitted to perform this action.',
      type: 'about:blank',
      status: 403,
    });
    const invalid = await getJson(`/2/users/${xUserForToken(TOKEN).id}/tweets?max_results=1`);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      title: 'Invalid Request',
      type: 'https://api.twitter.com/2/problems/invalid-request',
      errors: [{ message: expect.stringContaining('max_results') }],
    });
    const noEdits = await fetch(`${sim.url}/2/tweets/1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(noEdits.status).toBe(404);
  });

  it('refuses media it cannot upload, and sends media_ids from an uploader', async () => {
    const media = [
      { mediaId: 'med_1', mimeType: 'image/png', size: 10, altText: null, url: 'https://example.test/a.png' },
    ];
    const refused = await failureOf(client.publish(input('With a picture', { media })));
    expect(refused.kind).toBe('permanent');
    expect(sim.records()).toEqual([]);

    const uploading = new XClient({
      baseUrl: sim.url,
      timeoutMs: 300,
      uploadMedia: async () => '1234567890',
    });
    const block = await uploading.publish(input('With a picture', { media }));
    const stored = await getJson(`/2/tweets/${block.remoteId}?tweet.fields=attachments`);
    expect(stored.body.data).toMatchObject({ attachments: { media_keys: ['3_1234567890'] } });
  });

  it('a network that cannot be reached is transient with a known outcome', async () => {
    const closed = await startXSimulator();
    const url = closed.url;
    await closed.stop();
    const error = await failureOf(
      new XClient({ baseUrl: url, timeoutMs: 300 }).publish(input('Nobody home')),
    );
    expect(error.kind).toBe('transient');
    expect(error.details.outcomeUnknown).toBeUndefined();
    expect(error.message).toContain('ECONNREFUSED');
  });
});
