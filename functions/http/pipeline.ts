import { randomUUID } from 'node:crypto';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj, type MiddyfiedHandler } from '@middy/core';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type * as z from 'zod';
import {
  type AuthContext,
  authenticateAndCount,
  authenticateFromRead,
  authorize,
  isScopeOf,
  type KeyModes,
  type KeyScope,
  keyFromHeaders,
  keyHashOf,
  scopeHint,
} from '../core/auth/api-keys.ts';
import { ApiError, errorBody, isApiError } from '../domain/errors.ts';
import { isId } from '../domain/ids.ts';
import {
  type KeyCount,
  KeyCountRefusedError,
  type KeyWindowRead,
  type RateLimitState,
} from '../ports/rate-limiter.ts';
import type { UserStore } from '../ports/users.ts';
import type { WorkspaceStore } from '../ports/workspaces.ts';
import { type BaseDeps, type Composed, compose, type Part } from '../runtime/compose.ts';
import { users } from '../runtime/parts/users.ts';
import { workspaces } from '../runtime/parts/workspaces.ts';
import { env } from '../shared/env.ts';
import { logger, metrics } from '../shared/powertools.ts';
import { zodErrorToApiError } from '../shared/validation.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** Query parameters with repeatable keys kept apart (API Gateway joins them with commas). */
export interface Query {
  get(name: string): string | undefined;
  getAll(name: string): string[];
  has(name: string): boolean;
}

/** The person behind a user route's request (its access token's `sub`) and the account it belongs to. */
export interface RequestUser {
  userId: string;
  accountId: string;
  email: string;
}

export interface HttpRequest<Body, D extends BaseDeps = BaseDeps> {
  requestId: string;
  method: string;
  /**
   * The key's scope; on a user route with `{workspaceId}`, the user's in that workspace (see
   * `authenticateUser`). A user route without `{workspaceId}` has none: it reads `user`.
   */
  auth: AuthContext;
  /** Set on every user route (`auth: 'user'`). */
  user?: RequestUser;
  body: Body;
  params: Record<string, string>;
  query: Query;
  headers: Record<string, string | undefined>;
  /** The base and the parts the route composed (`uses`), nothing else. */
  deps: D;
  event: HttpEvent;
  context: Context;
  /**
   * What the route's `prefetch` read alongside the key's check, when this instance knew the key's
   * scope and the confirmed key has that very scope; otherwise undefined (read it now).
   */
  prefetched?: Promise<unknown>;
  /**
   * Set by `idempotent` when the request carries an Idempotency-Key: the same for every retry
   * with that key, so a use case can derive what it creates from it (a retry after a crash then
   * finds the first attempt's work instead of doing it again).
   */
  idempotencySeed?: string;
  /**
   * Set when the request is not counted yet: its count in its key's window is for the route's own
   * write to make (see httpHandler's `keyRead`), which marks it counted. Should the route fail
   * before that, the request is counted the usual way and answers what it would have answered.
   */
  keyCount?: KeyCount;
}

export interface HttpResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * `required`: a valid key is needed (every /v1 route). `optional`: a key is used for the rate
 * limit when valid, and the client address otherwise (the not-found answer). `none`: /health.
 * `user`: a person's access token, checked by API Gateway's JWT authorizer (locally, its
 * stand-in) before the function runs; an API key is never looked at (the /v1/account routes).
 */
export type AuthMode = 'required' | 'optional' | 'none' | 'user';

interface State {
  requestId: string;
  startedAt: number;
  auth?: AuthContext;
  user?: RequestUser;
  rate?: RateLimitState;
  body?: unknown;
  prefetched?: Promise<unknown>;
  /** The scope `prefetched` was read for. */
  prefetchedScope?: KeyScope;
  /** The request's count, for the route's write to make (the folded path). */
  keyCount?: KeyCount;
}

/**
 * Reads a route may start, for a key's remembered scope, before the key is confirmed; with
 * `keyHash` (a route with `keyRead`), the key's item under that hash is read along.
 */
type Prefetch<D extends BaseDeps = BaseDeps> = (
  deps: D,
  scope: KeyScope,
  body: unknown,
  keyHash: string | null,
) => Promise<unknown>;

/**
 * The body parsed, and the route's reads started, while the key is checked: only for a key whose
 * scope this instance remembers. Errors wait until the key is confirmed, so a request answers
 * what it would have answered without this (401, 429, 403, then the body's error).
 */
