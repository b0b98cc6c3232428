import type { SimContext, SimResponse } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { IG_BASIC, IG_COMMENTS, IG_INSIGHTS, instagramError, missingObject } from './errors.ts';
import { graphTime, nextId, paramsOf } from './graph-values.ts';
import type { SimComment } from './records.ts';
import type { InstagramState } from './state.ts';

/** Comments, deletes and insights. */
export const instagramCommentRoutes = (s: InstagramState) => {
  const { requirePermissions, media, comments, listed, checkVersion, liveComment, fieldsOf } = s;

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
    const message = paramsOf(ctx).message;
    if (typeof message !== 'string' || message.trim() === '') {
      return instagramError(400, '(#100) The parameter message is required', 100);
    }
    // The commenting account is the token's; on the simulator, the post's owner comments.
    const lost = ctx.screen(message, item.account);
    const comment: SimComment = {
      id: nextId(),
      mediaId: item.id,
      account: item.account,
      text: message,
      createdAt: Date.now(),
      deleted: false,
    };
    comments.set(comment.id, comment);
    item.comments.push(comment);
    ctx.record({
      kind: 'comment',
      id: comment.id,
      parentId: item.id,
      rootId: item.id,
      text: message,
      account: item.account,
    });
    return { status: 200, body: { id: comment.id }, lost };
  };

  const listComments = (ctx: SimContext): SimResponse => {
    checkVersion(ctx);
    requirePermissions(ctx, IG_BASIC, IG_COMMENTS);
    const item = media.get(ctx.params.id as string);
    if (!item) return missingObject(ctx.params.id as string);
    const fields = fieldsOf(ctx, ['id', 'text', 'timestamp']);
    const data = item.comments
      .filter((c) => !c.deleted && listed(c.createdAt))
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((c) => {
        const all: Record<string, unknown> = {
          id: c.id,
          text: c.text,
          timestamp: graphTime(c.createdAt),
          from: { id: c.account, username: `sim_${c.account}` },
          username: `sim_${c.account}`,
        };
        return Object.fromEntries(
          Object.entries(all).filter(([key]) => key === 'id' || fields.includes(key)),
        );
      });
    return { status: 200, body: { data } };
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
      parentId: comment.mediaId,
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

  return { createComment, listComments, deleteNode, insights };
};
