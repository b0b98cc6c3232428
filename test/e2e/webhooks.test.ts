import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/aws/dynamo/keys.ts';
import { createApiKey } from '../../functions/core/admin/admin.ts';
import { verifyWebhook } from '../../functions/shared/verify-webhook.ts';
import { freshWorkspace } from '../support/accounts.ts';
import type { Receiver } from '../support/https-receiver.ts';
import { waitForPost } from '../support/publishing.ts';
import { startReceiverRuntime } from '../support/receiver-runtime.ts';
import type { TestRuntime } from '../support/runtime.ts';
import { waitFor } from '../support/wait.ts';

const BASE = 0.2;
let rt: TestRuntime;
let receiver: Receiver;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ rt, receiver, stop } = await startReceiverRuntime({
    env: {
      NETWORK_TIMEOUT_MS: '500',
      PUBLISH_RETRY_BASE_SECONDS: '0.2',
      WEBHOOK_RETRY_BASE_SECONDS: String(BASE),
    },
  }));
});
afterAll(async () => {
  await stop?.();
});

const ALL_EVENTS = ['post.published', 'post.failed', 'post.partially_failed', 'channel.needs_reconnect'];

const createEndpoint = async (key: string, path: string, events = ALL_EVENTS) => {
  const res = await rt.api('/webhooks', { method: 'POST', key, body: { url: receiver.url(path), events } });
  expect(res.status, res.text).toBe(201);
  return res.body as { secret: string; endpoint: { id: string } & Record<string, unknown> };
};

const publish = async (key: string, channels: string[], content: string) => {
  const res = await rt.api('/posts', {
    method: 'POST',
    key,
    body: { intent: 'now', channels: channels.map((channelId) => ({ channelId, blocks: [{ content }] })) },
  });
  expect(res.status, res.text).toBe(201);
  return waitForPost(rt, res.body.id, key);
};

const atPath = (path: string) => receiver.received.filter((r) => r.path === path);

