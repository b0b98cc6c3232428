import type { SimContext, SimResponse } from '../framework/framework.ts';
import { graphPage } from '../framework/meta-graph.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { IG_BASIC, IG_COMMENTS, IG_INSIGHTS, instagramError, missingObject } from './errors.ts';
import { nextId, paramsOf } from './graph-values.ts';
import type { SimComment, SimMedia } from './records.ts';
import type { InstagramState } from './state.ts';

/**
 * Comments, replies, deletes and insights. Instagram nests one level: `GET /{media}/comments`
 * lists the top-level comments (newest first), each comment's replies come through
 * `GET /{comment}/replies` or the `replies{…}` field (oldest first), and `POST /{comment}/replies`
 * on a reply is added to its top-level comment ("replies to a reply will be added to the top-level
 * comment"; "You cannot reply to hidden comments": IG Comment Replies reference,
 * https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-comment/replies).
 */
export const instagramCommentRoutes = (s: InstagramState) => {
  const {
    requirePermissions,
    media,
    comments,
    listed,
    checkVersion,
    liveComment,
    commentsOff,
    commentView,
    graphFieldsOrDefault,
  } = s;

  const messageOf = (ctx: SimContext): string | SimResponse => {
    const message = paramsOf(ctx).message;
    if (typeof message !== 'string' || message.trim() === '') {
      return instagramError(400, '(#100) The parameter message is required', 100);
    }
    // A caption's limits (2,200 characters, 30 hashtags), applied to comments; the wording is indicative.
    if ([...message].length > 2200 || (message.match(/(^|\s)#[^\s#]+/g) ?? []).length > 30) {
      return instagramError(400, '(#100) The comment is too long or has more than 30 hashtags', 100);
    }
    return message;
  };

  /**
   * Comments turned off on the media by its owner: Instagram refuses new comments and replies
   * there. The code and wording are indicative (Meta documents `comments_enabled`, not the refusal).
   */
  const commentsTurnedOff = () =>
    instagramError(400, '(#100) Comments are turned off for this media', 100, undefined, {
      error_user_msg: 'The owner of this post turned comments off.',
    });

  const store = (
    ctx: SimContext,
    item: SimMedia,
    parent: SimComment | null,
    message: string,
  ): SimResponse => {
    // The commenting account is the token's; on the simulator, the post's owner comments.
    const lost = ctx.screen(message, item.account);
    const comment: SimComment = {
      id: nextId(),
      mediaId: item.id,
      account: item.account,
      username: `sim_${item.account}`,
      parentId: parent?.id ?? null,
      text: message,
      createdAt: Date.now(),
      deleted: false,
      hidden: false,
    };
    comments.set(comment.id, comment);
    item.comments.push(comment);
    ctx.record({
      kind: parent ? 'reply' : 'comment',
      id: comment.id,
      parentId: parent?.id ?? item.id,
      rootId: item.id,
      text: message,
      account: item.account,
    });
    return { status: 200, body: { id: comment.id }, lost };
  };

  const createComment = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_COMMENTS);
    const item = media.get(ctx.params.id as string);
    if (!item) {
      if (liveComment(ctx.params.id as string)) {
        return instagramError(400, '(#100) Reply to a comment with POST /{ig-comment-id}/replies', 100);
      }
      return missingObject(ctx.params.id as string, 'post');
    }
    if (item.productType === 'STORY')
      return instagramError(400, '(#100) Stories cannot be commented on', 100);
    if (commentsOff.has(item.id)) return commentsTurnedOff();
    const message = messageOf(ctx);
    if (typeof message !== 'string') return message;
    return store(ctx, item, null, message);
  };

  const createReply = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_COMMENTS);
    const target = liveComment(ctx.params.id as string);
    if (!target) return missingObject(ctx.params.id as string, 'post');
    const message = messageOf(ctx);
    if (typeof message !== 'string') return message;
    // A reply to a reply goes under the top-level comment, as Instagram does.
    const parent = target.parentId ? liveComment(target.parentId) : target;
    if (!parent) return missingObject(ctx.params.id as string, 'post');
    if (parent.hidden || target.hidden) {
      // Indicative wording: the reference says only "You cannot reply to hidden comments".
      return instagramError(400, '(#100) You cannot reply to a hidden comment', 100);
    }
    const item = media.get(parent.mediaId) as SimMedia;
    if (commentsOff.has(item.id)) return commentsTurnedOff();
    return store(ctx, item, parent, message);
  };

  const pageUrl = (ctx: SimContext) => `http://${ctx.headers.host ?? 'localhost'}${ctx.path}`;
  const badCursor = () => instagramError(400, '(#100) The after cursor is not valid', 100);

  /** A top-level comment's replies as Graph lists them: live, past the list lag, oldest first. */
  const repliesOf = (parent: SimComment) =>
    [...comments.values()]
      .filter((c) => c.parentId === parent.id && !c.deleted && listed(c.createdAt))
      .sort((a, b) => a.createdAt - b.createdAt);

  /** The `replies{…}` field: one page of 25 (Graph's default), with `next` when more follow. */
  const nestedReplies = (ctx: SimContext) => (parent: SimComment, inner: Map<string, string | null>) => {
    const url = `http://${ctx.headers.host ?? 'localhost'}/${ctx.params.version}/${parent.id}/replies`;
    const page = graphPage(repliesOf(parent), new URLSearchParams(), {
      defaultLimit: 25,
      maxLimit: 25,
      pageUrl: url,
    });
    return {
      data: (page?.data ?? []).map((c) => commentView(c, inner)),
      ...(page ? { paging: page.paging } : {}),
    };
  };

  const listComments = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_COMMENTS);
    const item = media.get(ctx.params.id as string);
    if (!item) {
      if (liveComment(ctx.params.id as string)) {
        return instagramError(400, "(#100) List a comment's replies with GET /{ig-comment-id}/replies", 100);
      }
      return missingObject(ctx.params.id as string);
    }
    const fields = graphFieldsOrDefault(ctx.query.get('fields'));
    const list = item.comments
      .filter((c) => c.parentId === null && !c.deleted && listed(c.createdAt))
      .sort((a, b) => b.createdAt - a.createdAt);
    const page = graphPage(list, ctx.query, { defaultLimit: 25, maxLimit: 50, pageUrl: pageUrl(ctx) });
    if (!page) return badCursor();
    return {
      status: 200,
      body: { data: page.data.map((c) => commentView(c, fields, nestedReplies(ctx))), paging: page.paging },
    };
  };

  const listReplies = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_COMMENTS);
    // "You cannot get replies to a comment that has been deleted."
    const parent = liveComment(ctx.params.id as string);
    if (!parent) return missingObject(ctx.params.id as string);
    const fields = graphFieldsOrDefault(ctx.query.get('fields'));
    const list = parent.parentId === null ? repliesOf(parent) : [];
    const page = graphPage(list, ctx.query, { defaultLimit: 25, maxLimit: 50, pageUrl: pageUrl(ctx) });
    if (!page) return badCursor();
    return { status: 200, body: { data: page.data.map((c) => commentView(c, fields)), paging: page.paging } };
  };

  const deleteNode = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const id = ctx.params.id as string;
    const comment = liveComment(id);
    requirePermissions(ctx, IG_BASIC, ...(comment ? [IG_COMMENTS] : []));
    if (!comment) return missingObject(id, 'delete');
    comment.deleted = true;
    ctx.record({
      kind: 'delete',
      id,
      parentId: comment.parentId ?? comment.mediaId,
      rootId: comment.mediaId,
      text: null,
      account: comment.account,
    });
    return { status: 200, body: { success: true } };
  };

  const INSIGHTS: Record<string, 'views' | 'reach' | 'likes' | 'comments' | 'shares' | 'saves'> = {
    views: 'views',
    reach: 'reach',
    likes: 'likes',
    comments: 'comments',
    shares: 'shares',
    saved: 'saves',
  };
  const insights = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_INSIGHTS);
    const item = media.get(ctx.params.id as string);
    if (!item) return missingObject(ctx.params.id as string);
    const metrics = (ctx.query.get('metric') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (metrics.length === 0) return instagramError(400, '(#100) The parameter metric is required', 100);
    const unknown = metrics.find((m) => !(m in INSIGHTS));
    if (unknown) {
      return instagramError(
        400,
        `(#100) metric[0] must be one of the following values: ${Object.keys(INSIGHTS).join(', ')}`,
        100,
      );
    }
    const m = simulatorMetrics('instagram', item.id, new Date(item.createdAt));
    const data = metrics.map((name) => ({
      name,
      period: 'lifetime',
      values: [
        {
          value:
            name === 'comments'
              ? item.comments.filter((c) => !c.deleted).length
              : (m[INSIGHTS[name] as 'views'] ?? 0),
        },
      ],
      title: name,
      description: `Simulated ${name}`,
      id: `${item.id}/insights/${name}/lifetime`,
    }));
    return { status: 200, body: { data } };
  };

  return { createComment, createReply, listComments, listReplies, deleteNode, insights };
};
