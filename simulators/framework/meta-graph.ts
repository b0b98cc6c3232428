/**
 * Meta's Graph API shapes shared by the Facebook, Instagram and Threads simulators (all three
 * answer as Graph does): the error body, the grant endpoints' fault switch, the redirect URI
 * refusal, the long-lived token exchange, and the login Instagram and Threads share
 * (`graphLoginSimulator`).
 */
import { objectOf } from './http.ts';
import {
  type AuthorizeRouteOptions,
  authorizeRoute,
  clientCredentials,
  type GrantRefusal,
  type IssuedTokens,
  mountOf,
  numericIdFor,
  orRefuse,
  paramsOf,
  requireGrant,
  type SimGrant,
  type SimOAuthApp,
  SimTokenStore,
} from './oauth.ts';
import { droppedPermissions } from './oauth-permissions.ts';
import type { SimOAuthMount, SimResponse, SimRoute, UnauthorizedReason } from './types.ts';

/**
 * Graph's error answer, as all three networks send it: `{ error: { message, type, code,
 * error_subcode?, …more, fbtrace_id } }`, with the response headers when given. `more` holds the
 * other fields a network adds (`is_transient`, `error_user_title`, `error_user_msg`).
 */
export const graphErrorResponse = (
  status: number,
  error: {
    message: string;
    type: string;
    code: number;
    subcode?: number | undefined;
    more?: Record<string, unknown>;
    fbtraceId: string;
  },
  headers?: SimResponse['headers'],
): SimResponse => ({
  status,
  body: {
    error: {
      message: error.message,
      type: error.type,
      code: error.code,
      ...(error.subcode === undefined ? {} : { error_subcode: error.subcode }),
      ...error.more,
      fbtrace_id: error.fbtraceId,
    },
  },
  ...(headers ? { headers } : {}),
});

export const GRAPH_ERRORS = {
  error: (status: number, message: string, code: number, subcode?: number): SimResponse =>
    graphErrorResponse(status, { message, type: 'OAuthException', code, subcode, fbtraceId: 'AsimFbTrace0' }),
  unauthorized: (reason: UnauthorizedReason): SimResponse =>
    reason === 'expired'
      ? GRAPH_ERRORS.error(400, 'Error validating access token: Session has expired.', 190, 463)
      : reason === 'missing'
        ? GRAPH_ERRORS.error(
            400,
            'An active access token must be used to query information about the current user.',
            2500,
          )
        : GRAPH_ERRORS.error(
            400,
            'Error validating access token: The user has not authorized application.',
            190,
            458,
          ),
};

/** What a Meta OAuth simulator's grant endpoints may be switched to answer instead of a token. */
export type GraphGrantFault = 'rate-limited' | 'transient';

/** Graph's throttling codes a grant call may meet: app (4), user (17), page (32), API-specific (613), business use case (80000s). */
const THROTTLE_MESSAGES: Record<number, string> = {
  4: '(#4) Application request limit reached',
  17: '(#17) User request limit reached',
  32: '(#32) Page request limit reached',
  613: '(#613) Calls to this api have exceeded the rate limit.',
  80002: '(#80002) There have been too many calls to this Instagram account. Wait a bit and try again.',
};

/**
 * The fault switch of the Meta OAuth simulators' grant endpoints (code and token exchange,
 * refresh, Facebook's page-token check): `POST /_sim/oauth/grant-fault` `{ answer:
 * 'rate-limited' | 'transient' | null, code?, times? }` → 204. Graph answers both with HTTP 400,
 * like a dead grant: throttling with its code (4 by default; 17, 32, 613, 80002) and the usage
 * headers' `estimated_time_to_regain_access`; a transient failure with code 2 and `is_transient`,
 * or code 1 ("An unknown error occurred", no flag). From Graph's error-handling guide
 * (developers.facebook.com/docs/graph-api/guides/error-handling): codes 1 and 2 are temporary, 4,
 * 17, 32, 613 and 80000s are throttling. `times` answers that many grant calls (default: until
 * switched off).
 */
