/**
 * httpHandler's user mode in isolation (fakes, no table): the claims API Gateway's JWT authorizer
 * verified, the user's own rate-limit window, its account, and the workspace in the path.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type HttpRequest, httpHandler, type RequestUser } from '../../functions/http/pipeline.ts';
import type { RateLimiter, RateLimitState } from '../../functions/ports/rate-limiter.ts';
import type { User, UserStore } from '../../functions/ports/users.ts';
import type { Workspace, WorkspaceStore } from '../../functions/ports/workspaces.ts';
import { Container } from '../../functions/runtime/compose.ts';

const LIMIT = 3;
const now = new Date('2026-11-29T10:00:30Z');

const owner: User = {
  userId: 'sub-owner',
  accountId: 'acct_1',
  email: 'owner@example.com',
  role: 'owner',
  createdAt: '2026-11-01T00:00:00.000Z',
};
const ours: Workspace = {
  workspaceId: 'ws_1',
  accountId: 'acct_1',
  name: 'Main',
  createdAt: owner.createdAt,
};
const theirs: Workspace = {
  workspaceId: 'ws_2',
  accountId: 'acct_2',
  name: 'Other',
  createdAt: owner.createdAt,
};

/** Counts per subject, as the table's windows would. */
const limiter = () => {
  const counts = new Map<string, number>();
  const state = (n: number): RateLimitState => ({
    limit: LIMIT,
    remaining: Math.max(0, LIMIT - n),
    resetSeconds: 30,
    allowed: n <= LIMIT,
  });
  const rateLimiter: RateLimiter = {
    hit: async (subject) => {
      const n = (counts.get(subject) ?? 0) + 1;
      counts.set(subject, n);
      return state(n);
    },
    hitKey: async () => {
      throw new Error('a user route never looks a key up');
    },
    planKeyCount: () => null,
  };
  return { rateLimiter, counts };
};

const userStore: UserStore = {
  createUser: async () => {
    throw new Error('not used');
  },
  getUser: async (userId) => (userId === owner.userId ? owner : null),
};
const workspaceStore: WorkspaceStore = {
  createWorkspace: async () => {
    throw new Error('not used');
  },
  getWorkspace: async (accountId, workspaceId) =>
    [ours, theirs].find((w) => w.accountId === accountId && w.workspaceId === workspaceId) ?? null,
  listWorkspaces: async (accountId) => [ours, theirs].filter((w) => w.accountId === accountId),
  renameWorkspace: async () => {
    throw new Error('not used');
  },
};

const container = new Container();
let restores: (() => void)[] = [];
afterEach(() => {
  for (const restore of restores) restore();
  restores = [];
});

const claimsOf = (sub: string, extra: Record<string, string> = {}) => ({
  sub,
  client_id: 'client-1',
  token_use: 'access',
  username: sub,
  ...extra,
});

const event = (options: {
  claims?: Record<string, string> | null;
  workspaceId?: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}): APIGatewayProxyEventV2 => {
  const method = options.method ?? 'GET';
  const path = options.workspaceId ? `/v1/account/workspaces/${options.workspaceId}` : '/v1/account';
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body), isBase64Encoded: false }),
    ...(options.workspaceId ? { pathParameters: { workspaceId: options.workspaceId } } : {}),
    requestContext: {
      http: { method, path, sourceIp: '192.0.2.1' },
      ...(options.claims === null
        ? {}
        : { authorizer: { jwt: { claims: options.claims ?? claimsOf(owner.userId), scopes: null } } }),
    },
  } as unknown as APIGatewayProxyEventV2;
};

const context = {
  functionName: 'account',
  awsRequestId: 'r',
  getRemainingTimeInMillis: () => 1000,
} as unknown as Context;

/** A user route that answers what it was given; `seen` holds each request it ran for. */
const setup = (body?: z.ZodType) => {
  const limits = limiter();
  restores.push(
    container.override({
      rateLimiter: limits.rateLimiter,
      clock: { now: () => now },
      users: userStore,
      workspaces: workspaceStore,
    }),
  );
  const seen: (HttpRequest<unknown> & { user: RequestUser })[] = [];
  const handler = httpHandler({ auth: 'user', ...(body ? { body } : {}) }, async (request) => {
    seen.push(request);
    return {
      status: 200,
      body: { user: request.user, auth: request.auth ?? null, body: request.body ?? null },
    };
  });
  const send = async (e: APIGatewayProxyEventV2) => {
    const res = await container.run(() => handler(e, context as never));
    return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body || 'null') };
  };
  return { send, seen, counts: limits.counts };
};

