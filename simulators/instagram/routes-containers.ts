import type { SimContext, SimResponse } from '../framework/framework.ts';
import { IG_BASIC, IG_PUBLISH, instagramError } from './errors.ts';
import { boolOf, fetchMedia, isJpeg, isMp4OrMov, listOf, nextId, paramsOf } from './graph-values.ts';
import type { Container, ContainerKind } from './records.ts';
import type { InstagramState } from './state.ts';

/** `POST /{user}/media`: containers for images, videos, reels, stories and carousels. */
export const instagramContainerRoutes = (s: InstagramState) => {
  const { requirePermissions, containers, tuning, checkVersion } = s;

  const createContainer = async (ctx: SimContext): Promise<SimResponse> => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_PUBLISH);
    const account = ctx.params.user as string;
    const p = paramsOf(ctx);
    const mediaType = typeof p.media_type === 'string' ? p.media_type.toUpperCase() : null;
    const carouselItem = boolOf(p.is_carousel_item) === true;
    const imageUrl = typeof p.image_url === 'string' ? p.image_url : null;
    const videoUrl = typeof p.video_url === 'string' ? p.video_url : null;
    const caption = p.caption === undefined ? '' : String(p.caption);
    const altText = typeof p.alt_text === 'string' ? p.alt_text : null;
    const collaborators = listOf(p.collaborators);
    const locationId = typeof p.location_id === 'string' && p.location_id !== '' ? p.location_id : null;
    const shareToFeed = p.share_to_feed === undefined ? null : boolOf(p.share_to_feed);
    const invalid = (message: string, subcode?: number) => instagramError(400, message, 100, subcode);

    if (collaborators === null) return invalid('(#100) collaborators must be a list of usernames');
    if (collaborators.length > 3) return invalid('(#100) A post can have at most 3 collaborators', 2207062);
    if ([...caption].length > 2200)
      return invalid('(#100) The caption is longer than 2200 characters', 2207010);
    if (altText !== null && altText.length > 1000)
      return invalid('(#100) alt_text is longer than 1000 characters');
    if (p.share_to_feed !== undefined && shareToFeed === null)
      return invalid('(#100) share_to_feed must be a boolean');

    const base = {
      id: nextId(),
      account,
      carouselItem,
      caption,
      children: [] as string[],
      collaborators,
      locationId,
      shareToFeed,
      createdAt: Date.now(),
      readyAt: Date.now() + tuning.processingMs,
      error: null,
      fetching: false,
      expired: false,
      publishedAs: null,
    };

    if (mediaType === 'CAROUSEL') {
      const children = listOf(p.children);
      if (!children || children.length < 2 || children.length > 10) {
        return invalid('(#100) A carousel takes 2 to 10 children', 2207028);
      }
      for (const id of children) {
        const child = containers.get(id);
        if (!child || child.account !== account || !child.carouselItem) {
          return invalid(`(#100) Invalid carousel child: ${id}`, 2207028);
        }
      }
      const container: Container = { ...base, kind: 'CAROUSEL', attachment: null, children };
      containers.set(container.id, container);
      return { status: 200, body: { id: container.id } };
    }

    let kind: ContainerKind;
    if (imageUrl && !videoUrl) {
      if (mediaType !== null && mediaType !== 'IMAGE' && mediaType !== 'STORIES') {
        return invalid(`(#100) media_type ${mediaType} does not take an image_url`, 2207023);
      }
      if (mediaType === 'STORIES' && carouselItem) return invalid('(#100) A story cannot be a carousel item');
      kind = mediaType === 'STORIES' ? 'STORIES' : 'IMAGE';
      if (kind === 'STORIES' && altText !== null) return invalid('(#100) alt_text is only for feed images');
      // Instagram fetches an image while creating the container.
      const fetched = await fetchMedia(imageUrl);
      if (fetched.status !== 200) {
        return instagramError(
          400,
          'Media download has failed. The media URI doesn\u2019t meet our requirements.',
          9004,
          2207052,
          {
            error_user_title: 'Media download has failed',
            error_user_msg: 'The media could not be fetched from this uri.',
          },
        );
      }
      if (!isJpeg(fetched.head)) {
        return instagramError(400, 'The image format is not supported.', 36001, 2207005, {
          error_user_msg: 'Only JPEG images can be published.',
        });
      }
      if (fetched.size > 8 * 1024 * 1024) {
        return instagramError(400, 'The image size is too large.', 36000, 2207004, {
          error_user_msg: 'The image is too large to download. It should be less than 8 MiB.',
        });
      }
      const container: Container = {
        ...base,
        kind,
        attachment: { kind: 'image', url: imageUrl, size: fetched.size, altText },
      };
      containers.set(container.id, container);
      return { status: 200, body: { id: container.id } };
    }
    if (videoUrl && !imageUrl) {
      if (carouselItem ? mediaType !== 'VIDEO' : mediaType !== 'REELS' && mediaType !== 'STORIES') {
        return invalid(
          carouselItem
            ? '(#100) A carousel video item needs media_type=VIDEO'
            : mediaType === 'VIDEO'
              ? '(#100) The VIDEO media type is no longer supported for feed posts; use REELS'
              : '(#100) video_url needs media_type REELS or STORIES',
          2207023,
        );
      }
      if (altText !== null) return invalid('(#100) alt_text is only for images');
      kind = mediaType as ContainerKind;
      const container: Container = {
        ...base,
        kind,
        fetching: true,
        attachment: { kind: 'video', url: videoUrl, size: 0, altText: null },
      };
      containers.set(container.id, container);
      // Videos are fetched and processed after the answer: the container is IN_PROGRESS meanwhile.
      void fetchMedia(videoUrl).then((fetched) => {
        container.fetching = false;
        container.readyAt = Date.now() + tuning.processingMs;
        if (container.attachment) container.attachment.size = fetched.size;
        if (fetched.status !== 200) {
          container.error = {
            message: `Media download has failed. The media URI doesn\u2019t meet our requirements (HTTP ${fetched.status || 'no answer'})`,
            subcode: 2207052,
          };
        } else if (!isMp4OrMov(fetched.head)) {
          container.error = {
            message:
              'The video format is not supported. Please check the spec for supported format (MP4, MOV)',
            subcode: 2207026,
          };
        }
      });
      return { status: 200, body: { id: container.id } };
    }
    return invalid(
      '(#100) Exactly one of image_url or video_url is required (or media_type=CAROUSEL with children)',
    );
  };

  return { createContainer };
};