export const graphGrantFaults = () => {
  let fault: { answer: GraphGrantFault; code: number | null; left: number | null } | null = null;
  const answer = (kind: GraphGrantFault, code: number | null): SimResponse => {
    if (kind === 'rate-limited') {
      const throttle = code !== null && THROTTLE_MESSAGES[code] ? code : 4;
      const response = GRAPH_ERRORS.error(400, THROTTLE_MESSAGES[throttle] as string, throttle);
      (response.body as { error: Record<string, unknown> }).error.is_transient = true;
      return {
        ...response,
        headers: {
          'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 12, total_time: 40 }),
          'x-business-use-case-usage': JSON.stringify({
            sim: [
              {
                type: 'pages',
                call_count: 100,
                total_cputime: 9,
                total_time: 30,
                estimated_time_to_regain_access: 5,
              },
            ],
          }),
        },
      };
    }
    if (code === 1) return GRAPH_ERRORS.error(400, 'An unknown error occurred', 1);
    const response = GRAPH_ERRORS.error(
      400,
      'An unexpected error has occurred. Please retry your request later.',
      2,
    );
    (response.body as { error: Record<string, unknown> }).error.is_transient = true;
    return response;
  };
  const route: SimRoute = {
    method: 'POST',
    path: '/_sim/oauth/grant-fault',
    auth: false,
    handler: (ctx) => {
      const body = objectOf(ctx.body) ?? {};
      const kind = body.answer;
      if (kind === null || kind === undefined) {
        fault = null;
        return { status: 204 };
      }
      const code = body.code === undefined ? null : body.code;
      const times = body.times === undefined ? null : body.times;
      if (
        (kind !== 'rate-limited' && kind !== 'transient') ||
        (code !== null && typeof code !== 'number') ||
        (times !== null && (typeof times !== 'number' || !(times > 0)))
      ) {
        return {
          status: 400,
          body: {
            message: "Send { answer: 'rate-limited' | 'transient' | null, code?: number, times?: number }",
          },
        };
      }
      fault = { answer: kind, code: code as number | null, left: times as number | null };
      return { status: 204 };
    },
  };
  return {
    route,
    /** The fault's answer for this grant call, or null to answer normally. */
    take: (): SimResponse | null => {
      if (!fault) return null;
      const response = answer(fault.answer, fault.code);
      if (fault.left !== null && --fault.left <= 0) fault = null;
      return response;
    },
    reset: () => {
      fault = null;
    },
  };
};

/** A mount with the grant-fault switch: its route, and a reset that also switches the fault off. */
export const withGrantFaults = <M extends SimOAuthMount>(
  mount: M,
  faults: ReturnType<typeof graphGrantFaults>,
): M => ({
  ...mount,
  routes: [faults.route, ...mount.routes],
  reset: () => {
    faults.reset();
    mount.reset();
  },
});

/** Graph's refusal of a code exchanged with another redirect_uri than the dialog's (Facebook, Threads). */
export const REDIRECT_URI_MISMATCH =
  'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request';

/** Meta's long-lived user tokens (Instagram, Threads, Facebook) live 60 days. */
export const META_LONG_LIVED_SECONDS = 60 * 86400;

/** Graph's token answer: `{ access_token, token_type: 'bearer', expires_in }`, without `expires_in` for a token that does not expire. */
export const graphTokenAnswer = (issued: IssuedTokens): SimResponse => ({
  status: 200,
  body: {
    access_token: issued.accessToken,
    token_type: 'bearer',
    ...(issued.expiresIn === null ? {} : { expires_in: issued.expiresIn }),
  },
});

/**
 * A long-lived token (60 days, or the shortened test lifetime) for a valid user token `store`
 * issued, as Graph answers it. An unknown, expired or revoked token is refused as Graph refuses
 * it on all three networks: code 190, subcode 463 ("Session has expired").
 */
export const exchangeForLongLived = (store: SimTokenStore, token: string): SimResponse =>
  graphTokenAnswer(
    orRefuse(store.exchange(token, META_LONG_LIVED_SECONDS), () =>
      GRAPH_ERRORS.error(400, 'Error validating access token: Session has expired.', 190, 463),
    ),
  );

/**
 * Redeems the `code` a Meta token endpoint was sent (with its `redirect_uri`; Meta takes no PKCE
 * verifier). A code that is unknown, used, expired, another app's or sent with another redirect URI
 * throws the network's answer, shaped by `refused`.
 */
export const redeemGraphCode = (
  store: SimTokenStore,
  app: SimOAuthApp,
  params: Record<string, string>,
  refused: (refusal: GrantRefusal) => SimResponse,
): SimGrant =>
  orRefuse(
    store.redeemCode({
      code: params.code ?? '',
      clientId: app.clientId,
      redirectUri: params.redirect_uri ?? '',
      verifier: null,
    }),
    refused,
  );

