import { createHash } from 'node:crypto';
import { headerOf, objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { type RedditScope, redditError, WINDOW_CALLS, WINDOW_SECONDS } from './errors.ts';
import { redditOAuthSimulator, redditScopeRefusal } from './oauth.ts';
import { permalinkOf, type SimRedditAsset, type SimRedditComment, type SimRedditPost } from './records.ts';
import { DEFAULT_SWITCHES, type RedditSimSwitches, type RedditSimulatorOptions } from './switches.ts';
import { redditSocketHost, type SocketOutcome } from './websocket.ts';

/** The Reddit simulator's in-memory site: posts, comments, media, sockets, switches, rate windows, and what every route shares (the API wrapper, listings). */
export const redditState = async (options: RedditSimulatorOptions) => {
  const posts = new Map<string, SimRedditPost>();
  const comments = new Map<string, SimRedditComment>();
  const assets = new Map<string, SimRedditAsset>();
  /** Media posts' sockets by the token in their `websocket_url`. */
  const sockets = new Map<string, { postId: string; processedAt: number; fails: boolean }>();
  const switches: RedditSimSwitches = { ...DEFAULT_SWITCHES, ...(options.switches ?? {}) };
  let postLimitedUntil = 0;
  const setSwitches = (next: Partial<RedditSimSwitches>) => {
    Object.assign(switches, next);
    if (next.postLimitSeconds !== undefined) {
      postLimitedUntil = next.postLimitSeconds > 0 ? Date.now() + next.postLimitSeconds * 1000 : 0;
    }
  };
  setSwitches(switches);
  /** Calls per token in the current 10-minute window, for the rate-limit headers. */
  const windows = new Map<string, { start: number; used: number }>();

  // Tokens not issued by the simulator's OAuth mount (channels connected with a made-up token)
  // belong to an account named after the token.
  const oauth = redditOAuthSimulator({
    ...(options.oauth ?? {}),
    accountOf: (token) =>
      /^(expired|revoked)/.test(token)
        ? null
        : {
            id: createHash('sha256').update(token).digest('hex').slice(0, 8),
            name: `sim_${createHash('sha256').update(token).digest('hex').slice(0, 12)}`,
          },
  });
  const userOf = (ctx: SimContext): string => oauth.accountOf(ctx.token as string)?.name ?? 'unknown';

  /** A media post's socket: its message once the post is processed (websocket-simulator.ts). */
  const socketOutcome = (token: string): SocketOutcome | Promise<SocketOutcome> => {
    const entry = sockets.get(token);
    if (!entry || switches.socket === 'refuse') return 'refuse';
    if (switches.socket === 'close') return 'close';
    const message = (): SocketOutcome => {
      const post = posts.get(entry.postId);
      if (entry.fails || !post) {
        // PRAW reads only `type` of a failure (MediaPostFailed); the payload here is illustrative.
        return { message: { type: 'failed', payload: { message: 'Media processing failed' } } };
      }
      return {
        message: { type: 'success', payload: { redirect: `https://www.reddit.com${permalinkOf(post)}` } },
      };
    };
    const wait = entry.processedAt - Date.now();
    if (wait <= 0) return message();
    return new Promise((resolve) => setTimeout(() => resolve(message()), wait).unref());
  };
  const socketHost = redditSocketHost(socketOutcome);
  await socketHost.start();

  const rateHeaders = (ctx: SimContext): Record<string, number> => {
    const now = Date.now();
    const key = ctx.token ?? '';
    let window = windows.get(key);
    if (!window || now - window.start >= WINDOW_SECONDS * 1000) {
      window = { start: now - (now % (WINDOW_SECONDS * 1000)), used: 0 };
      windows.set(key, window);
    }
    window.used += 1;
    return {
      'x-ratelimit-used': window.used,
      'x-ratelimit-remaining': Math.max(0, WINDOW_CALLS - window.used),
      'x-ratelimit-reset': Math.max(1, Math.ceil((window.start + WINDOW_SECONDS * 1000 - now) / 1000)),
    };
  };

  /**
   * Every API route: a User-Agent is required, the token must hold the route's OAuth scope (as
   * https://www.reddit.com/dev/api lists them per endpoint; a token the OAuth half did not issue
   * carries no scope list and passes), and the answer carries the rate-limit headers.
   */
  const api =
    (scope: RedditScope, handler: (ctx: SimContext) => SimResponse | Promise<SimResponse>) =>
    async (ctx: SimContext): Promise<SimResponse> => {
      const agent = headerOf(ctx.headers, 'user-agent') ?? '';
      if (agent.trim() === '' || /^(node|undici|python-requests|curl)/i.test(agent)) {
        return { ...redditError(429), headers: { 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': 600 } };
      }
      const headers = rateHeaders(ctx);
      const scopes = oauth.scopesOf(ctx.token ?? '');
      if (scopes && !scopes.includes(scope)) {
        const refusal = redditScopeRefusal();
        return { ...refusal, headers: { ...headers, ...(refusal.headers ?? {}) } };
      }
      const answer = await handler(ctx);
      return { ...answer, headers: { ...headers, ...(answer.headers ?? {}) } };
    };

  const form = (ctx: SimContext): Record<string, string> => {
    const body = objectOf(ctx.body);
    if (!body) return {};
    return Object.fromEntries(
      Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  };

  const visible = (post: SimRedditPost, now = Date.now()) =>
    !post.deleted && post.visibleAt !== null && post.visibleAt <= now;

  const postData = (post: SimRedditPost) => ({
    id: post.id,
    name: post.name,
    author: post.author,
    subreddit: post.subreddit,
    title: post.title,
    selftext: post.deleted ? '[deleted]' : post.selftext,
    is_self: post.kind === 'self',
    is_gallery: post.kind === 'gallery',
    url: post.url,
    permalink: permalinkOf(post),
    created_utc: post.createdUtc,
    link_flair_template_id: post.flairId,
    link_flair_text: post.flairText,
    over_18: post.nsfw,
    spoiler: post.spoiler,
    post_hint:
      post.kind === 'self'
        ? 'self'
        : post.kind === 'link'
          ? 'link'
          : post.kind === 'image'
            ? 'image'
            : 'hosted:video',
  });

  const commentData = (comment: SimRedditComment, post: SimRedditPost | undefined) => ({
    id: comment.id,
    name: comment.name,
    author: comment.author,
    body: comment.body,
    link_id: comment.linkId,
    parent_id: comment.parentId,
    created_utc: comment.createdUtc,
    score: comment.score,
    ups: comment.score,
    score_hidden: false,
    permalink: post ? `${permalinkOf(post)}${comment.id}/` : `/comments/${comment.id}/`,
  });

  const listing = (children: unknown[]) => ({
    kind: 'Listing',
    data: { after: null, before: null, dist: children.length, children },
  });

  const firstRead = new Map<string, number>();
  /** Called with each post once stored (the comment seeds hook in here). */
  const onStored: ((post: SimRedditPost) => void)[] = [];
  /** When the account's posting limit ends (0: not limited). */
  const postLimitEnd = () => postLimitedUntil;
  /** A reset lifts the posting limit. */
  const clearPostLimit = () => {
    postLimitedUntil = 0;
  };
  return {
    posts,
    comments,
    assets,
    sockets,
    switches,
    setSwitches,
    windows,
    oauth,
    userOf,
    socketOutcome,
    socketHost,
    rateHeaders,
    api,
    form,
    visible,
    postData,
    commentData,
    listing,
    firstRead,
    onStored,
    postLimitEnd,
    clearPostLimit,
  };
};

export type RedditState = Awaited<ReturnType<typeof redditState>>;
