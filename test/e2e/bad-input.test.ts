import { randomInt, randomUUID } from 'node:crypto';
import {
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addTag } from '../../functions/core/admin/admin.ts';
import { freshWorkspace } from '../support/accounts.ts';
import { type ApiResponse, REQUEST_ID, startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/** Issue 9, part 5: inputs that used to answer 5xx (or reach a key unchecked) and what they answer now. */
let rt: TestRuntime;

beforeAll(async () => {
  rt = await startTestRuntime();
});
afterAll(async () => {
  await rt?.destroy();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

const expectError = (res: ApiResponse, status: number, code: string) => {
  expect(res.status, res.text).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.requestId).toMatch(REQUEST_ID);
  expect(res.headers.get('x-request-id')).toBe(res.body.error.requestId);
  expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
};

const postCount = async (key: string) => {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page: any = await rt.api(`/posts?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status).toBe(200);
    count += page.body.data.length;
    cursor = page.body.nextCursor;
  } while (cursor);
  return count;
};

const usedPosts = async (key: string) => (await rt.api('/usage', { key })).body.posts.created.used as number;

describe('Idempotency-Key on answers too large for one DynamoDB item', () => {
  const replayTwice = async (key: string, body: unknown) => {
    const idempotencyKey = randomUUID();
    const headers = { 'idempotency-key': idempotencyKey };
    const first = await rt.api('/posts', { method: 'POST', key, body, headers });
    const second = await rt.api('/posts', { method: 'POST', key, body, headers });
    return { first, second };
  };

  it('3 Facebook blocks of 40,000 emoji (480 KB): 201, then the same answer replayed, one post', async () => {
    const ws = await freshWorkspace(rt, ['facebook']);
    const content = '😀'.repeat(40_000);
    const body = {
      intent: 'draft',
      channels: [{ channelId: ws.channels.facebook, blocks: [0, 1, 2].map(() => ({ content })) }],
    };
    const { first, second } = await replayTwice(ws.key, body);
    expect(first.status, first.text.slice(0, 300)).toBe(201);
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(400_000);
    expect(second.status, second.text.slice(0, 300)).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await postCount(ws.key)).toBe(1);
    expect(await usedPosts(ws.key)).toBe(1);
  }, 60_000);

  it('an answer that stays over the limit compressed: 201, a replay answers the same post', async () => {
    const ws = await freshWorkspace(rt, ['facebook']);
    // Random CJK text barely compresses: 3 x 60,000 characters are about 540 KB, over 300 KB gzipped.
    const randomText = () =>
      String.fromCodePoint(...Array.from({ length: 60_000 }, () => 0x4e00 + randomInt(0x5000)));
    const body = {
      intent: 'draft',
      channels: [
        { channelId: ws.channels.facebook, blocks: [0, 1, 2].map(() => ({ content: randomText() })) },
      ],
    };
    const { first, second } = await replayTwice(ws.key, body);
    expect(first.status, first.text.slice(0, 300)).toBe(201);
    expect(second.status, second.text.slice(0, 300)).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await postCount(ws.key)).toBe(1);
    expect(await usedPosts(ws.key)).toBe(1);
  }, 60_000);

  /** Makes the first DynamoDB call on the idempotency partition that `matches` fail, as a throttled table would. */
  const failOnce = (matches: (command: { input: Record<string, any> }) => boolean) => {
    const send = DynamoDBClient.prototype.send;
    const state = { refused: 0 };
    vi.spyOn(DynamoDBClient.prototype, 'send').mockImplementation(function (this: DynamoDBClient, ...args) {
      const [command] = args as unknown as [{ input: Record<string, any> }];
      const key = command.input.Key ?? command.input.Item;
      if (state.refused === 0 && key?.PK?.S === 'IDEMPOTENCY' && matches(command)) {
        state.refused++;
        const error = new Error('Throughput exceeds the current capacity of your table or index.');
        error.name = 'ProvisionedThroughputExceededException';
        return Promise.reject(error);
      }
      return (send as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    } as typeof send);
    return state;
  };

  it('when saving the answer fails once, the first call still succeeds and a retry creates nothing', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const state = failOnce(
      (command) =>
        command instanceof UpdateItemCommand &&
        command.input.ExpressionAttributeValues?.[':status']?.S === 'COMPLETED',
    );
    const body = {
      intent: 'draft',
      channels: [{ channelId: ws.channels.x, blocks: [{ content: 'saved once' }] }],
    };
    const { first, second } = await replayTwice(ws.key, body);
    expect(state.refused).toBe(1);
    expect(first.status, first.text).toBe(201);
    expect(second.status, second.text).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.id).toBe(first.body.id);
    expect(await postCount(ws.key)).toBe(1);
    expect(await usedPosts(ws.key)).toBe(1);
  });

  it('when the record cannot be started, 503 to retry and nothing created; the retry runs', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const state = failOnce((command) => command instanceof PutItemCommand);
    const body = {
      intent: 'draft',
      channels: [{ channelId: ws.channels.x, blocks: [{ content: 'later' }] }],
    };
    const { first, second } = await replayTwice(ws.key, body);
    expect(state.refused).toBe(1);
    expectError(first, 503, 'service_unavailable');
    expect(first.headers.get('retry-after')).toBe('1');
    expect(second.status, second.text).toBe(201);
    expect(await postCount(ws.key)).toBe(1);
  });

  it('a refused request whose record cannot be removed still answers its own refusal', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const state = failOnce((command) => command instanceof DeleteItemCommand);
    const res = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      headers: { 'idempotency-key': randomUUID() },
      body: {
        intent: 'draft',
        channels: [{ channelId: 'ch_0000000000000000000000', blocks: [{ content: 'x' }] }],
      },
    });
    expect(state.refused).toBe(1);
    expectError(res, 422, 'channel_not_found');
    expect(await postCount(ws.key)).toBe(0);
  });
});

describe('cursors are bound to the list and filters they were issued for', () => {
  let ws: Awaited<ReturnType<typeof freshWorkspace>>;
  beforeAll(async () => {
    ws = await freshWorkspace(rt, ['x']);
    for (const content of ['one', 'two', 'three']) {
      const res = await rt.api('/posts', {
        method: 'POST',
        key: ws.key,
        body: { intent: 'draft', channels: [{ channelId: ws.channels.x, blocks: [{ content }] }] },
      });
      expect(res.status).toBe(201);
    }
  });

  const firstCursor = async (path: string) => {
    const page = await rt.api(path, { key: ws.key });
    expect(page.status, page.text).toBe(200);
    expect(typeof page.body.nextCursor).toBe('string');
    return page.body.nextCursor as string;
  };

  it('GET /posts?from=2030-01-01 with a cursor of the unfiltered list: 400 invalid_cursor', async () => {
    const cursor = await firstCursor('/posts?limit=1');
    expectError(
      await rt.api(`/posts?from=2030-01-01&cursor=${cursor}`, { key: ws.key }),
      400,
      'invalid_cursor',
    );
  });

  it('a cursor used with other filters, or on another list, is 400 invalid_cursor', async () => {
    const unfiltered = await firstCursor('/posts?limit=1');
    const drafts = await firstCursor('/posts?limit=1&status=draft');
    expectError(
      await rt.api(`/posts?status=draft&cursor=${unfiltered}`, { key: ws.key }),
      400,
      'invalid_cursor',
    );
    expectError(await rt.api(`/posts?cursor=${drafts}`, { key: ws.key }), 400, 'invalid_cursor');
    expectError(await rt.api(`/media?cursor=${unfiltered}`, { key: ws.key }), 400, 'invalid_cursor');
    // The same filters still page on.
    const next = await rt.api(`/posts?limit=1&status=draft&cursor=${drafts}`, { key: ws.key });
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(1);
  });

  it('cursors we did not make are 400 invalid_cursor on every list', async () => {
    const webhook = await rt.api('/webhooks', {
      method: 'POST',
      key: ws.key,
      body: { url: 'https://127.0.0.1:9/hooks', events: ['post.published'] },
    });
    expect(webhook.status, webhook.text).toBe(201);
    const forged = [
      base64({ v: 1, after: '' }),
      base64url({ v: 1, after: '' }),
      base64url({ v: 1, after: 'zzzz' }),
      base64url({ v: 1, after: 'ATTEMPT#' }),
      base64url({ v: 1, after: '2030-01-01T00:00:00.000Z#post_0000000000000000000000' }),
      base64url({ v: 1, after: '2030-01-01T00:00:00.000Z#med_0000000000000000000000' }),
      base64url({ v: 2 }),
      'A'.repeat(5000),
    ];
    for (const cursor of forged) {
      const q = encodeURIComponent(cursor);
      expectError(await rt.api(`/media?cursor=${q}`, { key: ws.key }), 400, 'invalid_cursor');
      expectError(await rt.api(`/posts?cursor=${q}`, { key: ws.key }), 400, 'invalid_cursor');
      expectError(
        await rt.api(`/webhooks/${webhook.body.endpoint.id}/deliveries?cursor=${q}`, { key: ws.key }),
        400,
        'invalid_cursor',
      );
    }
  });
});

describe('webhook URLs whose host cannot be a DNS name', () => {
  it('are 422 url_not_allowed before any DNS lookup', async () => {
    const ws = await freshWorkspace(rt, []);
    const looked: string[] = [];
    // A resolver that cannot answer just now (the case that is a 503): it must not even be asked.
    const restore = rt.container.override({
      resolveHost: async (host) => {
        looked.push(host);
        throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${host}`), { code: 'EAI_AGAIN' });
      },
    });
    try {
      for (const host of [
        `${'a'.repeat(64)}.example.com`,
        `${'a.'.repeat(127)}com`,
        'a..example.com',
        '.example.com',
        'exa$mple.com',
        'a!b.example.com',
        '-a.example.com',
      ]) {
        const res = await rt.api('/webhooks', {
          method: 'POST',
          key: ws.key,
          body: { url: `https://${host}/hooks`, events: ['post.published'] },
        });
        expectError(res, 422, 'url_not_allowed');
        expect(res.body.error.field).toBe('url');
      }
      expect(looked).toEqual([]);
      // A well-formed name still goes to DNS, and a resolver that cannot answer is a 503 to retry.
      const res = await rt.api('/webhooks', {
        method: 'POST',
        key: ws.key,
        body: { url: `https://hooks.example.com/in`, events: ['post.published'] },
      });
      expectError(res, 503, 'service_unavailable');
      expect(looked).toEqual(['hooks.example.com']);
      expect((await rt.api('/webhooks', { key: ws.key })).body.data).toEqual([]);
    } finally {
      restore();
    }
  });
});

