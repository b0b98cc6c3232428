import { seedComments, simCommentRoutes } from '../framework/comments.ts';
import { objectOf, type SimContext, type SimRoute, startSimulator } from '../framework/framework.ts';
import { requestSpecFor } from '../framework/spec-validation.ts';
import { MEDIA_SCOPES, scopesOf, xErrors } from './errors.ts';
import { xIssuedScopes, xOAuthSimulator } from './oauth.ts';
import {
  DEFAULT_X_SEARCH_LAG_MS,
  X_SEARCH_LIMIT_PER_WINDOW,
  type XSimulator,
  type XSimulatorOptions,
} from './records.ts';
import { xCommentRoutes } from './routes-comments.ts';
import { xTweetRoutes } from './routes-tweets.ts';
import { xState } from './state.ts';
import { xUserForToken } from './text.ts';

export { xErrors } from './errors.ts';
export {
  DEFAULT_X_SEARCH_LAG_MS,
  DEFAULT_X_TIMELINE_LAG_MS,
  type XSimulator,
  type XSimulatorOptions,
} from './records.ts';
export { xIdForHandle } from './routes-comments.ts';
export { xUserForToken } from './text.ts';
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
 *
 * Comments (routes-comments.ts): other accounts' replies come through the common hooks
 * (`POST /_sim/comments`, `POST /_sim/comments/state`; a tweet with `sim:comments` gets three), and
 * a conversation is read with `GET /2/tweets/search/recent?query=conversation_id:<id>`, which lags
 * (`searchLagMs`), reaches back 7 days only and has its own rate limit (`searchLimit` per
 * 15 minutes).
 */

export const startXSimulator = async (options: XSimulatorOptions = {}): Promise<XSimulator> => {
  const s = xState(options);
  const { tweets, mediaSim, faults, setSwitches } = s;
  const comments = xCommentRoutes(s);
  const { createTweet, deleteTweet, getTweet, userTweets } = xTweetRoutes(s, (tweet) =>
    seedComments(comments.store, tweet.id, tweet.text, tweet.createdAt),
  );
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
      faults.dailyLimitedUntil = 0;
      faults.serverErrorAfterStore = false;
      faults.searchLagMs = options.searchLagMs ?? DEFAULT_X_SEARCH_LAG_MS;
      faults.searchLimit = X_SEARCH_LIMIT_PER_WINDOW;
      s.users.clear();
      s.searches.clear();
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
            searchLagMs: 'number',
            searchLimit: 'number',
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
      ...simCommentRoutes(comments.store),
      ...(
        [
          { method: 'POST', path: '/2/tweets', handler: createTweet },
          {
            method: 'GET',
            path: '/2/tweets/search/recent',
            handler: (ctx) => comments.searchRecent(ctx, userOf(ctx)),
          },
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