const startEarly = (
  event: HttpEvent,
  schema: z.ZodType,
  prefetch: Prefetch,
  deps: BaseDeps,
  scope: KeyScope,
  keyHash: string | null,
): { scope: KeyScope; body?: unknown; error?: unknown; reads?: Promise<unknown> } => {
  let body: unknown;
  try {
    body = parseJsonBody(event, schema);
  } catch (error) {
    return { scope, error };
  }
  const reads = prefetch(deps, scope, body, keyHash);
  // Reads that end up unused (a refused key, a bad body) must not fail the process.
  reads.catch(() => undefined);
  return { scope, body, reads };
};

type HeraldContext = Context & { herald: State };

const rateHeaders = (rate: RateLimitState | undefined): Record<string, string> =>
  rate
    ? {
        'X-RateLimit-Limit': String(rate.limit),
        'X-RateLimit-Remaining': String(rate.remaining),
        'X-RateLimit-Reset': String(rate.resetSeconds),
      }
    : {};

const json = (status: number, body: unknown, headers: Record<string, string>): HttpResult => ({
  statusCode: status,
  headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  body: status === 204 || body === undefined ? '' : JSON.stringify(body),
});

/** One CloudWatch metric per response class, so the 4xx/5xx rates are visible per function. */
const countResponse = (status: number) => {
  metrics.addMetric('Requests', MetricUnit.Count, 1);
  metrics.addMetric(
    status >= 500 ? 'ServerErrors' : status >= 400 ? 'ClientErrors' : 'Successes',
    MetricUnit.Count,
    1,
  );
};

/**
 * One line per request (INFO, JSON through Powertools, with the request id and key id appended):
 * what finds a request by its requestId on AWS. The local server prints the same fields readably.
 * No headers, body or query string, so no key or token.
 */
const logRequest = (event: HttpEvent, status: number, state: Pick<State, 'startedAt'>) =>
  logger.info('request', {
    method: event.requestContext?.http?.method,
    path: event.rawPath ?? event.requestContext?.http?.path,
    status,
    durationMs: Math.round(performance.now() - state.startedAt),
  });

const sourceIp = (event: HttpEvent): string => event.requestContext?.http?.sourceIp ?? 'unknown';

const countRequest = async (deps: BaseDeps, subject: string): Promise<RateLimitState> => {
  const rate = await deps.rateLimiter.hit(subject, deps.clock.now());
  return rate;
};

const tooManyRequests = (rate: RateLimitState): ApiError =>
  new ApiError('rate_limited', undefined, undefined, { 'Retry-After': String(rate.resetSeconds) });

const bodyText = (event: HttpEvent): string | undefined =>
  event.body === undefined || event.body === null
    ? undefined
    : event.isBase64Encoded
      ? Buffer.from(event.body, 'base64').toString('utf8')
      : event.body;