describe('path ids and filters are checked before they reach a key', () => {
  it('a malformed percent-encoding in a path id is a 404 in the envelope, with the usual headers', async () => {
    for (const [method, path] of [
      ['GET', '/posts/%ZZ'],
      ['DELETE', '/posts/post_%E0%A4%A'],
      ['GET', '/media/%'],
      ['POST', '/webhooks/%ZZ/roll-secret'],
    ] as const) {
      expectError(await rt.api(path, { method }), 404, 'not_found');
    }
  });

  it('GET /posts?tag= with a tag id of the wrong shape or length is 400 validation_failed', async () => {
    const ws = await freshWorkspace(rt, []);
    const tag = await addTag(rt.container.deps, {
      accountId: ws.accountId,
      workspaceId: ws.workspaceId,
      name: 'Real',
    });
    for (const value of ['x'.repeat(3000), `tag_${'a'.repeat(65)}`, 'post_abc', 'tag_a-b', '']) {
      const res = await rt.api(`/posts?tag=${encodeURIComponent(value)}`, { key: ws.key });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.field).toBe('tag');
    }
    // Well-formed ids still filter (an unknown one simply matches nothing).
    expect((await rt.api(`/posts?tag=${tag.tagId}`, { key: ws.key })).status).toBe(200);
    expect((await rt.api('/posts?tag=tag_0000000000000000000000', { key: ws.key })).body.data).toEqual([]);
  });

  it('a media id in a post body that cannot be an id is media_not_found, never a key', async () => {
    const ws = await freshWorkspace(rt, ['x']);
    const res = await rt.api('/posts', {
      method: 'POST',
      key: ws.key,
      body: {
        intent: 'draft',
        channels: [
          { channelId: ws.channels.x, blocks: [{ content: 'hi', mediaIds: [`med_${'a'.repeat(3000)}`] }] },
        ],
      },
    });
    expectError(res, 422, 'media_not_found');
  });
});

