import type { SimCommentStore } from '../framework/comments.ts';
import { type SimContext, SimHttpError } from '../framework/framework.ts';
import { graphFields } from '../framework/meta-graph.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { numericIdFor } from '../framework/oauth.ts';
import { instagramErrors, instagramPermissionError } from './errors.ts';
import { DAY_MS, graphTime, nextId } from './graph-values.ts';
import { instagramOAuthSimulator } from './oauth.ts';
import { DEFAULT_INSTAGRAM_LIST_LAG_MS, type InstagramSimulatorOptions } from './options.ts';
import type { Container, SimComment, SimMedia, StatusCode } from './records.ts';

/** The Instagram simulator's in-memory accounts: containers, media, comments, the publishing cap, and the checks every route shares. */
export const instagramState = (options: InstagramSimulatorOptions) => {
  const oauth = instagramOAuthSimulator(options.oauth);
  /**
   * A token the OAuth half issued must hold every permission the call needs (Graph's code 10
   * otherwise); tokens it did not issue are not checked.
   */
  const requirePermissions = (ctx: SimContext, ...needed: string[]) => {
    const held = ctx.token ? oauth.scopesOf(ctx.token) : null;
    if (held !== null && needed.some((permission) => !held.includes(permission))) {
      throw new SimHttpError(instagramPermissionError());
    }
  };
  const containers = new Map<string, Container>();
  const media = new Map<string, SimMedia>();
  const comments = new Map<string, SimComment>();
  /** Publication times per account, for the rolling 24-hour cap. */
  const published = new Map<string, number[]>();
  const defaults = {
    processingMs: options.processingMs ?? 300,
    publishLimit: options.publishLimit ?? 50,
    containerTtlMs: options.containerTtlMs ?? DAY_MS,
    listLagMs: options.listLagMs ?? DEFAULT_INSTAGRAM_LIST_LAG_MS,
  };
  /** What the switches change: processing time, list lag, and until when every account's cap is spent. */
  const tuning = { processingMs: defaults.processingMs, listLagMs: defaults.listLagMs, capFullUntil: 0 };
  /** Whether a list read now shows what was made at `createdAt` (the lists lag behind). */
  const listed = (createdAt: number) => Date.now() - createdAt >= tuning.listLagMs;

  const checkVersion = (ctx: SimContext) => {
    if (!/^v\d+\.\d+$/.test(ctx.params.version ?? '')) {
      throw new SimHttpError(instagramErrors.notFound(ctx.path));
    }
  };

  const statusOf = (container: Container, now = Date.now()): StatusCode => {
    if (container.publishedAs) return 'PUBLISHED';
    if (container.expired || now - container.createdAt >= defaults.containerTtlMs) return 'EXPIRED';
    if (container.error) return 'ERROR';
    if (container.kind === 'CAROUSEL') {
      const children = container.children.map((id) => containers.get(id) as Container);
      const states = children.map((child) => statusOf(child, now));
      if (states.includes('ERROR')) return 'ERROR';
      if (states.includes('EXPIRED')) return 'EXPIRED';
      if (states.some((s) => s === 'IN_PROGRESS') || now < container.readyAt) return 'IN_PROGRESS';
      return 'FINISHED';
    }
    if (container.fetching || now < container.readyAt) return 'IN_PROGRESS';
    return 'FINISHED';
  };

  const errorOf = (container: Container): { message: string; subcode: number } | null => {
    if (container.error) return container.error;
    for (const id of container.children) {
      const child = containers.get(id);
      if (child?.error) return child.error;
    }
    return null;
  };

  const statusText = (container: Container, code: StatusCode) => {
    if (code === 'ERROR') {
      const error = errorOf(container);
      return `Error: ${error?.message ?? 'Unknown error'} (error code ${error?.subcode ?? 2207001})`;
    }
    if (code === 'EXPIRED') return 'Expired: the container was not published within 24 hours.';
    return code === 'IN_PROGRESS' ? 'In Progress' : code === 'PUBLISHED' ? 'Published' : 'Finished';
  };

  const windowOf = (account: string, now = Date.now()) => {
    const kept = (published.get(account) ?? []).filter((at) => now - at < DAY_MS);
    published.set(account, kept);
    return kept;
  };
  const capSpent = (account: string, now = Date.now()) =>
    now < tuning.capFullUntil || windowOf(account, now).length >= defaults.publishLimit;
  const quotaUsage = (account: string) =>
    Date.now() < tuning.capFullUntil ? defaults.publishLimit : windowOf(account).length;

  const liveComment = (id: string) => {
    const comment = comments.get(id);
    // A reply goes with its top-level comment.
    const parentGone = comment?.parentId ? comments.get(comment.parentId)?.deleted !== false : false;
    return comment && !comment.deleted && !parentGone && media.has(comment.mediaId) ? comment : null;
  };

  /** Media ids whose owner turned comments off (the `commentsDisabled` switch). */
  const commentsOff = new Set<string>();

  /**
   * A comment as Graph shows it, with the fields asked for (`id` always): `from` is the commenter's
   * `{ id, username }`, `parent_id` only on replies, `hidden` to the media's owner, `replies` the
   * nested edge (its own fields inside the braces, one page of `nestedLimit`).
   */
  const commentView = (
    comment: SimComment,
    fields: Map<string, string | null>,
    nested?: (comment: SimComment, inner: Map<string, string | null>) => unknown,
  ): Record<string, unknown> => {
    const m = simulatorMetrics('instagram', comment.id, new Date(comment.createdAt));
    const view: Record<string, unknown> = { id: comment.id };
    const all: Record<string, () => unknown> = {
      text: () => comment.text,
      timestamp: () => graphTime(comment.createdAt),
      username: () => comment.username,
      from: () => ({ id: comment.account, username: comment.username }),
      like_count: () => m.likes ?? 0,
      hidden: () => comment.hidden,
      media: () => ({ id: comment.mediaId }),
      parent_id: () => comment.parentId ?? undefined,
    };
    for (const [name, inner] of fields) {
      if (name === 'replies' && nested && comment.parentId === null) {
        view.replies = nested(comment, graphFieldsOrDefault(inner));
        continue;
      }
      const value = all[name]?.();
      if (value !== undefined) view[name] = value;
    }
    return view;
  };
  /** A comment's default fields when none are asked for (Graph: `id`, `text`, `timestamp`). */
  const graphFieldsOrDefault = (raw: string | null) =>
    raw ? graphFields(raw) : graphFields('id,text,timestamp');

  /**
   * The `/_sim/comments` hooks over this state: someone comments on a media or answers a comment
   * (under its top-level comment, as Instagram nests); hidden comments stay listed with
   * `hidden: true`, deleted ones are gone.
   */
  const simStore: SimCommentStore = {
    add: ({ parentId, text, author, createdAt }) => {
      const onMedia = media.get(parentId);
      const target = onMedia ? null : liveComment(parentId);
      const parent = target?.parentId ? liveComment(target.parentId) : target;
      const item = onMedia ?? (parent ? media.get(parent.mediaId) : undefined);
      if (!item || (!onMedia && !parent)) return null;
      const comment: SimComment = {
        id: nextId(),
        mediaId: item.id,
        account: numericIdFor(`ig-commenter:${author.handle}`, 17),
        username: author.handle,
        parentId: parent?.id ?? null,
        text,
        createdAt: createdAt.getTime(),
        deleted: false,
        hidden: false,
      };
      comments.set(comment.id, comment);
      item.comments.push(comment);
      return comment.id;
    },
    setState: (id, state) => {
      const comment = comments.get(id);
      if (!comment) return false;
      comment.deleted = state === 'deleted';
      comment.hidden = state === 'hidden';
      return true;
    },
  };

  const fieldsOf = (ctx: SimContext, fallback: string[]) => {
    const raw = ctx.query.get('fields');
    return raw ? raw.split(',').map((f) => f.trim()) : fallback;
  };

  return {
    options,
    fieldsOf,
    oauth,
    requirePermissions,
    containers,
    media,
    comments,
    published,
    defaults,
    tuning,
    listed,
    checkVersion,
    statusOf,
    errorOf,
    statusText,
    windowOf,
    capSpent,
    quotaUsage,
    liveComment,
    commentsOff,
    commentView,
    simStore,
    graphFieldsOrDefault,
  };
};

export type InstagramState = ReturnType<typeof instagramState>;