describe('httpHandler, user mode', () => {
  it('gives the route the user and, for a workspace of its account, that workspace as a write scope', async () => {
    const t = setup();
    const res = await t.send(event({ workspaceId: 'ws_1' }));
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ userId: owner.userId, accountId: 'acct_1', email: owner.email });
    expect(res.body.auth).toEqual({
      keyId: `user:${owner.userId}`,
      accountId: 'acct_1',
      workspaceId: 'ws_1',
      mode: 'live',
      permission: 'write',
    });
    expect(res.headers['X-RateLimit-Remaining']).toBe(String(LIMIT - 1));
    expect(t.counts.get(`user:${owner.userId}`)).toBe(1);
  });

  it('gives a route without a workspace in its path the user and no scope', async () => {
    const t = setup();
    const res = await t.send(event({}));
    expect(res.status).toBe(200);
    expect(res.body.user.accountId).toBe('acct_1');
    expect(res.body.auth).toBeNull();
  });

  it("answers 404 for another account's workspace, the same answer as for an unknown one", async () => {
    const t = setup();
    const other = await t.send(event({ workspaceId: 'ws_2' }));
    const unknown = await t.send(event({ workspaceId: 'ws_404' }));
    for (const res of [other, unknown]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(other.body.error.message).toBe(unknown.body.error.message);
    expect(t.seen).toHaveLength(0);
  });

  it('answers 401 in the envelope without verified claims, or with the claims of a token that is not an access token', async () => {
    const t = setup();
    const none = await t.send(event({ claims: null }));
    const idToken = await t.send(event({ claims: claimsOf(owner.userId, { token_use: 'id' }) }));
    const noSub = await t.send(event({ claims: { token_use: 'access' } }));
    for (const res of [none, idToken, noSub]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'unauthorized' });
      expect(res.body.error.requestId).toMatch(/^req_/);
    }
    expect(t.seen).toHaveLength(0);
    expect(t.counts.size).toBe(0);
  });

  it('answers 403 for a signed-in person with no Herald account', async () => {
    const t = setup();
    const res = await t.send(event({ claims: claimsOf('sub-stranger'), workspaceId: 'ws_1' }));
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'forbidden', message: 'This user has no Herald account.' });
    expect(t.seen).toHaveLength(0);
  });

  it('counts each user in a window of its own and answers 429 with Retry-After past the limit', async () => {
    const t = setup();
    for (let i = 0; i < LIMIT; i++) expect((await t.send(event({}))).status).toBe(200);
    const refused = await t.send(event({ workspaceId: 'ws_1' }));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.headers['Retry-After']).toBe('30');
    expect(refused.headers['X-RateLimit-Remaining']).toBe('0');
    expect(t.seen).toHaveLength(LIMIT);
    // Another person's requests are not counted in this one's window.
    expect((await t.send(event({ claims: claimsOf('sub-stranger') }))).status).toBe(403);
    expect(t.counts.get('user:sub-stranger')).toBe(1);
  });

  it('never looks at an API key sent to a user route', async () => {
    const t = setup();
    const res = await t.send(event({ headers: { 'x-api-key': 'sk_live_00000000000000000000000000000000' } }));
    expect(res.status).toBe(200);
    const without = await t.send(event({ claims: null, headers: { 'x-api-key': 'sk_live_x' } }));
    expect(without.status).toBe(401);
  });

  it('validates the body after the user is known, and only then', async () => {
    const t = setup(z.strictObject({ name: z.string().min(1) }));
    const ok = await t.send(event({ method: 'POST', workspaceId: 'ws_1', body: { name: 'New' } }));
    expect(ok.body.body).toEqual({ name: 'New' });
    const bad = await t.send(event({ method: 'POST', workspaceId: 'ws_1', body: { name: '' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', field: 'name' });
    const hidden = await t.send(event({ method: 'POST', workspaceId: 'ws_2', body: { name: '' } }));
    expect(hidden.status).toBe(404);
  });
});
