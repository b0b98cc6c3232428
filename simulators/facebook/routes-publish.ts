import { objectOf, type SimContext, type SimResponse, snowflake } from '../framework/framework.ts';
import { graphError } from './errors.ts';
import { boolParam, fetchMedia } from './media-files.ts';
import type { SimFacebookMedia } from './records.ts';
import type { FacebookState } from './state.ts';
import { PHOTO_MAX_BYTES } from './switches.ts';

/** Publishing to a page: `POST /{page}/feed`, `/photos`, `/videos`. */
export const facebookPublishRoutes = (s: FacebookState) => {
  const {
    media,
    switches,
    timers,
    paramsOf,
    checkVersion,
    requirePermission,
    checkFeedCap,
    messageOf,
    newPost,
    refuseDuplicate,
    storePost,
  } = s;

  const createFeedPost = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'post');
    const pageId = ctx.params.page as string;
    const params = paramsOf(ctx);
    const message = messageOf(params.message, 'message');
    const link = params.link === undefined ? null : messageOf(params.link, 'link');
    if (link !== null && !/^https?:\/\/\S+$/.test(link)) {
      return graphError(400, 100, '(#100) The parameter link must be a valid URL');
    }
    let attached: unknown = params.attached_media;
    if (typeof attached === 'string') {
      try {
        attached = JSON.parse(attached);
      } catch {
        return graphError(400, 100, '(#100) param attached_media must be an array');
      }
    }
    if (attached !== undefined && !Array.isArray(attached)) {
      return graphError(400, 100, '(#100) param attached_media must be an array');
    }
    const photoIds: string[] = [];
    for (const [i, entry] of ((attached as unknown[] | undefined) ?? []).entries()) {
      const fbid = objectOf(entry)?.media_fbid;
      const photo = typeof fbid === 'string' ? media.get(fbid) : undefined;
      if (photo?.kind !== 'photo' || photo.pageId !== pageId || photo.published || photo.postId) {
        return graphError(
          400,
          100,
          `(#100) param attached_media[${i}] must be a valid unpublished photo of this Page`,
        );
      }
      photoIds.push(photo.id);
    }
    if (message === '' && link === null && photoIds.length === 0) {
      return graphError(400, 100, '(#100) Missing message or attachment');
    }
    checkFeedCap(pageId);
    const outcome = ctx.screen(message, pageId);
    refuseDuplicate(pageId, message);
    const post = newPost(pageId, snowflake(), message, link);
    post.attachments = photoIds;
    for (const id of photoIds) (media.get(id) as SimFacebookMedia).postId = post.id;
    storePost(ctx, post);
    return { status: 200, body: { id: post.id }, lost: outcome };
  };

  const createPhoto = async (ctx: SimContext): Promise<SimResponse> => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'post');
    const pageId = ctx.params.page as string;
    const params = paramsOf(ctx);
    const url = params.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      return graphError(400, 324, '(#324) Requires upload file');
    }
    const caption = messageOf(params.caption ?? params.message, 'caption');
    const altText =
      params.alt_text_custom === undefined ? null : messageOf(params.alt_text_custom, 'alt_text_custom');
    const published = boolParam(params.published, true);
    if (published) {
      checkFeedCap(pageId);
      refuseDuplicate(pageId, caption);
    }
    const outcome = published ? ctx.screen(caption, pageId) : null;
    const file = await fetchMedia(url);
    if (!file?.contentType.startsWith('image/')) {
      return graphError(400, 324, '(#324) Missing or invalid image file');
    }
    if (file.size > PHOTO_MAX_BYTES) {
      return graphError(400, 100, '(#100) The photo is larger than the 10 MB Facebook accepts');
    }
    const id = snowflake();
    const photo: SimFacebookMedia = {
      id,
      kind: 'photo',
      product: 'feed',
      pageId,
      sourceUrl: url,
      size: file.size,
      contentType: file.contentType,
      altText,
      published,
      postId: null,
      status: null,
      error: null,
    };
    media.set(id, photo);
    if (!published) return { status: 200, body: { id } };
    const post = newPost(pageId, id, caption, null);
    post.attachments = [id];
    photo.postId = post.id;
    storePost(ctx, post);
    return { status: 200, body: { id, post_id: post.id }, lost: outcome };
  };

  const createVideo = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'video');
    const pageId = ctx.params.page as string;
    const params = paramsOf(ctx);
    const url = params.file_url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      return graphError(400, 100, '(#100) Param file_url must be a valid URL');
    }
    const description = messageOf(params.description, 'description');
    checkFeedCap(pageId);
    const outcome = ctx.screen(description, pageId);
    refuseDuplicate(pageId, description);
    const id = snowflake();
    const video: SimFacebookMedia = {
      id,
      kind: 'video',
      product: 'feed',
      pageId,
      sourceUrl: url,
      size: 0,
      contentType: '',
      altText: null,
      published: true,
      postId: null,
      status: 'processing',
      error: null,
    };
    media.set(id, video);
    const post = newPost(pageId, id, description, null);
    post.state = 'processing';
    post.attachments = [id];
    video.postId = post.id;
    storePost(ctx, post);
    void fetchMedia(url).then((file) => {
      const fail = (reason: string) => {
        video.status = 'error';
        video.error = reason;
        post.state = 'failed';
      };
      if (!file) return fail('The video file could not be downloaded from file_url');
      video.size = file.size;
      video.contentType = file.contentType;
      if (!file.contentType.startsWith('video/')) return fail('The file at file_url is not a video');
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (video.status !== 'processing') return;
        if (switches.videoFails) return fail('The video could not be processed: unsupported codec');
        video.status = 'ready';
        if (post.state === 'processing') post.state = 'live';
      }, switches.videoProcessingMs);
      timers.add(timer);
    });
    return { status: 200, body: { id }, lost: outcome };
  };

  return { createFeedPost, createPhoto, createVideo };
};
