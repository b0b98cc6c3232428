import { simulatorMetrics } from '../framework/metrics.ts';

/** The simulator's `public_metrics` of a tweet: plausible counts that grow with its age, in X's names. */
export const xPublicMetrics = (id: string, createdAt: Date) => {
  const m = simulatorMetrics('x', id, createdAt);
  return {
    retweet_count: m.reposts ?? 0,
    reply_count: m.comments ?? 0,
    like_count: m.likes ?? 0,
    quote_count: m.quotes ?? 0,
    bookmark_count: m.bookmarks ?? 0,
    impression_count: m.views ?? 0,
  };
};