describe('Idempotency-Key across a crash that left its record unfinished', () => {
  /** Removes the key records of the table, as the in-progress window expiring after a killed request does. */
  const forgetKeyRecords = async () => {
    const { doc, tableName } = rt.container.deps.table;
    const { QueryCommand, DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    const page = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': 'IDEMPOTENCY' },
      }),
    );
    for (const item of page.Items ?? []) {
      await doc.send(new DeleteCommand({ TableName: tableName, Key: { PK: item.PK, SK: item.SK } }));
    }
    expect(page.Items?.length).toBeGreaterThan(0);
  };

  it('a retry with the same key finds the post the first attempt made: one post, counted once, published once', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const body = {
      intent: 'now',
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `crash-retry ${randomUUID()}` }] }],
    };
    const headers = { 'idempotency-key': randomUUID() };
    const first = await rt.api('/posts', { method: 'POST', key: ws.key, body, headers });
    expect(first.status, first.text).toBe(201);
    await forgetKeyRecords();
    const retry = await rt.api('/posts', { method: 'POST', key: ws.key, body, headers });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect(await postCount(ws.key)).toBe(1);
    expect(await usedPosts(ws.key)).toBe(1);
    await expect
      .poll(async () => (await rt.api(`/posts/${first.body.id}`, { key: ws.key })).body.status, {
        timeout: 15_000,
      })
      .toBe('published');
    const content = body.channels[0]?.blocks[0]?.content as string;
    const records = rt.simulators.byPlatform.get('bluesky')?.records() ?? [];
    expect(records.filter((r) => r.kind !== 'delete' && r.text?.includes(content))).toHaveLength(1);
  });

  it('a retry that would no longer pass (its channel since marked needs_reconnect) answers the post the first attempt made', async () => {
    const ws = await freshWorkspace(rt, ['bluesky']);
    const body = {
      intent: 'draft',
      channels: [{ channelId: ws.channels.bluesky, blocks: [{ content: `crash-retry ${randomUUID()}` }] }],
    };
    const headers = { 'idempotency-key': randomUUID() };
    const first = await rt.api('/posts', { method: 'POST', key: ws.key, body, headers });
    expect(first.status, first.text).toBe(201);
    await rt.container.deps.channels.markNeedsReconnect(ws.workspaceId, ws.channels.bluesky);
    await forgetKeyRecords();
    const retry = await rt.api('/posts', { method: 'POST', key: ws.key, body, headers });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect(await postCount(ws.key)).toBe(1);
    // Without the key, the same body is refused as it should be.
    const fresh = await rt.api('/posts', { method: 'POST', key: ws.key, body });
    expect(fresh.status, fresh.text).toBe(422);
    expect(fresh.body.error.code).toBe('channel_disconnected');
  });
});