/** What differs between the Instagram and Threads logins (`graphLoginSimulator`). */
export interface GraphLoginOptions {
  app: SimOAuthApp;
  /** The token prefix, and the seed of the accounts' numeric ids (`<prefix>:<sim_user>`). */
  prefix: string;
  /** A short-lived token's lifetime (the code exchange's). */
  shortLivedSeconds: number;
  knownScopes: readonly string[];
  unregisteredRedirect: AuthorizeRouteOptions['unregisteredRedirect'];
  /** The long-lived token calls' grant types (`GET /access_token`, `GET /refresh_access_token`). */
  grantTypes: { exchange: string; refresh: string };
  /** The code exchange's answer to app credentials it does not know. */
  badClient(): SimResponse;
  /** The code exchange's answer to a code it does not redeem. */
  badCode(refusal: GrantRefusal): SimResponse;
  /** The code exchange's body for a short-lived token. */
  codeAnswer(issued: IssuedTokens, grant: SimGrant): unknown;
  /** `GET /:version/me`'s body for a grant. */
  me(grant: SimGrant): unknown;
}

/**
 * The login Instagram (Instagram Login) and Threads share, in Graph's shapes:
 * - `GET /oauth/authorize` (the sign-in site): the consent, skipped (`authorizeRoute`); scopes
 *   separated by commas or spaces; the account is `sim_user`'s, with a 17-digit id and its name
 *   cleaned to a username. A new consent grants again what `POST /_sim/oauth/permissions` took back.
 * - `POST /oauth/access_token` (form: `client_id`, `client_secret`, `code`, `redirect_uri`): a
 *   short-lived token (`shortLivedSeconds`); the app credentials, then the code, are checked.
 * - `GET /access_token?grant_type=<exchange>&client_secret=&access_token=`: a long-lived token
 *   (60 days) for a valid token; the app secret is required (Graph's code 1 otherwise).
 * - `GET /refresh_access_token?grant_type=<refresh>&access_token=`: a fresh long-lived token, no
 *   secret. On both, another `grant_type` is Graph's code 100 and a refused token code 190/463.
 *   Not simulated: a token can only be refreshed once it is 24 hours old.
 * - `GET /:version/me`: the token's account (`me`), or Graph's refusal of the token.
 * - `POST /_sim/oauth/permissions` (`droppedPermissions`): a token holds the scopes its consent
 *   granted, less those taken back (`scopesOf`).
 * No revocation call. The three token calls meet the fault switch of `graphGrantFaults`
 * (`POST /_sim/oauth/grant-fault`) first.
 */
export const graphLoginSimulator = (
  options: GraphLoginOptions,
): SimOAuthMount & {
  /** The permissions a token it issued holds now (granted, less those taken back); null for tokens it did not issue. */
  scopesOf(token: string): readonly string[] | null;
  /** The grant behind a token it issued; null for tokens it did not issue. */
  grantOf(token: string): SimGrant | null;
} => {
  const { app } = options;
  const store = new SimTokenStore({
    prefix: options.prefix,
    defaults: { accessSeconds: options.shortLivedSeconds, refreshSeconds: null },
    rotates: false,
    issuesRefresh: false,
  });
  const faults = graphGrantFaults();
  const accountIdOf = (user: string) => numericIdFor(`${options.prefix}:${user}`, 17);
  const permissions = droppedPermissions(accountIdOf);
  const longLived = (path: string, grantType: string, needsSecret: boolean): SimRoute => ({
    method: 'GET',
    path,
    auth: false,
    handler: (ctx) => {
      const fault = faults.take();
      if (fault) return fault;
      const params = paramsOf(ctx);
      if (params.grant_type !== grantType) {
        return GRAPH_ERRORS.error(400, `grant_type must be ${grantType}`, 100);
      }
      if (needsSecret && params.client_secret !== app.clientSecret) {
        return GRAPH_ERRORS.error(400, 'Error validating client secret.', 1);
      }
      return exchangeForLongLived(store, params.access_token ?? '');
    },
  });
  const mount = mountOf(store, [
    authorizeRoute({
      knownScopes: options.knownScopes,
      unregisteredRedirect: options.unregisteredRedirect,
      path: '/oauth/authorize',
      app,
      store,
      scopeSeparator: /[\s,]+/,
      accountFor: (user) => {
        const id = accountIdOf(user);
        permissions.regranted(id);
        return { id, name: user.replace(/[^a-z0-9_.]/gi, '_') };
      },
    }),
    {
      method: 'POST',
      path: '/oauth/access_token',
      auth: false,
      handler: (ctx) => {
        const fault = faults.take();
        if (fault) return fault;
        const params = paramsOf(ctx);
        const client = clientCredentials({}, params);
        if (client?.clientId !== app.clientId || client.clientSecret !== app.clientSecret) {
          return options.badClient();
        }
        const grant = redeemGraphCode(store, app, params, options.badCode);
        return { status: 200, body: options.codeAnswer(store.issue(grant), grant) };
      },
    },
    longLived('/access_token', options.grantTypes.exchange, true),
    longLived('/refresh_access_token', options.grantTypes.refresh, false),
    {
      method: 'GET',
      path: '/:version/me',
      auth: false,
      handler: (ctx) => {
        const { grant } = requireGrant(ctx, store, GRAPH_ERRORS.unauthorized);
        return { status: 200, body: options.me(grant) };
      },
    },
    permissions.route,
  ]);
  const withFaults = withGrantFaults(mount, faults);
  return {
    ...withFaults,
    reset: () => {
      permissions.reset();
      withFaults.reset();
    },
    scopesOf: (token) => {
      const grant = store.grantOf(token);
      return grant ? permissions.scopesOf(grant) : null;
    },
    grantOf: (token) => store.grantOf(token),
  };
};

