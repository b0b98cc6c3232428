import { objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { ok, tiktokErrors } from './errors.ts';
import { postIdJson } from './limits.ts';
import type { TikTokState } from './state.ts';

/** After posting: the publish status and the creator's videos (`video/query`). */
export const tiktokStatusRoutes = (s: TikTokState) => {
  const { videos, accountOf, settle } = s;

  const statusFetch = (ctx: SimContext): SimResponse => {
    const publishId = objectOf(ctx.body)?.publish_id;
    const video = typeof publishId === 'string' ? videos.get(publishId) : undefined;
    if (!video || video.account !== accountOf(ctx.token as string)) {
      return tiktokErrors.badRequest(`publish_id ${String(publishId)} does not exist`);
    }
    settle(video, ctx.record);
    return ok({
      status: video.status,
      ...(video.status === 'FAILED' ? { fail_reason: video.failReason } : {}),
      publicaly_available_post_id:
        video.status === 'PUBLISH_COMPLETE' && video.privacyLevel === 'PUBLIC_TO_EVERYONE' && video.videoId
          ? [postIdJson(video.videoId)]
          : [],
      uploaded_bytes: video.upload?.uploadedBytes ?? 0,
    });
  };

  const videoQuery = (ctx: SimContext): SimResponse => {
    const fields = (ctx.query.get('fields') ?? '').split(',').filter((field) => field !== '');
    if (fields.length === 0) return tiktokErrors.badRequest('fields is required');
    const ids = objectOf(objectOf(ctx.body)?.filters)?.video_ids;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 20) {
      return tiktokErrors.badRequest('filters.video_ids must list 1 to 20 video ids');
    }
    const account = accountOf(ctx.token as string);
    for (const video of videos.values()) settle(video, ctx.record);
    const found = [...videos.values()].filter(
      (video) =>
        video.videoId !== null && video.account === account && ids.map(String).includes(video.videoId),
    );
    return ok({
      videos: found.map((video) => {
        const m = simulatorMetrics(
          'tiktok',
          video.videoId as string,
          new Date(video.publishedAt ?? video.createdAt),
        );
        const all: Record<string, unknown> = {
          id: video.videoId,
          title: video.title,
          create_time: Math.floor(video.createdAt / 1000),
          like_count: m.likes ?? 0,
          comment_count: m.comments ?? 0,
          share_count: m.shares ?? 0,
          view_count: m.views ?? 0,
        };
        return Object.fromEntries(fields.filter((field) => field in all).map((field) => [field, all[field]]));
      }),
      cursor: 0,
      has_more: false,
    });
  };

  return { statusFetch, videoQuery };
};
