import { textLength } from '../../functions/domain/platforms/text-length.ts';
import type { SimContext, SimResponse } from '../framework/framework.ts';
import { graphError, invalidParam, TH_BASIC, TH_MANAGE_REPLIES, TH_PUBLISH, unsupported } from './errors.ts';
import { fetchMedia, nextId, paramsOf, stringParam } from './graph-values.ts';
import {
  ALT_TEXT_LIMIT,
  CAROUSEL_MAX,
  CAROUSEL_MIN,
  MEDIA_TYPES,
  type MediaType,
  REPLY_CONTROLS,
  TEXT_LIMIT,
} from './limits.ts';
import type { Container } from './records.ts';
import type { ThreadsState } from './state.ts';

/** `POST /{user}/threads`: text, image, video and carousel containers. */
export const threadsContainerRoutes = (s: ThreadsState) => {
  const { checkUser, requirePermissions, containers, posts, switches, statusOf } = s;

  const createContainer = async (ctx: SimContext): Promise<SimResponse> => {
    const userId = checkUser(ctx, 'post');
    const params = paramsOf(ctx);
    requirePermissions(
      ctx,
      TH_BASIC,
      TH_PUBLISH,
      ...(params.reply_to_id === undefined ? [] : [TH_MANAGE_REPLIES]),
    );
    const mediaType = stringParam(params, 'media_type');
    if (!mediaType || !(MEDIA_TYPES as readonly string[]).includes(mediaType)) {
      return invalidParam('Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}');
    }
    const text = stringParam(params, 'text') ?? '';
    if (textLength(text, 'codepoints_emoji_bytes') > TEXT_LIMIT) {
      return invalidParam(`Param text must be at most ${TEXT_LIMIT} characters long.`);
    }
    const isCarouselItem = stringParam(params, 'is_carousel_item') === 'true';
    const altText = stringParam(params, 'alt_text');
    if (altText !== null && altText.length > ALT_TEXT_LIMIT) {
      return invalidParam(`Param alt_text must be at most ${ALT_TEXT_LIMIT} characters long.`);
    }
    const replyControl = stringParam(params, 'reply_control') ?? 'everyone';
    if (!REPLY_CONTROLS.includes(replyControl)) {
      return invalidParam(`Param reply_control must be one of {${REPLY_CONTROLS.join(', ').toUpperCase()}}`);
    }
    const linkAttachment = stringParam(params, 'link_attachment');
    if (linkAttachment !== null) {
      if (mediaType !== 'TEXT')
        return invalidParam('Param link_attachment is only supported for TEXT posts.');
      if (!/^https?:\/\/\S+$/i.test(linkAttachment))
        return invalidParam('Param link_attachment must be a valid URL.');
    }
    const replyToId = stringParam(params, 'reply_to_id');
    if (replyToId !== null) {
      const parent = posts.get(replyToId);
      if (!parent || parent.deleted) return unsupported('post', replyToId);
    }
    if (mediaType === 'TEXT') {
      if (text.trim() === '') return invalidParam('Param text is required for TEXT posts.');
      if (isCarouselItem) return invalidParam('A TEXT container cannot be a carousel item.');
    }
    if (isCarouselItem && (text !== '' || replyToId !== null)) {
      return invalidParam(
        'Carousel items take no text and no reply_to_id: set them on the CAROUSEL container.',
      );
    }
    // Content checks (and the refusal sim tokens) happen when the container is created: nothing is posted.
    ctx.screen(text, userId);

    const now = Date.now();
    const container: Container = {
      id: nextId(),
      userId,
      mediaType: mediaType as MediaType,
      text,
      url: null,
      altText,
      isCarouselItem,
      children: [],
      replyToId,
      replyControl,
      linkAttachment,
      status: 'IN_PROGRESS',
      errorMessage: null,
      readyAt: now,
      expiresAt: now + switches.containerLifetimeMs,
      fetched: { bytes: 0, contentType: null },
      publishedId: null,
    };
    if (mediaType === 'IMAGE') {
      const url = stringParam(params, 'image_url');
      if (!url) return invalidParam('Param image_url is required for IMAGE containers.');
      // Threads fetches an image while the container is created.
      const fetched = await fetchMedia(url);
      if (!fetched) {
        return graphError(400, 'An unknown error occurred', 1, {
          subcode: 2207052,
          type: 'OAuthException',
          title: 'Media download has failed',
          userMessage:
            'The media could not be fetched from the URI provided. Check that it is public and answers 200.',
        });
      }
      if (fetched.contentType && !/^image\/(jpeg|png)\b/i.test(fetched.contentType)) {
        return graphError(400, 'Only photo or video can be accepted as media type.', 9004, {
          subcode: 2207026,
          type: 'OAuthException',
        });
      }
      Object.assign(container, { url, fetched, readyAt: now + switches.imageProcessingMs });
    } else if (mediaType === 'VIDEO') {
      const url = stringParam(params, 'video_url');
      if (!url) return invalidParam('Param video_url is required for VIDEO containers.');
      const failure = switches.videoFailure;
      Object.assign(container, { url, fetched: null, readyAt: now + switches.videoProcessingMs });
      // A video is fetched while the container is IN_PROGRESS.
      void fetchMedia(url).then((fetched) => {
        if (!fetched) {
          container.status = 'ERROR';
          container.errorMessage = 'FAILED_DOWNLOADING_VIDEO';
        } else if (failure) {
          container.status = 'ERROR';
          container.errorMessage = failure;
        }
        container.fetched = fetched ?? { bytes: 0, contentType: null };
      });
    } else if (mediaType === 'CAROUSEL') {
      const raw = params.children;
      const children = Array.isArray(raw)
        ? raw.map(String)
        : typeof raw === 'string'
          ? raw
              .split(',')
              .map((id) => id.trim())
              .filter(Boolean)
          : [];
      if (children.length < CAROUSEL_MIN || children.length > CAROUSEL_MAX) {
        return invalidParam(
          `Param children must list between ${CAROUSEL_MIN} and ${CAROUSEL_MAX} carousel items.`,
        );
      }
      for (const childId of children) {
        const child = containers.get(childId);
        if (!child || child.userId !== userId || !child.isCarouselItem) {
          return invalidParam(`Param children: ${childId} is not a carousel item container of this user.`);
        }
        if (statusOf(child) !== 'FINISHED') {
          return invalidParam(`Param children: carousel item ${childId} is not ready (${child.status}).`);
        }
      }
      container.children = children;
      container.readyAt = now + switches.imageProcessingMs;
    } else if (stringParam(params, 'image_url') || stringParam(params, 'video_url')) {
      return invalidParam('A TEXT container takes no image_url or video_url.');
    }
    if (mediaType === 'TEXT') container.status = 'FINISHED';
    containers.set(container.id, container);
    return { status: 200, body: { id: container.id } };
  };

  return { createContainer };
};