const deliveries = async (key: string, id: string) => {
  const res = await rt.api(`/webhooks/${id}/deliveries?limit=100`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.data as any[];
};

describe('webhook endpoints API', () => {
  it('creates, lists, reads, updates and deletes endpoints; the secret is shown only on create', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const created = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: receiver.url('/crud'), description: 'Ops', events: ['post.published', 'post.failed'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    const endpoint = created.body.endpoint;
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{22}$/),
      url: receiver.url('/crud'),
      description: 'Ops',
      events: ['post.published', 'post.failed'],
      enabled: true,
      status: 'enabled',
      disabledReason: null,
      disabledAt: null,
      consecutiveFailures: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: endpoint.createdAt,
    });

    const list = await rt.api('/webhooks', { key: ws.key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [endpoint] });
    expect(list.text).not.toContain(created.body.secret);
    const one = await rt.api(`/webhooks/${endpoint.id}`, { key: ws.key });
    expect(one.body).toEqual(endpoint);

    const put = await rt.api(`/webhooks/${endpoint.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { events: ['channel.needs_reconnect'], enabled: false },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      url: receiver.url('/crud'),
      description: 'Ops',
      events: ['channel.needs_reconnect'],
      enabled: false,
      status: 'disabled',
      disabledReason: 'request',
    });
    const cleared = await rt.api(`/webhooks/${endpoint.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { description: null },
    });
    expect(cleared.body).toMatchObject({
      description: null,
      enabled: false,
      events: ['channel.needs_reconnect'],
    });
    // Disabled endpoints are listed too.
    expect((await rt.api('/webhooks', { key: ws.key })).body.data).toHaveLength(1);

    const other = await freshWorkspace(rt, ['x']);
    expect((await rt.api(`/webhooks/${endpoint.id}`, { key: other.key })).status).toBe(404);
    expect((await rt.api(`/webhooks/${endpoint.id}`, { method: 'DELETE', key: other.key })).status).toBe(404);

    const deleted = await rt.api(`/webhooks/${endpoint.id}`, { method: 'DELETE', key: ws.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: endpoint.id, deleted: true });
    expect((await rt.api(`/webhooks/${endpoint.id}`, { key: ws.key })).status).toBe(404);
    expect((await rt.api('/webhooks', { key: ws.key })).body).toEqual({ data: [] });
  });

  it('validates input with the field at fault', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const post = (body: unknown) => rt.api('/webhooks', { method: 'POST', key: ws.key, body });
    const plain = await post({ url: 'http://example.com/hooks', events: ['post.published'] });
    expect(plain.status).toBe(400);
    expect(plain.body.error).toMatchObject({ code: 'validation_failed', field: 'url' });
    const unknown = await post({ url: receiver.url(), events: ['post.published', 'post.deleted'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'validation_failed', field: 'events[1]' });
    expect((await post({ url: receiver.url(), events: [] })).body.error.field).toBe('events');
    expect((await post({ events: ['post.published'] })).body.error.field).toBe('url');
    expect((await post({ url: receiver.url(), events: ['post.failed'], secret: 'x' })).body.error.field).toBe(
      'secret',
    );
    const creds = await post({ url: `https://user:pw@127.0.0.1:${receiver.port}/`, events: ['post.failed'] });
    expect(creds.body.error).toMatchObject({ code: 'validation_failed', field: 'url' });
    const unresolvable = await post({ url: 'https://no-such-host.invalid/hooks', events: ['post.failed'] });
    expect(unresolvable.status).toBe(422);
    expect(unresolvable.body.error).toMatchObject({ code: 'url_not_allowed', field: 'url' });

    const { endpoint } = await createEndpoint(ws.key, '/validate');
    const empty = await rt.api(`/webhooks/${endpoint.id}`, { method: 'PUT', key: ws.key, body: {} });
    expect(empty.status).toBe(400);
    const badPut = await rt.api(`/webhooks/${endpoint.id}`, {
      method: 'PUT',
      key: ws.key,
      body: { url: 'ftp://example.com' },
    });
    expect(badPut.body.error).toMatchObject({ code: 'validation_failed', field: 'url' });
    const badLimit = await rt.api(`/webhooks/${endpoint.id}/deliveries?limit=101`, { key: ws.key });
    expect(badLimit.body.error).toMatchObject({ code: 'validation_failed', field: 'limit' });
    const badCursor = await rt.api(`/webhooks/${endpoint.id}/deliveries?cursor=nope`, { key: ws.key });
    expect(badCursor.body.error).toMatchObject({ code: 'invalid_cursor', field: 'cursor' });
    expect((await rt.api('/webhooks/wh_doesnotexist', { key: ws.key })).status).toBe(404);
  });

  it('replays POST /webhooks for the same Idempotency-Key and refuses it with another body', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const headers = { 'idempotency-key': `idem-${Date.now()}` };
    const body = { url: receiver.url('/idem'), events: ['post.published'] };
    const first = await rt.api('/webhooks', { method: 'POST', key: ws.key, body, headers });
    const again = await rt.api('/webhooks', { method: 'POST', key: ws.key, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The stored answer holds the secret sealed, never in the clear.
    const { table } = rt.container.deps;
    const records = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.idempotencyPartition },
      }),
    );
    const stored = JSON.stringify(records.Items);
    expect(stored).toContain(first.body.endpoint.id);
    expect(stored).not.toContain(first.body.secret);
    const other = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { ...body, events: ['post.failed'] },
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect((await rt.api('/webhooks', { key: ws.key })).body.data).toHaveLength(1);
  });

  it('lets test keys read endpoints but not create or change them', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const { endpoint } = await createEndpoint(ws.key, '/modes');
    const test = await createApiKey(rt.container.deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      mode: 'test',
      permission: 'write',
      name: 'sandbox',
    });
    expect((await rt.api('/webhooks', { key: test.secret })).body.data).toHaveLength(1);
    const refused = await rt.api('/webhooks', {
      method: 'POST',
      key: test.secret,
      body: { url: receiver.url(), events: ['post.published'] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    const roll = await rt.api(`/webhooks/${endpoint.id}/roll-secret`, { method: 'POST', key: test.secret });
    expect(roll.status).toBe(403);
  });
});

