import type { SimContext } from '../framework/framework.ts';
import { createXMediaSim } from './media.ts';
import { xPublicMetrics } from './metrics.ts';
import type { XUser } from './oauth.ts';
import {
  DEFAULT_X_SEARCH_LAG_MS,
  DEFAULT_X_TIMELINE_LAG_MS,
  type StoredTweet,
  X_SEARCH_LIMIT_PER_WINDOW,
  type XSimulator,
  type XSimulatorOptions,
} from './records.ts';
import { escapeText } from './text.ts';

/** The X simulator's in-memory tweets, its media half, its fault switches, and the views every route shares. */
export const xState = (options: XSimulatorOptions) => {
  const tweets = new Map<string, StoredTweet>();
  /** Every author seen (token users and commenters), for `expansions=author_id`. */
  const users = new Map<string, XUser>();
  /** Recent searches per user in the current 15-minute window: user id → window start and count. */
  const searches = new Map<string, { since: number; count: number }>();
  const timelineLagMs = options.timelineLagMs ?? DEFAULT_X_TIMELINE_LAG_MS;
  const mediaSim = createXMediaSim();
  Object.assign(mediaSim.switches, options.media ?? {});
  const faults = {
    /** The user's 24-hour tweet cap is spent until then (0: not spent). */
    dailyLimitedUntil: 0,
    /** The next tweet is stored, then answered 503 by X itself (not a gateway): once. */
    serverErrorAfterStore: false,
    /** Recent search's lag behind a tweet made, ms. */
    searchLagMs: options.searchLagMs ?? DEFAULT_X_SEARCH_LAG_MS,
    /** Recent searches per user and 15-minute window. */
    searchLimit: X_SEARCH_LIMIT_PER_WINDOW,
  };
  const setSwitches: XSimulator['setSwitches'] = ({
    dailyLimitSeconds,
    expireUploads,
    serverErrorAfterStore: failNext,
    searchLagMs,
    searchLimit,
    ...media
  }) => {
    if (failNext !== undefined) faults.serverErrorAfterStore = failNext;
    if (searchLagMs !== undefined) faults.searchLagMs = searchLagMs;
    if (searchLimit !== undefined) faults.searchLimit = searchLimit;
    if (expireUploads) mediaSim.expireAll();
    for (const [key, value] of Object.entries(media)) {
      if (value !== undefined) (mediaSim.switches as unknown as Record<string, unknown>)[key] = value;
    }
    if (dailyLimitSeconds !== undefined) {
      faults.dailyLimitedUntil = dailyLimitSeconds > 0 ? Date.now() + dailyLimitSeconds * 1000 : 0;
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

  /** `includes.users` for `expansions=author_id` (X gives `id`, `name` and `username` by default). */
  const includedUsers = (ctx: SimContext, shown: StoredTweet[]) => {
    if (!(ctx.query.get('expansions') ?? '').split(',').includes('author_id')) return null;
    return {
      users: [...new Set(shown.map((tweet) => tweet.authorId))].flatMap((id) => {
        const user = users.get(id);
        return user ? [{ id: user.id, name: user.name, username: user.username }] : [];
      }),
    };
  };

  return {
    tweets,
    users,
    includedUsers,
    searches,
    timelineLagMs,
    mediaSim,
    faults,
    setSwitches,
    view,
    fieldsOf,
  };
};

export type XState = ReturnType<typeof xState>;
