import { seedComments } from '../framework/comments.ts';
import type { SimContext, SimResponse } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { IG_BASIC, IG_COMMENTS, IG_PUBLISH, instagramError, missingObject } from './errors.ts';
import { DAY_MS, graphTime, nextId, paramsOf, shortcodeOf } from './graph-values.ts';
import type { Container, SimAttachment, SimMedia } from './records.ts';
import type { InstagramState } from './state.ts';

/** Publishing containers and reading media: `media_publish`, `content_publishing_limit`, nodes, the media and stories lists. */
export const instagramMediaRoutes = (s: InstagramState) => {
  const {
    options,
    fieldsOf,
    requirePermissions,
    containers,
    media,
    defaults,
    listed,
    checkVersion,
    statusOf,
    errorOf,
    statusText,
    windowOf,
    capSpent,
    quotaUsage,
    liveComment,
    commentView,
    graphFieldsOrDefault,
    simStore,
  } = s;

  const mediaView = (item: SimMedia, fields: string[]) => {
    const m = simulatorMetrics('instagram', item.id, new Date(item.createdAt));
    const all: Record<string, unknown> = {
      id: item.id,
      caption: item.caption,
      media_type: item.mediaType,
      media_product_type: item.productType,
      permalink:
        item.productType === 'STORY'
          ? `https://www.instagram.com/stories/${item.account}/${item.id}/`
          : `https://www.instagram.com/${item.productType === 'REELS' ? 'reel' : 'p'}/${item.shortcode}/`,
      shortcode: item.shortcode,
      timestamp: graphTime(item.createdAt),
      username: `sim_${item.account}`,
      owner: { id: item.account },
      like_count: m.likes ?? 0,
      comments_count: item.comments.filter((c) => !c.deleted).length,
    };
    return Object.fromEntries(Object.entries(all).filter(([key]) => key === 'id' || fields.includes(key)));
  };

  const getNode = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const id = ctx.params.id as string;
    const container = containers.get(id);
    const comment = container || media.has(id) ? undefined : liveComment(id);
    requirePermissions(ctx, IG_BASIC, ...(container ? [IG_PUBLISH] : comment ? [IG_COMMENTS] : []));
    if (container) {
      const fields = fieldsOf(ctx, ['id']);
      const code = statusOf(container);
      const all: Record<string, unknown> = { id, status_code: code, status: statusText(container, code) };
      return {
        status: 200,
        body: Object.fromEntries(Object.entries(all).filter(([key]) => key === 'id' || fields.includes(key))),
      };
    }
    const item = media.get(id);
    if (item) return { status: 200, body: mediaView(item, fieldsOf(ctx, ['id'])) };
    if (comment) {
      return { status: 200, body: commentView(comment, graphFieldsOrDefault(ctx.query.get('fields'))) };
    }
    return missingObject(id);
  };

  const publish = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_PUBLISH);
    const account = ctx.params.user as string;
    const creationId = paramsOf(ctx).creation_id;
    if (typeof creationId !== 'string' || creationId === '') {
      return instagramError(400, '(#100) The parameter creation_id is required', 100);
    }
    const container = containers.get(creationId);
    if (!container || container.account !== account || container.carouselItem) {
      return instagramError(400, 'Media ID is not available', 9007, 2207006, {
        error_user_msg: 'The media could not be found or is not yours.',
      });
    }
    const code = statusOf(container);
    if (code === 'EXPIRED') {
      return instagramError(
        400,
        'The media you are trying to access has expired. Please try to upload again.',
        -2,
        2207020,
      );
    }
    if (code === 'IN_PROGRESS') {
      return instagramError(400, 'Media ID is not available', 9007, 2207027, {
        error_user_msg: 'The media is not ready for publishing, please wait for a moment',
      });
    }
    if (code === 'ERROR') {
      return instagramError(400, statusText(container, code), 9007, errorOf(container)?.subcode ?? 2207001);
    }
    if (code === 'PUBLISHED') {
      return instagramError(400, 'This media container has already been published.', 9007, 2207008);
    }
    if (capSpent(account)) {
      return instagramError(
        400,
        'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
        9,
        2207042,
        { is_transient: false, error_user_title: 'Publishing limit reached' },
      );
    }
    const lost = ctx.screen(container.caption, account);
    const id = nextId();
    const children = container.children.map((childId) => containers.get(childId) as Container);
    const attachments =
      container.kind === 'CAROUSEL'
        ? children.map((child) => child.attachment as SimAttachment)
        : [container.attachment as SimAttachment];
    const item: SimMedia = {
      id,
      account,
      containerId: container.id,
      productType: container.kind === 'STORIES' ? 'STORY' : container.kind === 'REELS' ? 'REELS' : 'FEED',
      mediaType:
        container.kind === 'CAROUSEL'
          ? 'CAROUSEL_ALBUM'
          : container.attachment?.kind === 'video'
            ? 'VIDEO'
            : 'IMAGE',
      caption: container.kind === 'STORIES' ? '' : container.caption,
      shortcode: shortcodeOf(id),
      attachments: attachments.map((a) => ({ ...a })),
      collaborators: container.collaborators,
      locationId: container.locationId,
      shareToFeed: container.kind === 'REELS' ? (container.shareToFeed ?? true) : null,
      createdAt: Date.now(),
      comments: [],
    };
    media.set(id, item);
    container.publishedAs = id;
    for (const child of children) child.publishedAs = id;
    windowOf(account).push(item.createdAt);
    ctx.record({ kind: 'post', id, parentId: null, rootId: null, text: item.caption, account });
    if (item.productType !== 'STORY') seedComments(simStore, id, item.caption, new Date(item.createdAt));
    return { status: 200, body: { id }, lost };
  };

  const publishingLimit = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_PUBLISH);
    const account = ctx.params.user as string;
    // Without `fields`, Graph returns `quota_usage` only (the reference's default field).
    const fields = fieldsOf(ctx, ['quota_usage']);
    const config = fields.includes('config') && options.reportsQuotaConfig !== false;
    return {
      status: 200,
      body: {
        data: [
          {
            ...(fields.includes('quota_usage') ? { quota_usage: quotaUsage(account) } : {}),
            ...(config ? { config: { quota_total: defaults.publishLimit, quota_duration: 86400 } } : {}),
          },
        ],
      },
    };
  };

  const listMedia =
    (stories: boolean) =>
    (ctx: SimContext): SimResponse => {
      checkVersion(ctx);
      requirePermissions(ctx, IG_BASIC);
      const account = ctx.params.user as string;
      const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), 100);
      const now = Date.now();
      const data = [...media.values()]
        .filter((item) => item.account === account && listed(item.createdAt))
        .filter((item) =>
          stories
            ? item.productType === 'STORY' && now - item.createdAt < DAY_MS
            : item.productType !== 'STORY',
        )
        .sort((a, b) => b.createdAt - a.createdAt || (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
        .slice(0, limit)
        .map((item) => mediaView(item, fieldsOf(ctx, ['id'])));
      return { status: 200, body: { data, paging: { cursors: { before: 'QVFIsim', after: 'QVFIsim' } } } };
    };

  return { mediaView, getNode, publish, publishingLimit, listMedia };
};
