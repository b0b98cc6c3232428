import { createHash } from 'node:crypto';
import twitter from 'twitter-text';
import {
  objectOf,
  type SimContext,
  type SimErrorBodies,
  type SimResponse,
  type SimRoute,
  type Simulator,
  snowflake,
  startSimulator,
} from '../framework/framework.ts';
import { requestSpecFor, type SpecIssue } from '../framework/spec-validation.ts';
import { createXMediaSim, type SimMedia, type XMediaSwitches } from './media.ts';
import { xPublicMetrics } from './metrics.ts';
import { xIssuedScopes, xIssuedUser, xOAuthSimulator } from './oauth.ts';

/**
 * A local X API v2: `POST /2/tweets`, `DELETE /2/tweets/:id`, `GET /2/tweets/:id`,
 * `GET /2/users/me`, `GET /2/users/:id/tweets`, and the media upload (`media-simulator.ts`), with
 * X's error bodies (problem details), its duplicate-content refusal, `x-rate-limit-*` and
 * `x-user-limit-24hour-*` headers on 429 and snowflake ids. A tweet's `media.media_ids` must be
 * the user's own finalized, processed, unexpired uploads (X's 400 otherwise); X appends a t.co
 * link for the media to the tweet's text. Switches (`POST /_sim/x/switches`, or `setSwitches`):
 * media processing failing or slow, an append failing half-way, short media lifetimes, the
 * user's 24-hour cap spent (`dailyLimitSeconds`), every upload so far expired (`expireUploads`), the next tweet stored then answered 503
 * (`serverErrorAfterStore`; the shared `sim:bad-gateway` token is a gateway's 502 after storing). `GET /_sim/x/media` lists the uploads with
 * their alt text and tweets. A 5xx after storing is the shared `sim:bad-gateway` token. The user is derived
 * from the bearer token, so any token works; one starting `revoked`/`expired` is refused.
 *
 * Like X, it is awkward where lookups are concerned: the user timeline (`GET /2/users/:id/tweets`)
 * shows a tweet only `timelineLagMs` after it was stored (X's timeline is eventually consistent),
 * and every link in a tweet, a bare domain too, comes back as a t.co link, expanded in
 * `entities.urls` (a bare domain as `http://` + the domain).
 */

/** X's snowflake epoch (2010-11-04T01:42:54.657Z). */
const X_EPOCH_MS = 1288834974657;
const REPLY_SETTINGS = ['following', 'mentionedUsers', 'subscribers', 'verified'];

interface TweetLink {
  /** The t.co link shown in place of the link. */
  url: string;
  expanded_url: string;
  display_url: string;
  start: number;
  end: number;
  /** Set on the link X appends for attached media. */
  media_key?: string;
}

interface StoredTweet {
  id: string;
  /** The text as posted. */
  text: string;
  /** The text as X shows it: links replaced by t.co links. */
  shown: string;
  links: TweetLink[];
  authorId: string;
  createdAt: Date;
  inReplyTo: string | null;
  conversationId: string;
  replySettings: string;
  mediaIds: string[];
  deleted: boolean;
}

const problem = (status: number, title: string, detail: string, type = 'about:blank'): SimResponse => ({
  status,
  body: { title, detail, type, status },
});

/**
 * The OAuth 2.0 scopes each endpoint needs (X's authentication mapping: every read of a post or a
 * user needs `tweet.read` and `users.read` together, a write adds `tweet.write`, and the v2 media
 * upload needs `media.write`). A token without them gets X's bare 403.
 */
const SCOPES_BY_ROUTE: Record<string, string[]> = {
  'POST /2/tweets': ['tweet.read', 'tweet.write', 'users.read'],
  'DELETE /2/tweets/:id': ['tweet.read', 'tweet.write', 'users.read'],
  'GET /2/tweets/:id': ['tweet.read', 'users.read'],
  'GET /2/users/me': ['tweet.read', 'users.read'],
  'GET /2/users/:id/tweets': ['tweet.read', 'users.read'],
};
const MEDIA_SCOPES = ['media.write'];

const scopesOf = (route: SimRoute): string[] => {
  const scopes = SCOPES_BY_ROUTE[`${route.method} ${route.path}`];
  if (!scopes) throw new Error(`No scopes listed for the X simulator's ${route.method} ${route.path}`);
  return scopes;
};