const parseJsonBody = (event: HttpEvent, schema: z.ZodType): unknown => {
  const text = bodyText(event);
  if (text !== undefined && Buffer.byteLength(text, 'utf8') > env.maxJsonBodyBytes) {
    throw new ApiError(
      'payload_too_large',
      `The request body must be at most ${env.maxJsonBodyBytes} bytes.`,
    );
  }
  const contentType = event.headers['content-type'] ?? '';
  if (text !== undefined && text.trim() !== '' && !/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    throw new ApiError('unsupported_media_type');
  }
  let value: unknown;
  if (text === undefined || text.trim() === '') {
    value = undefined;
  } else {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ApiError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (value === undefined) throw new ApiError('validation_failed', 'A JSON request body is required.');
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodErrorToApiError(parsed.error);
  return parsed.data;
};

/**
 * What every request with a key does first, the usual way: one write finds the key and counts the
 * request in the key's own window; then 429, then 403. A refused key is counted by the client's
 * address (so guessing keys is throttled too) and answers 429 or 401; with `optional`
 * authentication it goes on without a key (undefined).
 */
const authenticateUsually = async (
  deps: BaseDeps,
  event: HttpEvent,
  secret: string | null,
  mode: AuthMode,
  state: State,
  modes: KeyModes = 'any',
): Promise<AuthContext | undefined> => {
  let auth: AuthContext;
  try {
    ({ auth, rate: state.rate } = await authenticateAndCount(deps.rateLimiter, secret, deps.clock.now()));
  } catch (error) {
    state.rate = await countRequest(deps, `ip:${sourceIp(event)}`);
    if (!state.rate.allowed) throw tooManyRequests(state.rate);
    if (mode === 'required') throw error;
    return undefined;
  }
  state.auth = auth;
  logger.appendKeys({ keyId: auth.keyId });
  if (!state.rate.allowed) throw tooManyRequests(state.rate);
  authorize(auth, event.requestContext.http.method, modes);
  return auth;
};

/**
 * The folded path: the key's item came with the route's reads, and says the key is this one, of
 * the scope the reads were made for, may write, and has room in its current window. Then nothing
 * is written here: the route's own write counts the request (`keyCount`). Null in every other
 * case (the reads failed, no such key, another scope, a read-only key, a window to start, the
 * limit reached): the request is then authenticated and counted the usual way.
 */
const foldedAuth = async (
  deps: BaseDeps,
  event: HttpEvent,
  secret: string | null,
  early: { scope: KeyScope; reads: Promise<unknown> },
  keyRead: (prefetched: unknown) => KeyWindowRead | null | undefined,
  modes: KeyModes,
) => {
  let read: KeyWindowRead | null | undefined;
  try {
    read = keyRead(await early.reads);
  } catch {
    return null;
  }
  const found = authenticateFromRead(deps.rateLimiter, secret, read, deps.clock.now());
  if (!found || !isScopeOf(early.scope, found.auth)) return null;
  try {
    authorize(found.auth, event.requestContext.http.method, modes);
  } catch {
    return null;
  }
  return found;
};

/** What user mode reads besides the base: the user's item and its account's workspaces. */
type UserDeps = BaseDeps & { users: UserStore; workspaces: WorkspaceStore };

/** The claims API Gateway's JWT authorizer verified (each a string), or undefined without one. */
const verifiedClaims = (event: HttpEvent): Record<string, unknown> | undefined =>
  (event as unknown as Partial<APIGatewayProxyEventV2WithJWTAuthorizer>).requestContext?.authorizer?.jwt
    ?.claims;

/**
 * A user route's authentication. The token itself was checked before the function ran (API
 * Gateway's JWT authorizer, locally its stand-in); claims that are absent or not an access
 * token's (an ID token passes the authorizer's audience check too) are a 401 here all the same.
 * Then one count in the user's own window alongside the read of the user's item: 429, then 403
 * for a person with no Herald account; then, on a path with `{workspaceId}`, that workspace must
 * be the account's (404, as for an unknown id: nothing says another account has it), and the
 * route gets the same scope a write key of that workspace would have.
 */
const authenticateUser = async (deps: UserDeps, event: HttpEvent, state: State): Promise<void> => {
  const claims = verifiedClaims(event);
  const sub = claims?.sub;
  if (typeof sub !== 'string' || sub === '' || claims?.token_use !== 'access') {
    throw new ApiError('unauthorized', 'A valid access token is required (Authorization: Bearer).');
  }
  const [rate, user] = await Promise.all([countRequest(deps, `user:${sub}`), deps.users.getUser(sub)]);
  state.rate = rate;
  logger.appendKeys({ userId: sub });
  if (!rate.allowed) throw tooManyRequests(rate);
  if (!user) throw new ApiError('forbidden', 'This user has no Herald account.');
  state.user = { userId: user.userId, accountId: user.accountId, email: user.email };
  const workspaceId = event.pathParameters?.workspaceId;
  if (workspaceId === undefined) return;
  // An id that cannot be a workspace's is unknown without a read (its key could exceed DynamoDB's limits).
  const workspace = isId('ws', workspaceId)
    ? await deps.workspaces.getWorkspace(user.accountId, workspaceId)
    : null;
  if (!workspace) throw new ApiError('not_found');
  state.auth = {
    keyId: `user:${sub}`,
    accountId: user.accountId,
    workspaceId,
    mode: 'live',
    permission: 'write',
  };
};

/** Request id, authentication, rate limit, permission, JSON body and the error envelope, in that order. */
const heraldHttp = (options: {
  auth: AuthMode;
  keys: KeyModes;
  body?: z.ZodType;
  prefetch?: Prefetch;
  keyRead?: (prefetched: unknown) => KeyWindowRead | null | undefined;
  deps: BaseDeps;
  /** For `auth: 'user'`. */
  userDeps?: UserDeps;
}): MiddlewareObj<HttpEvent, HttpResult, Error, HeraldContext> => ({
  before: async (request) => {
    const state: State = { requestId: `req_${randomUUID()}`, startedAt: performance.now() };
    request.context.herald = state;
    logger.appendKeys({ requestId: state.requestId });
    if (options.auth === 'none') return;
    if (options.auth === 'user') {
      await authenticateUser(options.userDeps as UserDeps, request.event, state);
      if (options.body) state.body = parseJsonBody(request.event, options.body);
      return;
    }
    const deps = options.deps;
    const headers = request.event.headers ?? {};
    const secret = keyFromHeaders(headers);
    const hint = options.body && options.prefetch ? scopeHint(secret, deps.clock.now()) : null;
    // Requests with an Idempotency-Key are counted the usual way: their replays make no write.
    const fold = hint !== null && options.keyRead !== undefined && headers['idempotency-key'] === undefined;
    const early =
      hint && options.body && options.prefetch
        ? startEarly(
            request.event,
            options.body,
            options.prefetch,
            deps,
            hint,
            fold ? keyHashOf(secret) : null,
          )
        : null;
    if (fold && early?.reads && options.keyRead) {
      const folded = await foldedAuth(
        deps,
        request.event,
        secret,
        { scope: early.scope, reads: early.reads },
        options.keyRead,
        options.keys,
      );
      if (folded) {
        state.auth = folded.auth;
        state.rate = folded.rate;
        state.keyCount = folded.count;
        logger.appendKeys({ keyId: folded.auth.keyId });
        state.body = early.body;
        state.prefetched = early.reads;
        state.prefetchedScope = early.scope;
        return;
      }
    }
    const auth = await authenticateUsually(deps, request.event, secret, options.auth, state, options.keys);
    if (!auth) return;
    if (early) {
      if ('error' in early) throw early.error;
      state.body = early.body;
      // Used only when the key, now confirmed, has the scope the reads were made for.
      if (isScopeOf(early.scope, auth)) {
        state.prefetched = early.reads;
        state.prefetchedScope = early.scope;
      }
    } else if (options.body) {
      state.body = parseJsonBody(request.event, options.body);
    }
  },
  after: async (request) => {
    const state = request.context.herald;
    countResponse((request.response as HttpResult).statusCode ?? 200);
    const response = request.response as HttpResult;
    logRequest(request.event, response.statusCode ?? 200, state);
    response.headers = { ...response.headers, ...rateHeaders(state.rate), 'X-Request-Id': state.requestId };
  },
  onError: async (request) => {
    const state = request.context.herald ?? {
      requestId: `req_${randomUUID()}`,
      startedAt: performance.now(),
    };
    const error = request.error;
    let apiError: ApiError;
    if (isApiError(error)) {
      apiError = error;
    } else {
      logger.error('Unhandled error', { error: error as Error });
      apiError = new ApiError('internal_error');
    }
    countResponse(apiError.status);
    logRequest(request.event, apiError.status, state);
    request.response = json(apiError.status, errorBody(apiError, state.requestId), {
      ...apiError.headers,
      ...rateHeaders(state.rate),
      'X-Request-Id': state.requestId,
    });
  },
});

const splitQuery = (event: HttpEvent): Query => {
  const search = new URLSearchParams(event.rawQueryString ?? '');
  return {
    get: (name) => search.get(name) ?? undefined,
    getAll: (name) => search.getAll(name),
    has: (name) => search.has(name),
  };
};

type BodyOf<S> = S extends z.ZodType ? z.output<S> : undefined;

/** A route's handler: the pipeline around its function. */
export type HttpHandler = MiddyfiedHandler<HttpEvent, HttpResult, Error, HeraldContext>;

/** The options of a route that takes an API key (or none). */
interface KeyRouteOptions<S extends z.ZodType | undefined, Ps extends readonly Part[], P> {
  auth?: Exclude<AuthMode, 'user'>;
  /** `live`: test keys are refused with 403 before anything else (see `authorize`). */
  keys?: KeyModes;
  body?: S;
  uses?: Ps;
  /**
   * Reads the route would make first, started alongside the key's check for a key whose scope
   * this instance remembers (see `scopeHint`); the route finds them in `request.prefetched`.
   * `keyHash` is set for a route with `keyRead`: the key's item is to be read along.
   */
  prefetch?: (deps: Composed<Ps>, scope: KeyScope, body: BodyOf<S>, keyHash: string | null) => Promise<P>;
  /**
   * For a route whose one write can count the request in its key's window (`request.keyCount`):
   * the key's item its `prefetch` read along. A request of a key whose scope this instance
   * remembers then makes no write of its own to be authenticated and counted (see `foldedAuth`).
   */
  keyRead?: (prefetched: P) => KeyWindowRead | null | undefined;
}

/** The options of a user route: a person's access token, never a key (so no prefetch either). */
interface UserRouteOptions<S extends z.ZodType | undefined, Ps extends readonly Part[]> {
  auth: 'user';
  body?: S;
  uses?: Ps;
}

/**
 * Wraps a route's use-case call in the shared middleware. The function gets a validated body
 * (typed by the zod schema) and the dependencies of the parts it `uses` (composed once, at the
 * module's load), and returns a status and a JSON body.
 */
export function httpHandler<
  S extends z.ZodType | undefined = undefined,
  const Ps extends readonly Part[] = [],
  P = unknown,
>(
  options: KeyRouteOptions<S, Ps, P>,
  fn: (request: HttpRequest<BodyOf<S>, Composed<Ps>>) => Promise<HttpResponse>,
): HttpHandler;
/** A user route (`auth: 'user'`): its function gets `request.user`, and `request.auth` on a `{workspaceId}` path. */
export function httpHandler<
  S extends z.ZodType | undefined = undefined,
  const Ps extends readonly Part[] = [],
>(
  options: UserRouteOptions<S, Ps>,
  fn: (request: HttpRequest<BodyOf<S>, Composed<Ps>> & { user: RequestUser }) => Promise<HttpResponse>,
): HttpHandler;
export function httpHandler<
  S extends z.ZodType | undefined = undefined,
  const Ps extends readonly Part[] = [],
  P = unknown,
>(
  options: KeyRouteOptions<S, Ps, P> | UserRouteOptions<S, Ps>,
  // Typed as a user route's; a key route's function reads no `user` (it has none).
  fn: (request: HttpRequest<BodyOf<S>, Composed<Ps>> & { user: RequestUser }) => Promise<HttpResponse>,
): HttpHandler {
  const keyOptions: KeyRouteOptions<S, Ps, P> = options.auth === 'user' ? {} : options;
  const auth: AuthMode = options.auth ?? 'required';
  const deps = compose(...((options.uses ?? []) as unknown as Ps));
  // The user's item and its workspaces: built for user mode only.
  const userDeps = auth === 'user' ? compose(users, workspaces) : undefined;
  return middy<HttpEvent, HttpResult, Error, HeraldContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(
      heraldHttp({
        auth,
        keys: keyOptions.keys ?? 'any',
        deps,
        ...(userDeps ? { userDeps } : {}),
        ...(options.body ? { body: options.body } : {}),
        ...(keyOptions.prefetch ? { prefetch: keyOptions.prefetch as Prefetch } : {}),
        ...(keyOptions.keyRead
          ? { keyRead: keyOptions.keyRead as (prefetched: unknown) => KeyWindowRead | null | undefined }
          : {}),
      }),
    )
    .handler(async (event, context) => {
      const state = context.herald;
      const run = () =>
        fn({
          requestId: state.requestId,
          method: event.requestContext.http.method,
          auth: state.auth as AuthContext,
          user: state.user as RequestUser,
          body: state.body as BodyOf<S>,
          params: (event.pathParameters ?? {}) as Record<string, string>,
          query: splitQuery(event),
          headers: event.headers ?? {},
          ...(state.prefetched ? { prefetched: state.prefetched } : {}),
          ...(state.keyCount ? { keyCount: state.keyCount } : {}),
          deps,
          event,
          context,
        });
      /**
       * The folded path's request, not counted by the route's write: counted now, the usual way
       * (the key as it is now answers 401, 429 or 403 first); the reads stay the route's only if
       * the key still has their scope.
       */
      const countUsually = async () => {
        state.keyCount = undefined;
        const secret = keyFromHeaders(event.headers ?? {});
        const confirmed = await authenticateUsually(deps, event, secret, auth, state, keyOptions.keys);
        if (!confirmed || !state.prefetchedScope || !isScopeOf(state.prefetchedScope, confirmed)) {
          state.prefetched = undefined;
        }
      };
      let result: HttpResponse;
      try {
        result = await run();
      } catch (error) {
        if (!state.keyCount || state.keyCount.counted) throw error;
        await countUsually();
        // Refused for the key's condition alone: nothing was written; made again, the usual way.
        if (!(error instanceof KeyCountRefusedError)) throw error;
        result = await run();
      }
      if (state.keyCount && !state.keyCount.counted) {
        // A route that answered without the write that counts: counted now. Its answer stands
        // (what it did is done); a refusal here (the key gone or over its limit meanwhile) has
        // counted the request by key or by address, as the usual path does.
        await countUsually().catch(() => undefined);
      }
      return json(result.status, result.body, result.headers ?? {});
    });
}
