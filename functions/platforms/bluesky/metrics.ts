import { type MetricsInput, type MetricsReading, NetworkError } from '../../ports/network-client.ts';
import { type HttpTransport, sendOrClassify } from '../network-http.ts';
import { classifyBlueskyFailure } from './client.ts';

/** The post view's counts under the stable names (replies are Bluesky's comments). */
const BLUESKY_METRICS = {
  likeCount: 'likes',
  replyCount: 'comments',
  repostCount: 'reposts',
  quoteCount: 'quotes',
} as const;

/**
 * `app.bsky.feed.getPosts?uris=<at-uri>` through the account's PDS (which proxies `app.bsky.*` to
 * the AppView). Bluesky reports no views. A post that is gone is simply absent from `posts`.
 */
export const readBlueskyMetrics = async (
  connection: { baseUrl: string; timeoutMs: number; transport: HttpTransport },
  input: MetricsInput,
): Promise<MetricsReading> => {
  const uri = input.block.meta.uri ?? input.block.remoteId;
  const answer = await sendOrClassify(
    {
      method: 'GET',
      url: `${connection.baseUrl}/xrpc/app.bsky.feed.getPosts?${new URLSearchParams({ uris: uri })}`,
      headers: { authorization: `Bearer ${input.credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
      timeoutMs: connection.timeoutMs,
    },
    classifyBlueskyFailure,
    undefined,
    connection.transport,
  );
  const post = (answer.body as { posts?: Record<string, unknown>[] } | undefined)?.posts?.find(
    (p) => p.uri === uri,
  );
  if (!post) throw new NetworkError('permanent', `Bluesky no longer shows ${uri}`, { status: answer.status });
  const reading: MetricsReading = {};
  for (const [name, stable] of Object.entries(BLUESKY_METRICS)) {
    const value = post[name];
    if (typeof value === 'number') reading[stable] = value;
  }
  return reading;
};