/** X's answer to a user token that lacks a scope the endpoint needs. */
const forbidden = (): SimResponse => problem(403, 'Forbidden', 'Forbidden');

const invalidRequest = (message: string, parameters?: Record<string, string[]>): SimResponse => ({
  status: 400,
  body: {
    errors: [{ ...(parameters ? { parameters } : {}), message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  },
});

export const xErrors: SimErrorBodies = {
  // X answers every bad, expired or revoked token the same way.
  unauthorized: () => ({
    status: 401,
    body: { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' },
  }),
  refused: () => problem(403, 'Forbidden', 'You are not permitted to perform this action.'),
  unavailable: () => problem(503, 'Service Unavailable', 'Service Unavailable'),
  // The 15-minute window is spent; the 24-hour one (sent alongside, as X does) is not.
  // A short throttle spends the 15-minute window; a spent cap the user's 24-hour limit. Both
  // announce their reset in headers.
  rateLimited: (resetAt, _seconds, kind) =>
    kind === 'daily'
      ? rateLimitedAnswer(new Date(Date.now() + 900_000), resetAt)
      : rateLimitedAnswer(resetAt, null),
  badRequest: (message) => invalidRequest(message),
  invalidRequest: (issue) => xInvalid(issue),
  missingScope: () => forbidden(),
  notFound: () => ({
    status: 404,
    body: { errors: [{ message: 'Sorry, that page does not exist', code: 34 }] },
  }),
};

/**
 * X's 400 for a request its OpenAPI description refuses. Query parameters: "The query parameter
 * [x] is not one of [...]". JSON bodies: the JSON-schema validator's `$.path: ...` wording with the
 * parent object in `parameters` (an answer quoted in plhery/node-twitter-api-v2#583:
 * `{"parameters":{"$.reply":["{}"]},"message":"$.reply.in_reply_to_tweet_id: is missing but it is required"}`).
 */
const xInvalid = (issue: SpecIssue): SimResponse => {
  if (issue.location !== 'body') {
    const value = issue.value === undefined ? [] : [String(issue.value)];
    const allowed = (issue.allowed ?? []).join(',');
    const message =
      issue.kind === 'required'
        ? `The \`${issue.name}\` query parameter can not be empty`
        : issue.kind === 'enum'
          ? `The \`${issue.name}\` query parameter value [${String(issue.value)}] is not one of [${allowed}]`
          : issue.message;
    return invalidRequest(message, { [issue.name]: value });
  }
  const at = ['$', ...issue.path].join('.');
  const parent = ['$', ...issue.path.slice(0, -1)].join('.');
  const message =
    issue.kind === 'required'
      ? `${at}: is missing but it is required`
      : issue.kind === 'unknown'
        ? `${at}: is not defined in the schema and the schema does not allow additional properties`
        : issue.kind === 'enum'
          ? `${at}: does not have a value in the enumeration [${(issue.allowed ?? []).join(', ')}]`
          : `${at}: ${issue.message.replace(/^\S+ /, '')}`;
  const key = issue.kind === 'required' || issue.kind === 'unknown' ? parent : at;
  return invalidRequest(message, { [key]: [JSON.stringify(issue.value ?? {})] });
};

/**
 * X's 429: `x-rate-limit-*` for the endpoint's 15-minute window and `x-user-limit-24hour-*` for the
 * user's daily cap. With `dailyResetAt` the daily cap is spent (remaining 0, reset then) while the
 * 15-minute window resets sooner: a client must wait for the later of the two.
 */
const rateLimitedAnswer = (windowResetAt: Date, dailyResetAt: Date | null): SimResponse => {
  const epoch = (date: Date) => Math.ceil(date.getTime() / 1000);
  return {
    ...problem(429, 'Too Many Requests', 'Too Many Requests'),
    headers: {
      'x-rate-limit-limit': 100,
      'x-rate-limit-remaining': dailyResetAt ? 99 : 0,
      'x-rate-limit-reset': epoch(windowResetAt),
      'x-user-limit-24hour-limit': 100,
      'x-user-limit-24hour-remaining': dailyResetAt ? 0 : 42,
      'x-user-limit-24hour-reset': epoch(dailyResetAt ?? new Date(Date.now() + 86_400_000)),
    },
  };
};

/** The simulated user behind a token: a stable numeric id and handle. */
export const xUserForToken = (token: string) => {
  const issued = xIssuedUser(token);
  if (issued) return issued;
  const hash = createHash('sha256').update(token).digest();
  const id = (hash.readBigUInt64BE(0) >> 8n).toString();
  return { id, username: `sim_${hash.toString('hex').slice(0, 8)}`, name: 'Simulated X user' };
};

/** X returns `&`, `<` and `>` in tweet text as HTML entities. */
const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** How the text is shown: each link X finds (twitter-text's rules, X's own) replaced by a t.co link. */
const shorten = (id: string, text: string): { shown: string; links: TweetLink[] } => {
  const links: TweetLink[] = [];
  let shown = '';
  let at = 0;
  twitter.extractUrlsWithIndices(text).forEach(({ url, indices }, i) => {
    const digest = createHash('sha256')
      .update(`${id}/${i}`)
      .digest('base64')
      .replace(/[^A-Za-z0-9]/g, '');
    const tco = `https://t.co/${digest.slice(0, 10)}`;
    shown += text.slice(at, indices[0]);
    // Indices count code points, as X's do.
    const start = [...shown].length;
    shown += tco;
    at = indices[1];
    const expanded = /^https?:\/\//i.test(url) ? url : `http://${url}`;
    const display = url.replace(/^https?:\/\//i, '');
    links.push({
      url: tco,
      expanded_url: expanded,
      display_url: display.length > 26 ? `${display.slice(0, 25)}…` : display,
      start,
      end: start + tco.length,
    });
  });
  return { shown: shown + text.slice(at), links };
};

/**
 * X appends one t.co link to a tweet with media (the media's page), listed in `entities.urls` with
 * the media key: the text read back is longer than the text posted.
 */
const withMediaLink = (
  shortened: { shown: string; links: TweetLink[] },
  id: string,
  username: string,
  mediaIds: string[],
): { shown: string; links: TweetLink[] } => {
  if (mediaIds.length === 0) return shortened;
  const digest = createHash('sha256')
    .update(`${id}/media`)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '');
  const tco = `https://t.co/${digest.slice(0, 10)}`;
  const prefix = shortened.shown === '' ? '' : `${shortened.shown} `;
  const start = [...prefix].length;
  return {
    shown: `${prefix}${tco}`,
    links: [
      ...shortened.links,
      {
        url: tco,
        expanded_url: `https://x.com/${username}/status/${id}/photo/1`,
        display_url: `pic.x.com/${digest.slice(0, 10)}`,
        start,
        end: start + tco.length,
        media_key: `3_${mediaIds[0]}`,
      },
    ],
  };
};

/** Default lag of the user timeline behind a stored tweet. */
export const DEFAULT_X_TIMELINE_LAG_MS = 3_000;

export interface XSimulatorOptions {
  port?: number;
  holdMs?: number;
  /** How long a stored tweet stays out of the user timeline (default 3 s; tests shorten it). */
  timelineLagMs?: number;
  /** OAuth endpoints and token lifetimes (x/oauth-simulator.ts). */
  oauth?: Parameters<typeof xOAuthSimulator>[0];
  /** Media processing and failure switches to start with (tests change them later too). */
  media?: Partial<XMediaSwitches>;
}

/** What the inspection routes and tests see besides the common simulator. */
export interface XSimulator extends Simulator {
  /** Every media upload, with its alt text and the tweets carrying it. */
  media(): SimMedia[];
  /** Changes the awkward parts (`POST /_sim/x/switches` over HTTP); reset restores the defaults. */
  setSwitches(
    switches: Partial<XMediaSwitches> & {
      dailyLimitSeconds?: number;
      expireUploads?: boolean;
      serverErrorAfterStore?: boolean;
    },
  ): void;
}

export const startXSimulator = async (options: XSimulatorOptions = {}): Promise<XSimulator> => {
  const tweets = new Map<string, StoredTweet>();
  const timelineLagMs = options.timelineLagMs ?? DEFAULT_X_TIMELINE_LAG_MS;
  const mediaSim = createXMediaSim();
  Object.assign(mediaSim.switches, options.media ?? {});
  /** The user's 24-hour tweet cap is spent until then (0: not spent). */
  let dailyLimitedUntil = 0;
  /** The next tweet is stored, then answered 503 by X itself (not a gateway): once. */
  let serverErrorAfterStore = false;
  const setSwitches: XSimulator['setSwitches'] = ({
    dailyLimitSeconds,
    expireUploads,
    serverErrorAfterStore: failNext,
    ...media
  }) => {
    if (failNext !== undefined) serverErrorAfterStore = failNext;
    if (expireUploads) mediaSim.expireAll();
    for (const [key, value] of Object.entries(media)) {
      if (value !== undefined) (mediaSim.switches as unknown as Record<string, unknown>)[key] = value;
    }
    if (dailyLimitSeconds !== undefined) {
      dailyLimitedUntil = dailyLimitSeconds > 0 ? Date.now() + dailyLimitSeconds * 1000 : 0;
    }
  };

  const view = (tweet: StoredTweet, fields: Set<string>) => {
    const data: Record<string, unknown> = {
      id: tweet.id,
      text: escapeText(tweet.shown),
      edit_history_tweet_ids: [tweet.id],
    };
    if (fields.has('entities') && tweet.links.length > 0) data.entities = { urls: tweet.links };
    if (fields.has('created_at')) data.created_at = tweet.createdAt.toISOString();
    if (fields.has('public_metrics')) data.public_metrics = xPublicMetrics(tweet.id, tweet.createdAt);
    if (fields.has('author_id')) data.author_id = tweet.authorId;
    if (fields.has('conversation_id')) data.conversation_id = tweet.conversationId;
    if (fields.has('reply_settings')) data.reply_settings = tweet.replySettings;
    if (fields.has('referenced_tweets') && tweet.inReplyTo) {
      data.referenced_tweets = [{ type: 'replied_to', id: tweet.inReplyTo }];
    }
    if (fields.has('in_reply_to_user_id') && tweet.inReplyTo) {
      const parent = tweets.get(tweet.inReplyTo);
      if (parent) data.in_reply_to_user_id = parent.authorId;
    }
    if (fields.has('attachments') && tweet.mediaIds.length > 0) {
      data.attachments = { media_keys: tweet.mediaIds.map((id) => `3_${id}`) };
    }
    return data;
  };

  const fieldsOf = (ctx: SimContext) =>
    new Set(
      (ctx.query.get('tweet.fields') ?? '')
        .split(',')
        .map((field) => field.trim())
        .filter(Boolean),
    );

  const createTweet = (ctx: SimContext): SimResponse => {
    const user = xUserForToken(ctx.token as string);
    if (Date.now() < dailyLimitedUntil) {
      // The daily cap: the 15-minute window would reset within minutes, the 24-hour one later.
      return rateLimitedAnswer(new Date(Date.now() + 60_000), new Date(dailyLimitedUntil));
    }
    const body = objectOf(ctx.body);
    if (!body) return invalidRequest('Request body must be a JSON object');
    const text = body.text === undefined ? '' : body.text;
    if (typeof text !== 'string') return invalidRequest('$.text: string expected');
    const media = objectOf(body.media);
    const mediaIds = media?.media_ids;
    if (
      media &&
      (!Array.isArray(mediaIds) || !mediaIds.every((id) => typeof id === 'string' && /^\d+$/.test(id)))
    ) {
      return invalidRequest('$.media.media_ids: array of numeric strings expected');
    }
    if (text.trim() === '' && !media) return invalidRequest('Tweet needs text or media', { text: [''] });
    const replySettings = body.reply_settings;
    if (replySettings !== undefined && !REPLY_SETTINGS.includes(replySettings as string)) {
      return invalidRequest(`$.reply_settings: does not have a value in the enumeration [${REPLY_SETTINGS}]`);
    }
    const reply = objectOf(body.reply);
    let parent: StoredTweet | undefined;
    if (body.reply !== undefined) {
      const parentId = reply?.in_reply_to_tweet_id;
      if (typeof parentId !== 'string' || !/^\d+$/.test(parentId)) {
        return invalidRequest('$.reply.in_reply_to_tweet_id: numeric string expected');
      }
      parent = tweets.get(parentId);
      if (!parent || parent.deleted) {
        return problem(
          403,
          'Forbidden',
          'You attempted to reply to a Tweet that is deleted or not visible to you.',
        );
      }
    }
    if (media) {
      const refused = mediaSim.refuseForTweet(mediaIds as string[], user.id);
      if (refused) return refused;
    }
    const outcome = ctx.screen(text, user.id);
    for (const other of tweets.values()) {
      if (!other.deleted && other.authorId === user.id && text !== '' && other.text === text) {
        return problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
      }
    }
    const id = snowflake(X_EPOCH_MS);
    const tweet: StoredTweet = {
      id,
      text,
      ...withMediaLink(shorten(id, text), id, user.username, (mediaIds as string[] | undefined) ?? []),
      authorId: user.id,
      createdAt: new Date(),
      inReplyTo: parent?.id ?? null,
      conversationId: parent?.conversationId ?? id,
      replySettings: typeof replySettings === 'string' ? replySettings : 'everyone',
      mediaIds: (mediaIds as string[] | undefined) ?? [],
      deleted: false,
    };
    tweets.set(id, tweet);
    mediaSim.attach(tweet.mediaIds, id);
    ctx.record({
      kind: parent ? 'reply' : 'post',
      id,
      parentId: parent?.id ?? null,
      rootId: parent ? tweet.conversationId : null,
      text,
      account: user.id,
    });
    if (serverErrorAfterStore && !outcome) {
      serverErrorAfterStore = false;
      return problem(503, 'Service Unavailable', 'Service Unavailable');
    }
    return {
      status: 201,
      body: { data: { id, text: escapeText(tweet.shown), edit_history_tweet_ids: [id] } },
      lost: outcome,
    };
  };

  const deleteTweet = (ctx: SimContext): SimResponse => {
    const user = xUserForToken(ctx.token as string);
    const id = ctx.params.id as string;
    const tweet = tweets.get(id);
    if (!tweet || tweet.deleted) {
      return problem(
        404,
        'Not Found Error',
        `Could not find tweet with id: [${id}].`,
        'https://api.twitter.com/2/problems/resource-not-found',
      );
    }
    if (tweet.authorId !== user.id) {
      return problem(403, 'Forbidden', 'You are not allowed to delete a Tweet you did not create.');
    }
    tweet.deleted = true;
    ctx.record({
      kind: 'delete',
      id,
      parentId: tweet.inReplyTo,
      rootId: tweet.inReplyTo ? tweet.conversationId : null,
      text: null,
      account: user.id,
    });
    return { status: 200, body: { data: { deleted: true } } };
  };

  const getTweet = (ctx: SimContext): SimResponse => {
    const id = ctx.params.id as string;
    const tweet = tweets.get(id);
    if (!tweet || tweet.deleted) {
      // X answers lookups of missing tweets with 200 and an `errors` array.
      return {
        status: 200,
        body: {
          errors: [
            {
              value: id,
              detail: `Could not find tweet with id: [${id}].`,
              title: 'Not Found Error',
              resource_type: 'tweet',
              parameter: 'id',
              resource_id: id,
              type: 'https://api.twitter.com/2/problems/resource-not-found',
            },
          ],
        },
      };
    }
    return { status: 200, body: { data: view(tweet, fieldsOf(ctx)) } };
  };

  const userTweets = (ctx: SimContext): SimResponse => {
    const userId = ctx.params.id as string;
    const maxRaw = ctx.query.get('max_results') ?? '10';
    const max = Number(maxRaw);
    if (!/^\d+$/.test(maxRaw) || max < 5 || max > 100) {
      return invalidRequest(
        `The \`max_results\` query parameter value [${maxRaw}] is not between 5 and 100`,
        {
          max_results: [maxRaw],
        },
      );
    }
    const startRaw = ctx.query.get('start_time');
    const start = startRaw === null ? null : Date.parse(startRaw);
    if (startRaw !== null && (start === null || Number.isNaN(start) || !/Z$|[+-]\d\d:\d\d$/.test(startRaw))) {
      return invalidRequest(
        `Invalid 'start_time':'${startRaw}'. 'start_time' must be a valid RFC3339 date-time`,
        {
          start_time: [startRaw],
        },
      );
    }
    // The timeline is eventually consistent: what was stored within the lag is not in it yet.
    const visibleUntil = Date.now() - timelineLagMs;
    const all = [...tweets.values()]
      .filter((tweet) => tweet.authorId === userId && !tweet.deleted)
      .filter((tweet) => tweet.createdAt.getTime() <= visibleUntil)
      .filter((tweet) => start === null || tweet.createdAt.getTime() >= start)
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const token = ctx.query.get('pagination_token');
    let offset = 0;
    if (token !== null) {
      offset = Number.parseInt(token, 36);
      if (!Number.isInteger(offset) || offset < 0) return invalidRequest('Invalid pagination_token');
    }
    const page = all.slice(offset, offset + max);
    if (page.length === 0) return { status: 200, body: { meta: { result_count: 0 } } };
    const fields = fieldsOf(ctx);
    const meta: Record<string, unknown> = {
      result_count: page.length,
      newest_id: page[0]?.id,
      oldest_id: page[page.length - 1]?.id,
    };
    if (offset + max < all.length) meta.next_token = (offset + max).toString(36);
    return { status: 200, body: { data: page.map((tweet) => view(tweet, fields)), meta } };
  };

  const userOf = (ctx: SimContext) => xUserForToken(ctx.token as string).id;
  const simulator = await startSimulator({
    name: 'X',
    errors: xErrors,
    // A token the OAuth half issued holds its grant's scopes; X answers 403 for a missing one.
    scopesOf: xIssuedScopes,
    spec: requestSpecFor('x'),
    port: options.port,
    holdMs: options.holdMs,
    oauth: xOAuthSimulator(options.oauth),
    onReset: () => {
      tweets.clear();
      mediaSim.reset();
      Object.assign(mediaSim.switches, options.media ?? {});
      dailyLimitedUntil = 0;
      serverErrorAfterStore = false;
    },
    routes: [
      ...mediaSim.routes(userOf).map((route) => ({ ...route, scopes: MEDIA_SCOPES })),
      // Inspection and switches, without auth like the framework's own `/_sim/` routes.
      {
        method: 'GET',
        path: '/_sim/x/media',
        auth: false,
        handler: () => ({ status: 200, body: { data: mediaSim.list() } }),
      },
      {
        method: 'POST',
        path: '/_sim/x/switches',
        auth: false,
        handler: (ctx) => {
          const body = objectOf(ctx.body);
          const known: Record<string, 'boolean' | 'number' | 'number|null'> = {
            processingFails: 'boolean',
            processingPolls: 'number',
            checkAfterSecs: 'number',
            failAppendAt: 'number|null',
            lifetimeSeconds: 'number',
            dailyLimitSeconds: 'number',
            expireUploads: 'boolean',
            serverErrorAfterStore: 'boolean',
          };
          if (!body) return { status: 400, body: { message: 'Send a JSON object of switches' } };
          for (const [key, value] of Object.entries(body)) {
            const type = known[key];
            const fits =
              type !== undefined &&
              (typeof value === type.split('|')[0] || (type.endsWith('null') && value === null));
            if (!fits) return { status: 400, body: { message: `Unknown switch or bad value: ${key}` } };
          }
          setSwitches(body);
          return { status: 204 };
        },
      },
      ...(
        [
          { method: 'POST', path: '/2/tweets', handler: createTweet },
          { method: 'DELETE', path: '/2/tweets/:id', handler: deleteTweet },
          { method: 'GET', path: '/2/tweets/:id', handler: getTweet },
          {
            method: 'GET',
            path: '/2/users/me',
            handler: (ctx) => ({ status: 200, body: { data: xUserForToken(ctx.token as string) } }),
          },
          { method: 'GET', path: '/2/users/:id/tweets', handler: userTweets },
        ] as SimRoute[]
      ).map((route) => ({ ...route, scopes: scopesOf(route) })),
    ],
  });
  return { ...simulator, media: () => mediaSim.list(), setSwitches };
};