describe('webhook delivery', () => {
  it('sends one signed event per channel, with the spec 6 body and headers', async () => {
    const ws = await freshWorkspace(rt, ['x', 'bluesky', 'linkedin']);
    const { secret, endpoint } = await createEndpoint(ws.key, '/three');
    const post = await publish(
      ws.key,
      [ws.channels.x, ws.channels.bluesky, ws.channels.linkedin],
      'three ways',
    );
    expect(post.status).toBe('published');
    await receiver.waitFor(() => atPath('/three').length >= 3);
    // Each delivery logged as succeeded: nothing is left to send, so a fourth would be a duplicate.
    await waitFor(
      async () =>
        (await deliveries(ws.key, endpoint.id)).filter((e) => e.outcome === 'succeeded').length >= 3,
      { what: 'three deliveries logged' },
    );
    const got = atPath('/three');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.body.data.channelId))).toEqual(
      new Set([ws.channels.x, ws.channels.bluesky, ws.channels.linkedin]),
    );
    expect(new Set(got.map((r) => r.body.id)).size).toBe(3);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-herald-event-id']).toBe(r.body.id);
      expect(r.headers['x-herald-event-type']).toBe('post.published');
      expect(r.headers['x-herald-attempt']).toBe('1');
      expect(r.headers['x-herald-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyWebhook(r.raw, r.headers['x-herald-signature'] as string, [secret])).toBe(true);
      expect(verifyWebhook(r.raw, r.headers['x-herald-signature'] as string, ['whsec_wrong'])).toBe(false);
      expect(Object.keys(r.body)).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(r.body.id).toMatch(/^evt_/);
      expect(r.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(r.body.data).toMatchObject({ blocksPublished: 1, blocksTotal: 1, error: null });
      expect(r.body.data.platform).toBe(
        post.channels.find((c: any) => c.channelId === r.body.data.channelId).platform,
      );
    }
    // The event of the last channel to finish carries the post as GET /posts/{id} shows it.
    const last = got.find((r) => r.body.data.post.channels.every((c: any) => c.status === 'published'));
    expect(last!.body.data.post).toEqual(post);

    const log = await deliveries(ws.key, endpoint.id);
    expect(log).toHaveLength(3);
    for (const entry of log) {
      expect(entry).toMatchObject({
        eventType: 'post.published',
        attempt: 1,
        outcome: 'succeeded',
        responseStatus: 200,
        errorCode: null,
        error: null,
        nextAttemptAt: null,
        deliveryId: expect.stringMatching(/^dlv_/),
      });
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(log.map((e) => e.eventId))).toEqual(new Set(got.map((r) => r.body.id)));
  });

  it('signs with the new secret right after roll-secret; the old one no longer verifies', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const { secret: old, endpoint } = await createEndpoint(ws.key, '/roll');
    await publish(ws.key, [ws.channels.x], 'before roll');
    await receiver.waitFor(() => atPath('/roll').length >= 1);
    const rolled = await rt.api(`/webhooks/${endpoint.id}/roll-secret`, { method: 'POST', key: ws.key });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(old);
    expect(rolled.body.endpoint.id).toBe(endpoint.id);
    await publish(ws.key, [ws.channels.x], 'after roll');
    await receiver.waitFor(() => atPath('/roll').length >= 2);
    const [before, after] = atPath('/roll');
    expect(verifyWebhook(before?.raw ?? '', before?.headers['x-herald-signature'] as string, [old])).toBe(
      true,
    );
    const header = after?.headers['x-herald-signature'] as string;
    expect(verifyWebhook(after?.raw ?? '', header, [rolled.body.secret])).toBe(true);
    expect(verifyWebhook(after?.raw ?? '', header, [old])).toBe(false);
    // During the roll-over window a receiver accepts either.
    expect(verifyWebhook(after?.raw ?? '', header, [old, rolled.body.secret])).toBe(true);
  });

  it('retries a failing receiver on the schedule with the same event id: attempts 1, 2, 3', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const { endpoint } = await createEndpoint(ws.key, '/flaky');
    let calls = 0;
    receiver.setAnswer((r) => (r.path === '/flaky' && ++calls <= 2 ? { status: 500 } : { status: 200 }));
    try {
      await publish(ws.key, [ws.channels.x], 'flaky receiver');
      await receiver.waitFor(() => atPath('/flaky').length >= 3);
    } finally {
      receiver.setAnswer(() => ({ status: 200 }));
    }
    // Attempt 3 logged as succeeded: no attempt is left to come.
    await waitFor(
      async () =>
        (await deliveries(ws.key, endpoint.id)).some((e) => e.attempt === 3 && e.outcome === 'succeeded'),
      { what: 'attempt 3 logged' },
    );
    const got = atPath('/flaky');
    expect(got.map((r) => r.headers['x-herald-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(got.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(got.map((r) => r.raw)).size).toBe(1);
    const gaps = [(got[1]?.at ?? 0) - (got[0]?.at ?? 0), (got[2]?.at ?? 0) - (got[1]?.at ?? 0)];
    // Waits of 1x and 2x the base, plus the queue's and the worker's own latency.
    expect(gaps[0]).toBeGreaterThanOrEqual(BASE * 1000 - 5);
    expect(gaps[1]).toBeGreaterThanOrEqual(2 * BASE * 1000 - 5);

    const log = (await deliveries(ws.key, endpoint.id)).reverse();
    // The planned spacing (not the machine's speed): each failed attempt schedules the next one
    // 1x, then 2x the base after it ended (the log's times also hold the attempt's own set-up).
    log.slice(0, 2).forEach((entry: any, i: number) => {
      const planned = Date.parse(entry.nextAttemptAt) - Date.parse(entry.attemptedAt) - entry.durationMs;
      expect(planned).toBeGreaterThanOrEqual(2 ** i * BASE * 1000 - 5);
      // Below the next doubling: the wait of this attempt, not of a later one.
      expect(planned).toBeLessThan(2 ** (i + 1) * BASE * 1000);
    });
    expect(log.map((e) => [e.attempt, e.outcome, e.responseStatus, e.errorCode])).toEqual([
      [1, 'retrying', 500, 'http_status'],
      [2, 'retrying', 500, 'http_status'],
      [3, 'succeeded', 200, null],
    ]);
    expect(Date.parse(log[1].attemptedAt) - Date.parse(log[0].nextAttemptAt)).toBeGreaterThanOrEqual(-5);
    // Paginated: one per page, newest first, until nextCursor is null.
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await rt.api(
        `/webhooks/${endpoint.id}/deliveries?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        { key: ws.key },
      );
      seen.push(...page.body.data.map((e: any) => e.attempt));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([3, 2, 1]);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const { endpoint } = await createEndpoint(ws.key, '/redirect');
    receiver.setAnswer((r) =>
      r.path === '/redirect'
        ? { status: 302, headers: { location: receiver.url('/redirected') } }
        : { status: 200 },
    );
    try {
      await publish(ws.key, [ws.channels.x], 'redirecting receiver');
      await receiver.waitFor(() => atPath('/redirect').length >= 2);
    } finally {
      receiver.setAnswer(() => ({ status: 200 }));
    }
    expect(atPath('/redirected')).toHaveLength(0);
    const log = await deliveries(ws.key, endpoint.id);
    expect(log.at(-1)).toMatchObject({
      attempt: 1,
      outcome: 'retrying',
      responseStatus: 302,
      errorCode: 'redirect',
    });
    await rt.api(`/webhooks/${endpoint.id}`, { method: 'DELETE', key: ws.key });
  });

  it('delivers nothing for posts made with a test key', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const { endpoint } = await createEndpoint(ws.key, '/sandbox');
    const test = await createApiKey(rt.container.deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      mode: 'test',
      permission: 'write',
      name: 'sandbox',
    });
    const sandboxed = await publish(test.secret, [ws.channels.x], 'sandbox post');
    expect(sandboxed.status).toBe('published');
    // A live post afterwards: once its event arrives, the sandbox one would have too.
    const live = await publish(ws.key, [ws.channels.x], 'live post');
    await receiver.waitFor(() => atPath('/sandbox').length >= 1);
    await waitFor(async () => (await deliveries(ws.key, endpoint.id)).length >= 1, {
      what: 'the delivery log',
    });
    expect(atPath('/sandbox').map((r) => r.body.data.post.id)).toEqual([live.id]);
    expect((await deliveries(ws.key, endpoint.id)).map((e) => e.attempt)).toEqual([1]);
  });

  it('stops retrying when the endpoint is deleted, and its history goes with it', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const { endpoint } = await createEndpoint(ws.key, '/deleted');
    // A witness on the same schedule, kept: once its fourth attempt arrives, the deleted endpoint's
    // attempts 3 and 4 were due too, so their absence is not just "not yet".
    await createEndpoint(ws.key, '/witness');
    receiver.setAnswer((r) =>
      r.path === '/deleted' || r.path === '/witness' ? { status: 503 } : { status: 200 },
    );
    try {
      await publish(ws.key, [ws.channels.x], 'to a deleted endpoint');
      await receiver.waitFor(() => atPath('/deleted').length >= 2);
      expect((await rt.api(`/webhooks/${endpoint.id}`, { method: 'DELETE', key: ws.key })).status).toBe(200);
      const count = atPath('/deleted').length;
      // Attempts 3 and 4 were due 0.4 s and 1.2 s later (one may have been on its way already).
      await receiver.waitFor(() => atPath('/witness').length >= 4, 15_000, "the witness's fourth attempt");
      expect(atPath('/deleted').length).toBeLessThanOrEqual(count + 1);
    } finally {
      receiver.setAnswer(() => ({ status: 200 }));
    }
    expect((await rt.api(`/webhooks/${endpoint.id}/deliveries`, { key: ws.key })).status).toBe(404);
  });
});
