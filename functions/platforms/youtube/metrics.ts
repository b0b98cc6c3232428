import { type MetricsReading, NetworkError } from '../../ports/network-client.ts';
import type { HttpAnswer } from '../network-http.ts';

/**
 * YouTube's `statistics` names under the stable names. `favoriteCount` is left out: YouTube
 * deprecated favorites and reports it as 0 for every video. `dislikeCount` is private since 2021.
 * The counts come as decimal strings; a count YouTube hides (a hidden like count) is absent.
 */
const YOUTUBE_METRICS = {
  viewCount: 'views',
  likeCount: 'likes',
  commentCount: 'comments',
} as const;

/** `GET /youtube/v3/videos?part=statistics&id=` (1 quota unit). */
export const readYouTubeMetrics = async (
  call: (request: { method: 'GET'; path: string }) => Promise<HttpAnswer>,
  videoId: string,
): Promise<MetricsReading> => {
  const answer = await call({
    method: 'GET',
    path: `/youtube/v3/videos?part=statistics&id=${encodeURIComponent(videoId)}`,
  });
  const items = (answer.body as { items?: unknown } | undefined)?.items;
  const video = Array.isArray(items)
    ? (items[0] as { statistics?: Record<string, unknown> } | undefined)
    : undefined;
  // A deleted (or never processed) video is missing from the list.
  if (!video) {
    throw new NetworkError('permanent', `YouTube no longer shows video ${videoId}`, {
      status: answer.status,
    });
  }
  const reading: MetricsReading = {};
  for (const [name, stable] of Object.entries(YOUTUBE_METRICS)) {
    const raw = video.statistics?.[name];
    const value =
      typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
    if (Number.isFinite(value)) reading[stable] = value;
  }
  return reading;
};
