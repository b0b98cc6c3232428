import { createHash } from 'node:crypto';
import { objectOf, type SimContext, SimHttpError } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { SimProjectAudit } from './audit.ts';
import { googleError, PRIVACY, YOUTUBE_CATEGORY_IDS } from './errors.ts';
import { videoIdOf } from './multipart.ts';
import { youtubeOAuthSimulator } from './oauth.ts';
import type { SimYouTubeVideo, YouTubeSimulatorOptions } from './records.ts';
import { requireYouTubeScope, type YouTubeMethod } from './scopes.ts';
import { resumableUploads, type UploadSession } from './upload.ts';

/** The YouTube simulator's in-memory videos, uploads, OAuth and audit halves, its live switches, and what every route shares. */
export const youtubeState = (options: YouTubeSimulatorOptions) => {
  const processingMs = options.processingMs ?? 300;
  const videos = new Map<string, SimYouTubeVideo>();
  // --- Grants (issue 26): the simulator's clock, the project's audit, the scopes of each route. ---
  /**
   * What changes while it runs: the clock's offset (`POST /_sim/youtube/clock`), the quota switch,
   * the next processing outcome, and the inspection log's recorder (known from the first request).
   */
  const live: {
    clockOffsetMs: number;
    quotaExceeded: boolean;
    nextOutcome: 'failed' | 'rejected' | null;
    record: SimContext['record'] | null;
  } = { clockOffsetMs: 0, quotaExceeded: false, nextOutcome: null, record: null };
  const oauth = youtubeOAuthSimulator({
    ...options.oauth,
    now: () => Date.now() + live.clockOffsetMs,
    ...(options.refreshIdleSeconds !== undefined ? { refreshIdleSeconds: options.refreshIdleSeconds } : {}),
  });
  const audit = new SimProjectAudit(options.audited ?? false);
  const requireScope = (ctx: SimContext, method: YouTubeMethod) =>
    requireYouTubeScope(oauth.scopesOf, ctx.token, method);
  // --- end of grants ---

  /** The channel behind the request's token: the OAuth grant's, else one derived from the token. */
  const channelOf = (ctx: SimContext) => {
    if (live.quotaExceeded) {
      throw new SimHttpError(
        googleError(
          403,
          'quotaExceeded',
          'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        ),
      );
    }
    const token = ctx.token ?? '';
    return (
      oauth.channelOf(token) ?? {
        id: `UC${createHash('sha256').update(`yt-token:${token}`).digest('base64url').slice(0, 22)}`,
        title: 'Simulated channel',
        customUrl: '@simulated',
      }
    );
  };

  const settle = (video: SimYouTubeVideo) => {
    if (video.processingStatus === 'processing' && Date.now() >= video.readyAt) {
      if (video.outcome === 'failed') {
        video.processingStatus = 'failed';
        video.uploadStatus = 'failed';
        video.failureReason = 'codec';
      } else if (video.outcome === 'rejected') {
        video.processingStatus = 'terminated';
        video.uploadStatus = 'rejected';
        video.rejectionReason = 'duplicate';
      } else {
        video.processingStatus = 'succeeded';
        video.uploadStatus = 'processed';
      }
    }
    return video;
  };

  const resourceOf = (id: string, parts = ['snippet', 'status']) => {
    const video = settle(videos.get(id) as SimYouTubeVideo);
    const resource: Record<string, unknown> = { kind: 'youtube#video', etag: video.sha256.slice(0, 27), id };
    if (parts.includes('snippet')) {
      resource.snippet = {
        publishedAt: video.publishedAt,
        channelId: video.account,
        title: video.title,
        description: video.description,
        ...(video.tags.length > 0 ? { tags: video.tags } : {}),
        categoryId: video.categoryId,
        liveBroadcastContent: 'none',
      };
    }
    if (parts.includes('status')) {
      resource.status = {
        uploadStatus: video.uploadStatus,
        ...(video.failureReason ? { failureReason: video.failureReason } : {}),
        ...(video.rejectionReason ? { rejectionReason: video.rejectionReason } : {}),
        privacyStatus: video.privacyStatus,
        license: 'youtube',
        embeddable: true,
        publicStatsViewable: true,
        madeForKids: video.madeForKids,
        selfDeclaredMadeForKids: video.madeForKids,
      };
    }
    if (parts.includes('processingDetails')) {
      resource.processingDetails = {
        processingStatus: video.processingStatus,
        ...(video.processingStatus === 'processing'
          ? {
              processingProgress: {
                partsTotal: 1000,
                partsProcessed: Math.max(
                  0,
                  Math.min(999, 1000 - Math.ceil(((video.readyAt - Date.now()) / processingMs) * 1000)),
                ),
                timeLeftMs: String(Math.max(0, video.readyAt - Date.now())),
              },
            }
          : {}),
        ...(video.processingStatus === 'failed' ? { processingFailureReason: 'transcodeFailed' } : {}),
      };
    }
    if (parts.includes('statistics')) {
      const grown = simulatorMetrics('youtube', id, new Date(video.publishedAt));
      const s = video.statistics ?? {
        viewCount: grown.views ?? 0,
        likeCount: grown.likes ?? 0,
        commentCount: grown.comments ?? 0,
        favoriteCount: 0,
      };
      resource.statistics = {
        viewCount: String(s.viewCount),
        likeCount: String(s.likeCount),
        favoriteCount: String(s.favoriteCount),
        commentCount: String(s.commentCount),
      };
    }
    return resource;
  };

  /** Checks a snippet and status as YouTube does; returns the normalized fields. */
  const metadataOf = (body: unknown, requireCategory: boolean) => {
    const snippet = objectOf(objectOf(body)?.snippet);
    const status = objectOf(objectOf(body)?.status) ?? {};
    const bad = (reason: string, message: string) => new SimHttpError(googleError(400, reason, message));
    const title = snippet?.title;
    if (typeof title !== 'string' || title.trim() === '')
      throw bad('invalidTitle', 'The request metadata specifies an empty video title.');
    if ([...title].length > 100 || /[<>]/.test(title))
      throw bad('invalidTitle', 'The request metadata specifies an invalid video title.');
    const description = snippet?.description ?? '';
    if (typeof description !== 'string' || Buffer.byteLength(description) > 5000 || /[<>]/.test(description))
      throw bad('invalidDescription', 'The request metadata specifies an invalid video description.');
    const tags = snippet?.tags ?? [];
    if (
      !Array.isArray(tags) ||
      tags.some((t) => typeof t !== 'string' || /[<>]/.test(t)) ||
      (tags as string[]).reduce((n, t) => n + [...t].length + (t.includes(' ') ? 2 : 0), 0) +
        Math.max(0, tags.length - 1) >
        500
    )
      throw bad('invalidTags', 'The request metadata specifies invalid video keywords.');
    const categoryId = snippet?.categoryId;
    if (categoryId === undefined && requireCategory)
      throw bad('invalidCategoryId', 'The snippet.categoryId property must be specified.');
    if (categoryId !== undefined && !YOUTUBE_CATEGORY_IDS.includes(String(categoryId)))
      throw bad('invalidCategoryId', 'The snippet.categoryId property specifies an invalid category ID.');
    const privacyStatus = status.privacyStatus ?? 'public';
    if (typeof privacyStatus !== 'string' || !PRIVACY.includes(privacyStatus))
      throw bad('invalidPrivacyStatus', 'The request metadata specifies an invalid privacy status.');
    const kids = status.selfDeclaredMadeForKids ?? false;
    if (typeof kids !== 'boolean')
      throw bad('invalidVideoMetadata', 'selfDeclaredMadeForKids must be a boolean.');
    return {
      title,
      description,
      tags: tags as string[],
      categoryId: categoryId === undefined ? '22' : String(categoryId),
      privacyStatus,
      madeForKids: kids,
    };
  };

  /** Called with each video once stored (the comment seeds hook in here). */
  const onStored: ((video: SimYouTubeVideo) => void)[] = [];

  const complete = (session: UploadSession, sha256: string) => {
    const meta = metadataOf(session.resource, false);
    const id = videoIdOf();
    const locked = audit.locks(session.id);
    const video: SimYouTubeVideo = {
      id,
      account: session.account,
      ...meta,
      privacyStatus: locked ? 'private' : meta.privacyStatus,
      requestedPrivacyStatus: meta.privacyStatus,
      privacyLocked: locked,
      publishedAt: new Date().toISOString(),
      size: session.received,
      sha256,
      contentType: session.contentType,
      uploadStatus: 'uploaded',
      processingStatus: 'processing',
      failureReason: null,
      rejectionReason: null,
      readyAt: Date.now() + processingMs,
      outcome: live.nextOutcome,
      thumbnail: null,
      captions: [],
      statistics: null,
      chunks: session.chunks,
    };
    live.nextOutcome = null;
    videos.set(id, video);
    for (const hook of onStored) hook(video);
    live.record?.({
      kind: 'post',
      id,
      parentId: null,
      rootId: null,
      text: meta.description,
      account: session.account,
    });
    return { id, resource: resourceOf(id) };
  };
  const uploads = resumableUploads(complete, (id) => resourceOf(id), options);

  const ownVideo = (ctx: SimContext, id: string | null, account: string) => {
    const video = id ? videos.get(id) : undefined;
    if (!video)
      throw new SimHttpError(
        googleError(404, 'videoNotFound', 'The video identified by the id parameter could not be found.'),
      );
    if (video.account !== account)
      throw new SimHttpError(googleError(403, 'forbidden', 'The video cannot be modified by this channel.'));
    live.record = ctx.record;
    return video;
  };

  return {
    options,
    processingMs,
    videos,
    live,
    oauth,
    audit,
    requireScope,
    channelOf,
    settle,
    resourceOf,
    metadataOf,
    complete,
    onStored,
    uploads,
    ownVideo,
  };
};

export type YouTubeState = ReturnType<typeof youtubeState>;
