import type { SimContext, SimResponse } from '../framework/framework.ts';
import { graphFields, graphPage } from '../framework/meta-graph.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { graphError } from './errors.ts';
import { graphTime } from './media-files.ts';
import type { StoredPost } from './records.ts';
import type { FacebookState } from './state.ts';

/** A post's or comment's life after publishing: comments, edits, deletes, reads, insights, the page's posts. */
export const facebookObjectRoutes = (s: FacebookState) => {
  const {
    posts,
    comments,
    media,
    paramsOf,
    checkVersion,
    requirePermission,
    noObject,
    visiblePost,
    liveComment,
    messageOf,
    commentIdFor,
    commentView,
  } = s;

  /**
   * `POST /{object}/comments {message}` as the page: on a post, a comment; on a comment, a reply.
   * Graph nests two levels: a reply reads `can_comment: false` and commenting on it is refused
   * (the code and wording are indicative; Graph documents `can_comment`, peers met the refusal:
   * https://github.com/restfb/restfb/issues/1068).
   */
  const createComment = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'engage');
    const objectId = ctx.params.id as string;
    const target = visiblePost(objectId) ? null : liveComment(objectId);
    const post = target ? visiblePost(target.postId) : visiblePost(objectId);
    if (!post) return noObject(objectId);
    if (target?.parentId) {
      return graphError(
        400,
        100,
        '(#100) This comment cannot be replied to (can_comment is false): reply to the comment it answers instead',
      );
    }
    const params = paramsOf(ctx);
    const message = messageOf(params.message, 'message');
    if (message === '' && params.attachment_url === undefined) {
      return graphError(400, 100, '(#100) Missing message or attachment');
    }
    const outcome = ctx.screen(message, post.pageId);
    const id = commentIdFor(post);
    comments.set(id, {
      id,
      postId: post.id,
      parentId: target?.id ?? null,
      author: null,
      message,
      createdAt: Date.now(),
      deleted: false,
      hidden: false,
    });
    post.comments.push(id);
    ctx.record({
      kind: target ? 'reply' : 'comment',
      id,
      parentId: target?.id ?? post.id,
      rootId: post.id,
      text: message,
      account: post.pageId,
    });
    return { status: 200, body: { id }, lost: outcome };
  };

  /**
   * `GET /{object}/comments`: on a post its top-level comments (`filter=toplevel`, the default) or
   * the whole conversation flat with each reply's `parent` (`filter=stream`); on a comment its
   * replies. `order` chronological (default) or reverse_chronological; cursor paging (`limit` 25 by
   * default, at most 100; `after`), `paging.next` only when more follow. Hidden comments are
   * returned to the page with `is_hidden: true`; deleted ones (and their replies) are not.
   */
  const listComments = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'comments');
    const objectId = ctx.params.id as string;
    const onComment = visiblePost(objectId) ? null : liveComment(objectId);
    const post = onComment ? null : visiblePost(objectId);
    if (!post && !onComment) return noObject(objectId);
    const filter = ctx.query.get('filter') ?? 'toplevel';
    if (filter !== 'toplevel' && filter !== 'stream') {
      return graphError(400, 100, '(#100) filter must be one of the following values: toplevel, stream');
    }
    const order = ctx.query.get('order') ?? 'chronological';
    if (order !== 'chronological' && order !== 'reverse_chronological' && order !== 'ranked') {
      return graphError(
        400,
        100,
        '(#100) order must be one of the following values: chronological, reverse_chronological',
      );
    }
    const list = [...comments.values()]
      .filter((comment) => liveComment(comment.id))
      .filter((comment) =>
        onComment
          ? comment.parentId === onComment.id
          : comment.postId === post?.id && (filter === 'stream' || comment.parentId === null),
      )
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    if (order === 'reverse_chronological') list.reverse();
    const page = graphPage(list, ctx.query, {
      defaultLimit: 25,
      maxLimit: 100,
      pageUrl: `https://graph.facebook.com${ctx.path}`,
    });
    if (!page) return graphError(400, 100, '(#100) The after cursor is not valid');
    const fields = graphFields(ctx.query.get('fields'));
    return {
      status: 200,
      body: { data: page.data.map((comment) => commentView(comment, fields)), paging: page.paging },
    };
  };

  const editObject = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const params = paramsOf(ctx);
    // A reel's (or video's) description is edited on the video: `POST /{video-id} {description}`.
    const video = media.get(ctx.params.id as string);
    const id = video?.kind === 'video' && video.postId ? video.postId : (ctx.params.id as string);
    if (video?.kind === 'video' && params.description !== undefined) params.message = params.description;
    if (posts.get(id)?.type === 'story') {
      return graphError(400, 100, '(#100) A story cannot be edited');
    }
    const comment = liveComment(id);
    const post = comment ? null : visiblePost(id);
    if (!comment && !post) return noObject(id);
    // A comment is the page's engagement; a post (or video description) its content.
    requirePermission(ctx.token, comment ? 'engage' : 'post');
    if (params.message === undefined) return graphError(400, 100, '(#100) Missing message');
    const message = messageOf(params.message, 'message');
    if (comment) {
      const root = posts.get(comment.postId) as StoredPost;
      const outcome = ctx.screen(message, root.pageId);
      comment.message = message;
      ctx.record({
        kind: 'edit',
        id,
        parentId: root.id,
        rootId: root.id,
        text: message,
        account: root.pageId,
      });
      return { status: 200, body: { success: true }, lost: outcome };
    }
    const target = post as StoredPost;
    const outcome = ctx.screen(message, target.pageId);
    target.message = message;
    ctx.record({ kind: 'edit', id, parentId: null, rootId: null, text: message, account: target.pageId });
    return { status: 200, body: { success: true }, lost: outcome };
  };

  const deleteObject = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const id = ctx.params.id as string;
    const comment = liveComment(id);
    requirePermission(ctx.token, comment ? 'engage' : 'post');
    if (comment) {
      comment.deleted = true;
      const root = posts.get(comment.postId) as StoredPost;
      ctx.record({
        kind: 'delete',
        id,
        parentId: root.id,
        rootId: root.id,
        text: null,
        account: root.pageId,
      });
      return { status: 200, body: { success: true } };
    }
    const post = posts.get(id);
    const video = media.get(id);
    const target = post ?? (video?.kind === 'video' && video.postId ? posts.get(video.postId) : undefined);
    if (!target || target.deleted) return noObject(id);
    target.deleted = true;
    if (video?.kind === 'video' && video.status === 'processing') video.status = 'error';
    ctx.record({
      kind: 'delete',
      id: target.id,
      parentId: null,
      rootId: null,
      text: null,
      account: target.pageId,
    });
    return { status: 200, body: { success: true } };
  };

  /** The fields a read asks for: `a,b.summary(total_count).limit(0)` → `a`, `b`. */
  const fieldsOf = (ctx: SimContext) =>
    new Set(
      (ctx.query.get('fields') ?? '')
        .split(/,(?![^(]*\))/)
        .map((field) => field.trim().split(/[.{]/)[0] as string)
        .filter(Boolean),
    );

  const readObject = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    const id = ctx.params.id as string;
    const comment = liveComment(id);
    // A person's comment is user content; the page's own is the page's.
    requirePermission(ctx.token, comment?.author ? 'comments' : 'read');
    if (comment) return { status: 200, body: commentView(comment, graphFields(ctx.query.get('fields'))) };
    const fields = fieldsOf(ctx);
    const video = media.get(id);
    if (video?.kind === 'video') {
      const post = video.postId ? posts.get(video.postId) : undefined;
      // A reel's or story's upload exists before its post; a feed video is its post.
      if (post ? post.deleted : video.product === 'feed') return noObject(id);
      const body: Record<string, unknown> = { id };
      if (fields.has('status')) {
        // Until `upload_phase=finish`, an uploaded reel or story reads `upload_complete` with its
        // processing `not_started` (never `ready`): what integrations observe on Graph (see
        // shared notes, "Reels / video stories"; Reels guide: init, upload, then publish with
        // finish, https://developers.facebook.com/documentation/video-api/guides/reels-publishing).
        body.status = {
          video_status: video.status === 'uploaded' ? 'upload_complete' : video.status,
          uploading_phase: { status: video.status === 'uploading' ? 'in_progress' : 'complete' },
          processing_phase: {
            status:
              video.status === 'uploading' || video.status === 'uploaded'
                ? 'not_started'
                : video.status === 'error'
                  ? 'error'
                  : video.status === 'ready'
                    ? 'complete'
                    : 'in_progress',
            ...(video.error ? { errors: [{ code: 1363040, message: video.error }] } : {}),
          },
          publishing_phase: {
            status: post?.state === 'live' ? 'complete' : post ? 'in_progress' : 'not_started',
          },
        };
      }
      if (fields.has('post_id') && video.postId) body.post_id = video.postId;
      if (fields.has('description') && post) body.description = post.message;
      return { status: 200, body };
    }
    const post = visiblePost(id);
    if (post?.state !== 'live') return noObject(id);
    const m = simulatorMetrics('facebook', post.id, new Date(post.createdAt));
    const body: Record<string, unknown> = { id };
    if (fields.has('message') && post.message !== '') body.message = post.message;
    if (fields.has('created_time')) body.created_time = graphTime(post.createdAt);
    if (fields.has('permalink_url')) body.permalink_url = `https://www.facebook.com/${post.id}`;
    if (fields.has('reactions'))
      body.reactions = { data: [], summary: { total_count: m.likes ?? 0, viewer_reaction: 'NONE' } };
    if (fields.has('comments')) {
      body.comments = {
        data: [],
        summary: {
          order: 'ranked',
          total_count: (m.comments ?? 0) + post.comments.filter((c) => !comments.get(c)?.deleted).length,
          can_comment: true,
        },
      };
    }
    // Graph leaves `shares` out while a post has none.
    if (fields.has('shares') && (m.shares ?? 0) > 0) body.shares = { count: m.shares };
    return { status: 200, body };
  };

  const insights = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'insights');
    const post = visiblePost(ctx.params.id as string);
    if (post?.state !== 'live') return noObject(ctx.params.id as string);
    const metrics = (ctx.query.get('metric') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    const m = simulatorMetrics('facebook', post.id, new Date(post.createdAt));
    const values: Record<string, number> = {
      post_media_view: m.views ?? 0,
      post_total_media_view_unique: Math.floor((m.views ?? 0) * 0.7),
      post_clicks: Math.floor((m.likes ?? 0) * 0.6),
    };
    for (const metric of metrics) {
      if (!(metric in values)) {
        return graphError(400, 100, `(#100) The value must be a valid insights metric`);
      }
    }
    return {
      status: 200,
      body: {
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: values[name] }],
          title: name,
          description: name,
          id: `${post.id}/insights/${name}/lifetime`,
        })),
        paging: {},
      },
    };
  };

  const listPosts = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermission(ctx.token, 'read');
    const pageId = ctx.params.page as string;
    const since = Number(ctx.query.get('since') ?? 0) * 1000;
    const limit = Math.min(Math.max(Number(ctx.query.get('limit') ?? 25) || 25, 1), 100);
    const fields = fieldsOf(ctx);
    const data = [...posts.values()]
      .filter(
        (post) => post.pageId === pageId && !post.deleted && post.state === 'live' && post.type !== 'story',
      )
      .filter((post) => Math.floor(post.createdAt / 1000) * 1000 >= since)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit)
      .map((post) => ({
        id: post.id,
        ...(fields.has('message') && post.message !== '' ? { message: post.message } : {}),
        ...(fields.has('created_time') || fields.size === 0
          ? { created_time: graphTime(post.createdAt) }
          : {}),
      }));
    return { status: 200, body: { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIT' } } } };
  };

  return { createComment, listComments, editObject, deleteObject, readObject, insights, listPosts };
};
