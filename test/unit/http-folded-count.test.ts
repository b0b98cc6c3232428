/**
 * httpHandler's folded count in isolation (no table): a route with `keyRead` gets `keyCount`
 * for a key whose scope the instance remembers, and whatever keeps the route from counting
 * the request in its write ends in the usual count and the usual answer.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { generateSecret } from '../../functions/core/auth/api-keys.ts';
import { ApiError } from '../../functions/domain/errors.ts';
import { type HttpResponse, httpHandler } from '../../functions/http/pipeline.ts';
import type { ApiKeyRecord } from '../../functions/ports/api-keys.ts';
import {
  type KeyCount,
  KeyCountRefusedError,
  type KeyWindowRead,
  type RateLimiter,
  type RateLimitState,
} from '../../functions/ports/rate-limiter.ts';
import { Container } from '../../functions/runtime/compose.ts';

const LIMIT = 10;
const now = new Date('2026-03-01T10:00:30Z');
const window = Math.floor(now.getTime() / 1000) - 30;

/** A key store of one key, its count in `count`; hitKey counts as the table would. */
const limiterFor = (key: ApiKeyRecord) => {
  const calls = { hitKey: 0, hit: 0 };
  let count = 0;
  const state = (n: number): RateLimitState => ({
    limit: LIMIT,
    remaining: Math.max(0, LIMIT - n),
    resetSeconds: 30,
    allowed: n <= LIMIT,
  });
  const limiter: RateLimiter = {
    hit: async () => {
      calls.hit++;
      return state(1);
    },
    hitKey: async (hash) => {
      calls.hitKey++;
      if (hash !== key.secretHash) return null;
      count++;
      return { key, rate: state(count) };
    },
    planKeyCount: (read) =>
      read.count >= LIMIT
        ? null
        : {
            count: {
              secretHash: read.key.secretHash,
              window,
              limit: LIMIT,
              usedAt: new Date(window * 1000).toISOString(),
              counted: false,
            },
            rate: state(read.count + 1),
          },
  };
  return {
    limiter,
    calls,
    read: (): KeyWindowRead => ({ key, window, count }),
    setCount: (n: number) => {
      count = n;
    },
    /** What a write carrying `keyCount` does to the count. */
    countIn: (keyCount: KeyCount) => {
      count++;
      keyCount.counted = true;
    },
  };
};

const keyOf = (secretHash: string, permission: ApiKeyRecord['permission'] = 'write'): ApiKeyRecord => ({
  keyId: 'key_1',
  secretHash,
  hint: 'sk_live_xxxx',
  accountId: 'acct_1',
  workspaceId: 'ws_1',
  mode: 'live',
  permission,
  name: 'k',
  createdAt: '2026-01-01T00:00:00.000Z',
});

const event = (secret: string, body: unknown): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'POST /v1/things',
    rawPath: '/v1/things',
    rawQueryString: '',
    headers: { 'x-api-key': secret, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST', path: '/v1/things', sourceIp: '192.0.2.1' } },
  }) as unknown as APIGatewayProxyEventV2;

const context = {
  functionName: 'things',
  awsRequestId: 'r',
  getRemainingTimeInMillis: () => 1000,
} as unknown as Context;

/** The handler's parts, with the test's rate limiter and clock (as a local runtime's container). */
const container = new Container();
let restores: (() => void)[] = [];
afterEach(() => {
  for (const restore of restores) restore();
  restores = [];
});

/**
 * A route of things, whose behaviour each call chooses: `write` counts the request in its write
 * when it has a keyCount, `fail` throws before any write.
 */
