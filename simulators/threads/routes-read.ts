import { type SimContext, SimHttpError, type SimResponse } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import {
  graphError,
  invalidParam,
  TH_BASIC,
  TH_DELETE,
  TH_INSIGHTS,
  TH_MANAGE_REPLIES,
  TH_PUBLISH,
  TH_READ_REPLIES,
  unsupported,
} from './errors.ts';
import { fieldsOf, graphTimestamp, threadsUsernameOf } from './graph-values.ts';
import { WINDOW_MS } from './limits.ts';
import type { SimThreadsPost } from './records.ts';
import type { ThreadsState } from './state.ts';

/** Reading and deleting: objects, the posts and replies lists, the publishing limit, deletes, insights. */
export const threadsReadRoutes = (s: ThreadsState) => {
  const { checkUser, requirePermissions, containers, posts, deletes, switches, statusOf, inWindow } = s;

  const view = (post: SimThreadsPost, fields: Set<string>) => {
    const data: Record<string, unknown> = { id: post.id };
    const all: Record<string, () => unknown> = {
      text: () => (post.text === '' ? undefined : post.text),
      timestamp: () => graphTimestamp(new Date(post.timestamp)),
      permalink: () => post.permalink,
      shortcode: () => post.shortcode,
      media_type: () => post.mediaType,
      username: () => threadsUsernameOf(post.userId),
      owner: () => ({ id: post.userId }),
      is_reply: () => post.replyToId !== null,
      replied_to: () => (post.replyToId ? { id: post.replyToId } : undefined),
      root_post: () => ({ id: post.rootId ?? post.id }),
      reply_audience: () => post.replyControl.toUpperCase(),
      link_attachment_url: () => post.linkAttachment ?? undefined,
      media_url: () => post.media[0]?.url,
      alt_text: () => post.media[0]?.altText ?? undefined,
    };
    for (const field of fields) {
      const value = all[field]?.();
      if (value !== undefined) data[field] = value;
    }
    return data;
  };

  const getObject = (ctx: SimContext): SimResponse => {
    requirePermissions(ctx, TH_BASIC);
    const id = ctx.params.id as string;
    const fields = fieldsOf(ctx);
    const container = containers.get(id);
    if (container) {
      const data: Record<string, unknown> = { id };
      const status = statusOf(container);
      if (fields.has('status')) data.status = status;
      if (fields.has('error_message') && container.errorMessage) data.error_message = container.errorMessage;
      return { status: 200, body: data };
    }
    const post = posts.get(id);
    if (!post || post.deleted) return unsupported('get', id);
    for (const field of ['status', 'error_message']) {
      if (fields.has(field)) return invalidParam(`Tried accessing nonexisting field (${field})`);
    }
    return { status: 200, body: view(post, fields) };
  };

  /** A user's posts or replies, newest first, with Graph's cursor paging. */
  const list = (ctx: SimContext, replies: boolean): SimResponse => {
    const userId = checkUser(ctx, 'get');
    requirePermissions(ctx, TH_BASIC, ...(replies ? [TH_READ_REPLIES] : []));
    const limitRaw = ctx.query.get('limit') ?? '25';
    const limit = Number(limitRaw);
    if (!/^\d+$/.test(limitRaw) || limit < 1 || limit > 100)
      return invalidParam('Param limit must be between 1 and 100');
    const bound = (name: string): number | null => {
      const raw = ctx.query.get(name);
      if (raw === null) return null;
      if (/^\d+$/.test(raw)) return Number(raw) * 1000;
      const parsed = Date.parse(raw);
      if (Number.isNaN(parsed))
        throw new SimHttpError(invalidParam(`Param ${name} must be a unix timestamp or a date`));
      return parsed;
    };
    const since = bound('since');
    const until = bound('until');
    const all = [...posts.values()]
      .filter((post) => post.userId === userId && !post.deleted && (post.replyToId !== null) === replies)
      .filter((post) => {
        const at = Math.floor(Date.parse(post.timestamp) / 1000) * 1000;
        return (since === null || at >= since) && (until === null || at <= until);
      })
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const after = ctx.query.get('after');
    let offset = 0;
    if (after !== null) {
      offset = Number.parseInt(Buffer.from(after, 'base64url').toString('utf8'), 10);
      if (!Number.isInteger(offset) || offset < 0) return invalidParam('Invalid cursor');
    }
    const page = all.slice(offset, offset + limit);
    const fields = fieldsOf(ctx);
    const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
    const paging: Record<string, unknown> = {
      cursors: { before: cursor(offset), after: cursor(offset + page.length) },
    };
    if (offset + limit < all.length) {
      const next = new URL(`http://127.0.0.1${ctx.path}`);
      for (const [key, value] of ctx.query) next.searchParams.set(key, value);
      next.searchParams.set('after', cursor(offset + limit));
      paging.next = `${next.pathname}${next.search}`;
    }
    return { status: 200, body: { data: page.map((post) => view(post, fields)), paging } };
  };

  const publishingLimit = (ctx: SimContext): SimResponse => {
    const userId = checkUser(ctx, 'get');
    const fields = fieldsOf(ctx);
    const replyFields = fields.has('reply_quota_usage') || fields.has('reply_config');
    requirePermissions(ctx, TH_BASIC, TH_PUBLISH, ...(replyFields ? [TH_MANAGE_REPLIES] : []));
    const since = Date.now() - WINDOW_MS;
    const entry: Record<string, unknown> = {};
    const config = (total: number) => ({ quota_total: total, quota_duration: WINDOW_MS / 1000 });
    if (fields.has('quota_usage')) entry.quota_usage = inWindow(userId, false).length;
    if (fields.has('config')) entry.config = config(switches.postQuota);
    if (fields.has('reply_quota_usage')) entry.reply_quota_usage = inWindow(userId, true).length;
    if (fields.has('reply_config')) entry.reply_config = config(switches.replyQuota);
    if (fields.has('delete_quota_usage')) {
      entry.delete_quota_usage = deletes.filter((d) => d.userId === userId && d.at > since).length;
    }
    if (fields.has('delete_config')) entry.delete_config = config(switches.deleteQuota);
    return { status: 200, body: { data: [entry] } };
  };

  const deletePost = (ctx: SimContext): SimResponse => {
    requirePermissions(ctx, TH_BASIC, TH_DELETE);
    const id = ctx.params.id as string;
    const post = posts.get(id);
    if (!post || post.deleted) return unsupported('delete', id);
    const since = Date.now() - WINDOW_MS;
    if (deletes.filter((d) => d.userId === post.userId && d.at > since).length >= switches.deleteQuota) {
      return graphError(400, 'The maximum number of deletes in 24 hours has been reached.', 9, {
        subcode: 2207042,
      });
    }
    post.deleted = true;
    deletes.push({ userId: post.userId, at: Date.now() });
    ctx.record({
      kind: 'delete',
      id,
      parentId: post.replyToId,
      rootId: post.rootId,
      text: null,
      account: post.userId,
    });
    return { status: 200, body: { success: true } };
  };

  const INSIGHT_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];
  const insights = (ctx: SimContext): SimResponse => {
    requirePermissions(ctx, TH_BASIC, TH_INSIGHTS);
    const id = ctx.params.id as string;
    const post = posts.get(id);
    if (!post || post.deleted) return unsupported('get', id);
    const metrics = (ctx.query.get('metric') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    if (metrics.length === 0) return invalidParam('The parameter metric is required');
    const unknown = metrics.find((m) => !INSIGHT_METRICS.includes(m));
    if (unknown)
      return invalidParam(
        `(#100) metric[0] must be one of the following values: ${INSIGHT_METRICS.join(', ')}`,
      );
    const m = simulatorMetrics('threads', id, new Date(post.timestamp));
    const values: Record<string, number> = {
      views: m.views ?? 0,
      likes: m.likes ?? 0,
      replies: m.comments ?? 0,
      reposts: m.reposts ?? 0,
      quotes: m.quotes ?? 0,
      shares: m.shares ?? 0,
    };
    return {
      status: 200,
      body: {
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: values[name] }],
          title: name[0]?.toUpperCase() + name.slice(1),
          description: `Number of ${name} of the post.`,
          id: `${id}/insights/${name}/lifetime`,
        })),
      },
    };
  };

  return { getObject, list, publishingLimit, deletePost, insights };
};
