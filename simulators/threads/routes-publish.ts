import type { SimContext, SimResponse } from '../framework/framework.ts';
import { graphError, invalidParam, TH_BASIC, TH_PUBLISH, unsupported } from './errors.ts';
import { nextId, paramsOf, shortcodeOf, stringParam, threadsUsernameOf } from './graph-values.ts';
import type { Container, SimThreadsMedia, SimThreadsPost } from './records.ts';
import type { ThreadsState } from './state.ts';

/** `POST /{user}/threads_publish`: a container becomes a post or a reply. */
export const threadsPublishRoutes = (s: ThreadsState) => {
  const { checkUser, requirePermissions, containers, posts, switches, statusOf, inWindow } = s;

  const mediaOf = (container: Container): SimThreadsMedia[] => {
    if (container.mediaType === 'CAROUSEL') {
      return container.children.flatMap((id) => {
        const child = containers.get(id);
        return child ? mediaOf(child) : [];
      });
    }
    if (container.mediaType === 'TEXT' || !container.url) return [];
    return [
      {
        type: container.mediaType,
        url: container.url,
        altText: container.altText,
        bytes: container.fetched?.bytes ?? 0,
        contentType: container.fetched?.contentType ?? null,
        containerId: container.id,
      },
    ];
  };

  const publish = (ctx: SimContext): SimResponse => {
    const userId = checkUser(ctx, 'post');
    requirePermissions(ctx, TH_BASIC, TH_PUBLISH);
    const params = paramsOf(ctx);
    const creationId = stringParam(params, 'creation_id');
    if (!creationId) return invalidParam('The parameter creation_id is required.');
    const container = containers.get(creationId);
    const notFound = () =>
      graphError(400, 'The requested resource does not exist', 24, {
        subcode: 4279009,
        transient: false,
        title: 'Media Not Found',
        userMessage: `The media with id ${creationId} cannot be found.`,
      });
    if (!container || container.userId !== userId || container.isCarouselItem) return notFound();
    const status = statusOf(container);
    if (status === 'IN_PROGRESS' || status === 'ERROR') return notFound();
    if (status === 'EXPIRED') {
      return graphError(400, 'The media container has expired: create a new one.', 24, {
        subcode: 4279009,
        title: 'Media Not Found',
        userMessage: `The media with id ${creationId} has expired.`,
      });
    }
    if (status === 'PUBLISHED') return invalidParam(`The media with id ${creationId} was already published.`);
    const isReply = container.replyToId !== null;
    const quota = isReply ? switches.replyQuota : switches.postQuota;
    if (inWindow(userId, isReply).length >= quota) {
      return graphError(
        400,
        isReply
          ? 'The maximum number of replies that can be published in 24 hours has been reached.'
          : 'The maximum number of posts that can be published in 24 hours has been reached.',
        9,
        { subcode: 2207042, transient: false },
      );
    }
    // Lost answers happen after the post is stored.
    const outcome = ctx.screen(container.text, userId);
    const parent = container.replyToId ? posts.get(container.replyToId) : undefined;
    if (container.replyToId && (!parent || parent.deleted)) return unsupported('post', container.replyToId);
    const id = nextId();
    const shortcode = shortcodeOf(id);
    const post: SimThreadsPost = {
      id,
      userId,
      text: container.text,
      mediaType:
        container.mediaType === 'TEXT'
          ? 'TEXT_POST'
          : container.mediaType === 'CAROUSEL'
            ? 'CAROUSEL_ALBUM'
            : container.mediaType,
      timestamp: new Date().toISOString(),
      permalink: `https://www.threads.net/@${threadsUsernameOf(userId)}/post/${shortcode}`,
      shortcode,
      replyToId: parent?.id ?? null,
      rootId: parent ? (parent.rootId ?? parent.id) : null,
      replyControl: container.replyControl,
      linkAttachment: container.linkAttachment,
      containerId: container.id,
      media: mediaOf(container),
      deleted: false,
    };
    posts.set(id, post);
    container.status = 'PUBLISHED';
    container.publishedId = id;
    ctx.record({
      kind: parent ? 'reply' : 'post',
      id,
      parentId: post.replyToId,
      rootId: post.rootId,
      text: post.text,
      account: userId,
    });
    return { status: 200, body: { id }, lost: outcome };
  };

  return { publish };
};
