import { randomBytes } from 'node:crypto';
import { simTokenOf } from '../../functions/ports/network-client.ts';
import {
  type LostAnswer,
  objectOf,
  type SimContext,
  SimHttpError,
  type SimResponse,
} from '../framework/framework.ts';
import { ok, tiktokError, tiktokErrors } from './errors.ts';
import { chunkRuleError, MAX_TITLE, PRIVACY_LEVELS } from './limits.ts';
import type { SimVideo } from './records.ts';
import type { TikTokState } from './state.ts';
import type { SimUpload } from './upload.ts';

/** Posting: creator info and `video/init` (FILE_UPLOAD and PULL_FROM_URL). */
export const tiktokPublishRoutes = (s: TikTokState) => {
  const {
    initsPerMinute,
    dailyPostCap,
    uploadUrlLifetimeMs,
    uploads,
    videos,
    initsByToken,
    tuning,
    accountOf,
  } = s;

  const creatorInfo = (ctx: SimContext): SimResponse => {
    const account = accountOf(ctx.token as string);
    return ok({
      creator_avatar_url: `https://p16-sign.tiktokcdn-us.com/sim/${account}.jpeg`,
      creator_username: `sim_${account.slice(-8)}`,
      creator_nickname: 'Simulated creator',
      privacy_level_options: tuning.creator.privateAccount
        ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
        : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      comment_disabled: tuning.creator.commentDisabled,
      duet_disabled: tuning.creator.duetDisabled,
      stitch_disabled: tuning.creator.stitchDisabled,
      max_video_post_duration_sec: tuning.creator.maxVideoPostDurationSec,
    });
  };

  const init = (ctx: SimContext): SimResponse => {
    const token = ctx.token as string;
    const account = accountOf(token);
    // 6 inits per minute per token, counted whether or not the init succeeds.
    const now = Date.now();
    const recent = (initsByToken.get(token) ?? []).filter((at) => at > now - 60_000);
    if (recent.length >= initsPerMinute) {
      initsByToken.set(token, recent);
      throw new SimHttpError(tiktokErrors.rateLimited(new Date((recent[0] as number) + 60_000), 60, 'short'));
    }
    recent.push(now);
    initsByToken.set(token, recent);

    const body = objectOf(ctx.body);
    const post = objectOf(body?.post_info);
    const source = objectOf(body?.source_info);
    if (!post || !source) return tiktokErrors.badRequest('post_info and source_info are required');
    const title = typeof post.title === 'string' ? post.title : '';
    if ([...title].length > MAX_TITLE)
      return tiktokErrors.badRequest(`post_info.title is longer than ${MAX_TITLE} characters`);
    const privacy = post.privacy_level;
    if (typeof privacy !== 'string' || !PRIVACY_LEVELS.includes(privacy)) {
      return tiktokErrors.badRequest('post_info.privacy_level is required and must be a privacy level');
    }
    for (const key of ['disable_comment', 'disable_duet', 'disable_stitch']) {
      if (post[key] !== undefined && typeof post[key] !== 'boolean') {
        return tiktokErrors.badRequest(`post_info.${key} must be a boolean`);
      }
    }
    const cover = post.video_cover_timestamp_ms;
    if (cover !== undefined && (typeof cover !== 'number' || !Number.isInteger(cover) || cover < 0)) {
      return tiktokErrors.badRequest('post_info.video_cover_timestamp_ms must be a non-negative integer');
    }
    const offered = tuning.creator.privateAccount
      ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
      : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
    if (!tuning.audited && privacy !== 'SELF_ONLY') {
      return tiktokError(
        403,
        'unaudited_client_can_only_post_to_private_accounts',
        'Please review our integration guidelines at https://developers.tiktok.com/doc/content-sharing-guidelines/',
      );
    }
    if (!offered.includes(privacy)) {
      return tiktokError(
        400,
        'privacy_level_option_mismatch',
        `privacy_level ${privacy} is not one of the creator's options`,
      );
    }
    const published = [...videos.values()].filter(
      (video) => video.account === account && video.createdAt > now - 86_400_000 && video.status !== 'FAILED',
    ).length;
    if (published >= dailyPostCap) {
      return tiktokError(
        403,
        'spam_risk_too_many_posts',
        'The daily post cap from the API is reached for the current user.',
      );
    }
    let lost: LostAnswer | null = null;
    // The sim tokens on the title: refusals here; lost answers on the last chunk.
    if (simTokenOf(title)) lost = ctx.screen(title, account);

    const publishId = `v_pub_file~v2-1.${now}${randomBytes(4).readUInt32BE(0)}`;
    const video: SimVideo = {
      publishId,
      account,
      token,
      title,
      privacyLevel: privacy,
      disableComment: post.disable_comment === true,
      disableDuet: post.disable_duet === true,
      disableStitch: post.disable_stitch === true,
      videoCoverTimestampMs: typeof cover === 'number' ? cover : null,
      source: 'FILE_UPLOAD',
      upload: null,
      status: 'PROCESSING_UPLOAD',
      failReason: null,
      completedAt: null,
      videoId: null,
      createdAt: now,
      publishedAt: null,
    };
    if (source.source === 'PULL_FROM_URL') {
      const url = typeof source.video_url === 'string' ? source.video_url : '';
      let host = '';
      try {
        host = new URL(url).hostname;
      } catch {
        return tiktokErrors.badRequest('source_info.video_url must be a URL');
      }
      if (!tuning.verifiedDomains.includes(host)) {
        return tiktokError(
          403,
          'url_ownership_unverified',
          `The domain of video_url (${host}) is not verified for this app.`,
        );
      }
      video.source = 'PULL_FROM_URL';
      video.status = 'PROCESSING_DOWNLOAD';
      video.completedAt = now;
      videos.set(publishId, video);
      return ok({ publish_id: publishId });
    }
    if (source.source !== 'FILE_UPLOAD') {
      return tiktokErrors.badRequest('source_info.source must be FILE_UPLOAD or PULL_FROM_URL');
    }
    const refusal = chunkRuleError(source.video_size, source.chunk_size, source.total_chunk_count);
    if (refusal) return tiktokErrors.badRequest(refusal);
    const upload: SimUpload = {
      publishId,
      uploadId: randomBytes(12).toString('hex'),
      uploadToken: randomBytes(16).toString('hex'),
      videoSize: source.video_size as number,
      chunkSize: source.chunk_size as number,
      totalChunkCount: source.total_chunk_count as number,
      uploadedBytes: 0,
      droppedBytes: 0,
      interruptions: 0,
      hash: uploads.newHash(),
      sha256: null,
      mimeType: null,
      expiresAt: now + uploadUrlLifetimeMs,
      lost,
      onComplete: () => {
        video.completedAt = Date.now();
      },
    };
    video.upload = upload;
    videos.set(publishId, video);
    uploads.uploads.set(upload.uploadId, upload);
    return ok({ publish_id: publishId, upload_url: uploads.urlOf(upload) });
  };

  return { creatorInfo, init };
};
