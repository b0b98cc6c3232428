import type { MetricsInput, MetricsReading, NetworkCredentials } from '../../ports/network-client.ts';
import type { HttpAnswer } from '../network-http.ts';

/**
 * A Vimeo video's engagement: `GET /videos/{id}?fields=stats.plays,metadata.connections.likes.total,
 * metadata.connections.comments.total`. `stats.plays` (views) is null when the owner hides the
 * play count: it is then left out, never 0.
 */
export const readVimeoMetrics = async (
  get: (credentials: NetworkCredentials, path: string) => Promise<HttpAnswer>,
  input: MetricsInput,
): Promise<MetricsReading> => {
  const answer = await get(
    input.credentials,
    `/videos/${encodeURIComponent(input.block.remoteId)}?fields=stats.plays,metadata.connections.likes.total,metadata.connections.comments.total`,
  );
  const body = answer.body as
    | {
        stats?: { plays?: unknown };
        metadata?: { connections?: { likes?: { total?: unknown }; comments?: { total?: unknown } } };
      }
    | undefined;
  const reading: MetricsReading = {};
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const views = count(body?.stats?.plays);
  const likes = count(body?.metadata?.connections?.likes?.total);
  const comments = count(body?.metadata?.connections?.comments?.total);
  if (views !== undefined) reading.views = views;
  if (likes !== undefined) reading.likes = likes;
  if (comments !== undefined) reading.comments = comments;
  return reading;
};
