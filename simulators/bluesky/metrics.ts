import type { SimContext, SimResponse } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';

const badRequest = (message: string): SimResponse => ({
  status: 400,
  body: { error: 'InvalidRequest', message },
});

/**
 * The simulator's `app.bsky.feed.getPosts`: up to 25 `uris`; posts that do not exist are left
 * out of `posts` (no error), as on the AppView; counts grow with the post's age.
 */
export const getPosts = (
  records: ReadonlyMap<string, { uri: string; cid: string; value: Record<string, unknown> }>,
  ctx: SimContext,
): SimResponse => {
  const uris = ctx.query.getAll('uris');
  if (uris.length === 0) return badRequest('Error: Params must have the property "uris"');
  if (uris.length > 25) return badRequest('Error: uris must not have more than 25 elements');
  const posts = uris.flatMap((uri) => {
    const key = uri.replace(/^at:\/\//, '');
    const stored = records.get(key);
    if (!stored) return [];
    const createdAt = new Date(typeof stored.value.createdAt === 'string' ? stored.value.createdAt : 0);
    const m = simulatorMetrics('bluesky', stored.uri, createdAt);
    return [
      {
        uri: stored.uri,
        cid: stored.cid,
        author: { did: key.split('/')[0] },
        record: stored.value,
        likeCount: m.likes ?? 0,
        repostCount: m.reposts ?? 0,
        replyCount: m.comments ?? 0,
        quoteCount: m.quotes ?? 0,
        indexedAt: createdAt.toISOString(),
      },
    ];
  });
  return { status: 200, body: { posts } };
};