/**
 * The `fields` of a Graph read, top level only: `id,from{id,name},replies.limit(5){id,text}` →
 * `id` → null, `from` → `id,name`, `replies` → `id,text` (what is inside the braces, raw; the
 * `.limit(n)` modifier is dropped). Commas inside braces or parentheses do not split.
 */
export const graphFields = (raw: string | null): Map<string, string | null> => {
  const fields = new Map<string, string | null>();
  if (!raw) return fields;
  let depth = 0;
  let start = 0;
  const take = (part: string) => {
    const trimmed = part.trim();
    if (trimmed === '') return;
    const brace = trimmed.indexOf('{');
    const head = brace === -1 ? trimmed : trimmed.slice(0, brace);
    const name = (head.split('.')[0] as string).trim();
    fields.set(name, brace === -1 ? null : trimmed.slice(brace + 1, trimmed.lastIndexOf('}')));
  };
  for (let i = 0; i < raw.length; i += 1) {
    const ch = raw[i];
    if (ch === '{' || ch === '(') depth += 1;
    else if (ch === '}' || ch === ')') depth -= 1;
    else if (ch === ',' && depth === 0) {
      take(raw.slice(start, i));
      start = i + 1;
    }
  }
  take(raw.slice(start));
  return fields;
};

/** Graph's opaque cursors: base64 of the position, as Graph's own (`QVFIU…`) are base64 too. */
const cursorOf = (position: number) => Buffer.from(`sim:${position}`).toString('base64');
const positionOf = (cursor: string | null): number | null => {
  if (cursor === null) return null;
  const match = /^sim:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match ? Number(match[1]) : null;
};

/**
 * One page of a Graph edge in its cursor paging: `{ data, paging: { cursors: { before, after },
 * next? } }`, `next` only when more follow (Graph's "cursor-based pagination": the absence of
 * `next` is the last page; https://developers.facebook.com/docs/graph-api/results). `after` reads
 * on after the given cursor; an unreadable cursor is Graph's `(#100)` refusal (null returned).
 */
export const graphPage = <T>(
  items: readonly T[],
  query: URLSearchParams,
  options: { defaultLimit: number; maxLimit: number; pageUrl: string },
): { data: T[]; paging: Record<string, unknown> } | null => {
  const after = query.get('after');
  const from = after === null ? 0 : positionOf(after);
  if (from === null) return null;
  const asked = Number(query.get('limit') ?? options.defaultLimit) || options.defaultLimit;
  const limit = Math.min(Math.max(asked, 1), options.maxLimit);
  const data = items.slice(from, from + limit);
  const end = from + data.length;
  const next = new URL(options.pageUrl);
  for (const [key, value] of query)
    if (key !== 'after' && key !== 'access_token') next.searchParams.set(key, value);
  next.searchParams.set('limit', String(limit));
  next.searchParams.set('after', cursorOf(end));
  return {
    data,
    paging: {
      ...(data.length > 0 ? { cursors: { before: cursorOf(from), after: cursorOf(end) } } : {}),
      ...(end < items.length ? { next: next.toString() } : {}),
    },
  };
};
