import { type SimContext, type SimResponse, snowflake } from '../framework/framework.ts';
import { bucUsage, facebookErrors, graphError } from './errors.ts';
import { fetchMedia, graphTime } from './media-files.ts';
import type { SimFacebookMedia, StoredPost } from './records.ts';
import type { FacebookState } from './state.ts';

/** Videos after upload: processing, reels and stories (upload sessions), the page's stories and videos. */
export const facebookVideoRoutes = (s: FacebookState) => {
  const {
    posts,
    media,
    switches,
    login,
    timers,
    paramsOf,
    checkVersion,
    requirePermission,
    noObject,
    checkFeedCap,
    messageOf,
    newPost,
    storePost,
  } = s;

  /** After its bytes arrived, a video processes for `videoProcessingMs`; its post goes live when it is ready. */
  const processVideo = (video: SimFacebookMedia) => {
    video.status = 'processing';
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (video.status !== 'processing') return;
      const post = video.postId ? posts.get(video.postId) : undefined;
      if (switches.videoFails) {
        video.status = 'error';
        video.error = 'The video could not be processed: unsupported codec';
        if (post) post.state = 'failed';
        return;
      }
      video.status = 'ready';
      if (post?.state === 'processing') post.state = 'live';
    }, switches.videoProcessingMs);
    timers.add(timer);
  };

  /**
   * `POST /{page-id}/video_reels` and `/video_stories`: `upload_phase=start` opens an upload
   * session (`{ video_id, upload_url }` on the rupload host: here the simulator itself);
   * `upload_phase=finish` with `video_id` publishes the uploaded video (reels:
   * `video_state=PUBLISHED` and `description`; stories answer `post_id`).
   */
  const uploadSessions =
    (product: 'reel' | 'story') =>
    (ctx: SimContext): SimResponse => {
      checkVersion(ctx);
      requirePermission(ctx.token, 'video');
      const pageId = ctx.params.page as string;
      const params = paramsOf(ctx);
      if (params.upload_phase === 'start') {
        const id = snowflake();
        media.set(id, {
          id,
          kind: 'video',
          product,
          pageId,
          sourceUrl: '',
          size: 0,
          contentType: '',
          altText: null,
          published: false,
          postId: null,
          status: 'uploading',
          error: null,
        });
        const host = ctx.headers.host ?? '127.0.0.1';
        return {
          status: 200,
          body: { video_id: id, upload_url: `http://${host}/video-upload/${ctx.params.version}/${id}` },
        };
      }
      if (params.upload_phase !== 'finish') {
        return graphError(400, 100, '(#100) upload_phase must be one of start, finish');
      }
      const video = typeof params.video_id === 'string' ? media.get(params.video_id) : undefined;
      if (!video || video.product !== product || video.pageId !== pageId) {
        return graphError(400, 100, '(#100) Param video_id must be a video uploaded for this endpoint');
      }
      if (video.postId) return graphError(400, 100, '(#100) This video has already been published');
      if (video.status === 'uploading') {
        return graphError(400, 100, '(#100) The video has not been uploaded yet');
      }
      if (video.status === 'error') return graphError(400, 100, `(#100) ${video.error}`);
      if (video.status !== 'uploaded')
        return graphError(400, 100, '(#100) This video has already been finished');
      if (product === 'reel' && params.video_state !== 'PUBLISHED') {
        return graphError(400, 100, '(#100) Param video_state must be PUBLISHED, DRAFT or SCHEDULED');
      }
      const description = product === 'reel' ? messageOf(params.description, 'description') : '';
      checkFeedCap(pageId);
      if (product === 'reel') {
        // Facebook's reels cap: 30 published through the API in a moving 24 hours, per page.
        const day = Date.now() - 86_400_000;
        const recent = [...posts.values()]
          .filter((p) => p.pageId === pageId && p.type === 'reel' && p.createdAt > day)
          .sort((a, b) => a.createdAt - b.createdAt);
        if (recent.length >= switches.reelsPerDay) {
          const oldest = recent[recent.length - switches.reelsPerDay]?.createdAt ?? Date.now();
          const minutes = Math.max(1, Math.ceil((oldest + 86_400_000 - Date.now()) / 60_000));
          return graphError(
            400,
            4,
            `(#4) This Page has published ${switches.reelsPerDay} reels through the API in the last 24 hours`,
            { headers: { 'x-business-use-case-usage': bucUsage(pageId, minutes) } },
          );
        }
      }
      const outcome = ctx.screen(description, pageId);
      const post = newPost(pageId, product === 'reel' ? video.id : snowflake(), description, null);
      post.type = product;
      // Processing starts with the finish; the post goes live once the video is ready.
      post.state = 'processing';
      post.attachments = [video.id];
      video.postId = post.id;
      video.published = true;
      storePost(ctx, post);
      processVideo(video);
      return {
        status: 200,
        body: product === 'story' ? { success: true, post_id: post.id } : { success: true },
        lost: outcome,
      };
    };

  /** `POST https://rupload.facebook.com/video-upload/{version}/{video-id}` with `Authorization: OAuth …` and a `file_url` header: Facebook pulls the file. */
  const uploadVideoBytes = async (ctx: SimContext): Promise<SimResponse> => {
    const auth = /^OAuth\s+(\S+)$/i.exec(String(ctx.headers.authorization ?? ''));
    if (!auth) return facebookErrors.unauthorized('missing');
    if (auth[1]?.startsWith('expired')) return facebookErrors.unauthorized('expired');
    if (auth[1]?.startsWith('revoked')) return facebookErrors.unauthorized('revoked');
    const refusal = login.refusal(auth[1] as string);
    if (refusal) return facebookErrors.unauthorized(refusal);
    requirePermission(auth[1] as string, 'video');
    const video = media.get(ctx.params.id as string);
    if (video?.kind !== 'video' || video.product === 'feed') return noObject(ctx.params.id as string);
    if (video.status !== 'uploading') {
      return graphError(400, 100, '(#100) The video has already been uploaded');
    }
    const url = ctx.headers.file_url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      return graphError(400, 100, '(#100) Send the file in the body or its address in the file_url header');
    }
    const file = await fetchMedia(url);
    if (!file?.contentType.startsWith('video/')) {
      return graphError(
        400,
        6000,
        'There was a problem uploading your video file: it could not be downloaded or is not a video',
      );
    }
    video.sourceUrl = url;
    video.size = file.size;
    video.contentType = file.contentType;
    // Uploaded, not processed: processing waits for `upload_phase=finish`.
    video.status = 'uploaded';
    return { status: 200, body: { success: true } };
  };

  /** `POST /{page-id}/photo_stories {photo_id}`: an unpublished photo of the page becomes a story. */
  const photoStory = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'video');
    const pageId = ctx.params.page as string;
    const photoId = paramsOf(ctx).photo_id;
    const photo = typeof photoId === 'string' ? media.get(photoId) : undefined;
    if (photo?.kind !== 'photo' || photo.pageId !== pageId || photo.published || photo.postId) {
      return graphError(400, 100, '(#100) Param photo_id must be an unpublished photo of this Page');
    }
    checkFeedCap(pageId);
    const post = newPost(pageId, snowflake(), '', null);
    post.type = 'story';
    post.attachments = [photo.id];
    photo.product = 'story';
    photo.postId = post.id;
    storePost(ctx, post);
    return { status: 200, body: { success: true, post_id: post.id } };
  };

  /** `GET /{page-id}/stories`: the page's stories, newest first. */
  const listStories = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const pageId = ctx.params.page as string;
    const data = [...posts.values()]
      .filter(
        (post) => post.pageId === pageId && post.type === 'story' && !post.deleted && post.state !== 'failed',
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((post) => {
        const file = media.get(post.attachments[0] as string) as SimFacebookMedia;
        return {
          post_id: post.id,
          status: post.state === 'live' ? 'PUBLISHED' : 'PROCESSING',
          creation_time: String(Math.floor(post.createdAt / 1000)),
          media_type: file.kind,
          media_id: file.id,
          url: `https://www.facebook.com/stories/${pageId}/${post.id}`,
        };
      });
    return { status: 200, body: { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIT' } } } };
  };

  /** The page's videos, processing ones too (`GET /{page-id}/videos`), newest first. */
  const listVideos = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const pageId = ctx.params.page as string;
    const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), 100);
    const data = [...media.values()]
      .filter((m) => m.kind === 'video' && m.pageId === pageId && m.status !== 'error' && m.postId)
      .map((m) => ({ video: m, post: posts.get(m.postId as string) as StoredPost }))
      .filter(({ post }) => !post.deleted)
      .sort((a, b) => b.post.createdAt - a.post.createdAt)
      .slice(0, limit)
      .map(({ video, post }) => ({
        id: video.id,
        ...(post.message !== '' ? { description: post.message } : {}),
        created_time: graphTime(post.createdAt),
      }));
    return { status: 200, body: { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIT' } } } };
  };

  return { uploadSessions, uploadVideoBytes, photoStory, listStories, listVideos };
};