const setup = (permission: ApiKeyRecord['permission'] = 'write') => {
  const { secret, secretHash } = generateSecret('live');
  const store = limiterFor(keyOf(secretHash, permission));
  restores.push(container.override({ rateLimiter: store.limiter, clock: { now: () => now } }));
  const seen: (KeyCount | undefined)[] = [];
  let behave: (keyCount: KeyCount | undefined) => Promise<HttpResponse> = async (keyCount) => {
    if (keyCount) store.countIn(keyCount);
    return { status: 201, body: { ok: true } };
  };
  const handler = httpHandler(
    {
      body: z.strictObject({ n: z.number() }),
      prefetch: async (_deps, _scope, _body, keyHash) => ({ key: keyHash ? store.read() : undefined }),
      keyRead: (prefetched) => prefetched.key,
    },
    async ({ keyCount }) => {
      seen.push(keyCount);
      return behave(keyCount);
    },
  );
  const send = async (body: unknown = { n: 1 }) => {
    const res = await container.run(() => handler(event(secret, body), context as never));
    return {
      status: res.statusCode,
      remaining: res.headers?.['X-RateLimit-Remaining'],
      body: JSON.parse(res.body || 'null'),
    };
  };
  // The first request confirms the key (usual path): from then on the instance knows its scope.
  const warm = async () => {
    expect((await send()).status).toBe(201);
    expect(seen.pop()).toBeUndefined();
  };
  return {
    store,
    seen,
    send,
    warm,
    behave: (next: typeof behave) => {
      behave = next;
    },
  };
};

describe('httpHandler, folded count', () => {
  it('hands the route the count for a remembered key and makes no count of its own', async () => {
    const t = setup();
    await t.warm();
    expect(t.store.calls.hitKey).toBe(1);
    const res = await t.send();
    expect(res).toMatchObject({ status: 201, remaining: String(LIMIT - 2) });
    expect(t.seen.pop()).toMatchObject({ counted: true, limit: LIMIT, window });
    expect(t.store.calls.hitKey).toBe(1);
    expect(t.store.read().count).toBe(2);
  });

  it('counts the usual way, then answers the route error, when the route fails before its write', async () => {
    const t = setup();
    await t.warm();
    t.behave(async () => {
      throw new ApiError('channel_not_found');
    });
    const res = await t.send();
    expect(res.status).toBe(422);
    expect(res.remaining).toBe(String(LIMIT - 2));
    expect(t.store.calls.hitKey).toBe(2);
    expect(t.store.read().count).toBe(2);
  });

  it('counts the usual way and runs the route again without the count when its write was refused for the key', async () => {
    const t = setup();
    await t.warm();
    t.behave(async (keyCount) => {
      if (keyCount) throw new KeyCountRefusedError();
      return { status: 201, body: { again: true } };
    });
    const res = await t.send();
    expect(res).toMatchObject({ status: 201, body: { again: true }, remaining: String(LIMIT - 2) });
    expect(t.seen.slice(-2).map((k) => k !== undefined)).toEqual([true, false]);
    expect(t.store.read().count).toBe(2);
  });

  it('answers 429 when the usual count after a refusal finds the key over its limit', async () => {
    const t = setup();
    await t.warm();
    t.behave(async (keyCount) => {
      if (keyCount) {
        t.store.setCount(LIMIT);
        throw new KeyCountRefusedError();
      }
      throw new Error('must not run again');
    });
    const res = await t.send();
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(t.store.read().count).toBe(LIMIT + 1);
  });

  it('counts a request the route answered without its write, and keeps the answer', async () => {
    const t = setup();
    await t.warm();
    t.behave(async () => ({ status: 200, body: { nothingWritten: true } }));
    const res = await t.send();
    expect(res).toMatchObject({ status: 200, body: { nothingWritten: true }, remaining: String(LIMIT - 2) });
    expect(t.store.calls.hitKey).toBe(2);
    expect(t.store.read().count).toBe(2);
  });

  it('takes the usual path for a read-only key (403), a bad body (400) and a key at its limit (429)', async () => {
    const readOnly = setup('read');
    // A read key is confirmed by any request; here the first one answers 403 and is remembered.
    expect((await readOnly.send()).status).toBe(403);
    expect((await readOnly.send()).status).toBe(403);
    expect(readOnly.seen).toHaveLength(0);
    expect(readOnly.store.read().count).toBe(2);

    const t = setup();
    await t.warm();
    const bad = await t.send({ n: 'one' });
    expect(bad.status).toBe(400);
    expect(t.store.read().count).toBe(2);
    t.store.setCount(LIMIT);
    const limited = await t.send();
    expect(limited.status).toBe(429);
    expect(t.store.read().count).toBe(LIMIT + 1);
    expect(t.seen).toHaveLength(0);
  });
});
