import { type MetricsInput, type MetricsReading, NetworkError } from '../../ports/network-client.ts';
import { tiktokCall } from './client.ts';

/** TikTok's names for the counts `POST /v2/video/query/` returns, and Herald's. */
const FIELDS: [string, keyof MetricsReading][] = [
  ['view_count', 'views'],
  ['like_count', 'likes'],
  ['comment_count', 'comments'],
  ['share_count', 'shares'],
];

/**
 * A video's counts: `POST /v2/video/query/?fields=id,like_count,comment_count,share_count,view_count`
 * with `{ filters: { video_ids: [id] } }` (scope `video.list`). The video id comes with
 * PUBLISH_COMPLETE for public videos only; a block published before TikTok gave one asks
 * status/fetch again, and a video TikTok gives no id for (a private one) reports nothing.
 */
export const readTikTokMetrics = async (
  connection: { baseUrl: string; timeoutMs: number },
  input: MetricsInput,
  status: (publishId: string) => Promise<{ postIds: string[] }>,
): Promise<MetricsReading> => {
  const { block } = input;
  let videoId = block.meta.videoId ?? (/^\d+$/.test(block.remoteId) ? block.remoteId : undefined);
  if (!videoId && block.meta.publishId) videoId = (await status(block.meta.publishId)).postIds[0];
  if (!videoId) return {};
  const answer = await tiktokCall(
    connection,
    input.credentials,
    `/v2/video/query/?fields=id,${FIELDS.map(([name]) => name).join(',')}`,
    { filters: { video_ids: [videoId] } },
  );
  const videos = (answer.body as { data?: { videos?: unknown } } | undefined)?.data?.videos;
  const video = (Array.isArray(videos) ? videos : []).find(
    (candidate) => String((candidate as { id?: unknown }).id) === videoId,
  ) as Record<string, unknown> | undefined;
  if (!video) {
    throw new NetworkError('permanent', `TikTok no longer shows video ${videoId}.`, {
      status: answer.status,
    });
  }
  const reading: MetricsReading = {};
  for (const [field, name] of FIELDS) {
    if (typeof video[field] === 'number') reading[name] = video[field] as number;
  }
  return reading;
};
