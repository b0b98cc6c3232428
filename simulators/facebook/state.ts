import { type SimCommentStore, seedComments } from '../framework/comments.ts';
import { objectOf, type SimContext, SimHttpError, snowflake } from '../framework/framework.ts';
import { graphFields } from '../framework/meta-graph.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { numericIdFor } from '../framework/oauth.ts';
import { bucUsage, graphError, PERMISSIONS } from './errors.ts';
import { graphTime } from './media-files.ts';
import { facebookOAuthSimulator, graphPermissionError, missingScopes } from './oauth.ts';
import type { SimFacebookMedia, StoredComment, StoredPost } from './records.ts';
import type { FacebookSimulatorOptions, FacebookSwitches } from './switches.ts';
import { DEFAULT_SWITCHES } from './switches.ts';

/** The Facebook simulator's in-memory pages: posts, comments, media, switches, and the checks every route shares. */
export const facebookState = (options: FacebookSimulatorOptions) => {
  const posts = new Map<string, StoredPost>();
  const comments = new Map<string, StoredComment>();
  const media = new Map<string, SimFacebookMedia>();
  const switches: FacebookSwitches = { ...DEFAULT_SWITCHES, ...(options.switches ?? {}) };
  let feedLimitedUntil = 0;
  const login = facebookOAuthSimulator(options.oauth);
  const timers = new Set<NodeJS.Timeout>();
  const setSwitches = (next: Partial<FacebookSwitches>) => {
    Object.assign(switches, next);
    if (next.feedLimitMinutes !== undefined) {
      feedLimitedUntil = next.feedLimitMinutes > 0 ? Date.now() + next.feedLimitMinutes * 60_000 : 0;
    }
  };
  setSwitches(options.switches ?? {});

  /** Graph takes parameters in the query string, a form body or a JSON body alike. */
  const paramsOf = (ctx: SimContext): Record<string, unknown> => ({
    ...Object.fromEntries(ctx.query),
    ...(objectOf(ctx.body) ?? {}),
  });
  const checkVersion = (ctx: SimContext) => {
    if (!/^v\d+\.\d+$/.test(ctx.params.version ?? '')) {
      throw new SimHttpError(graphError(400, 2500, `Unknown path components: /${ctx.params.version}`));
    }
    // A page token Facebook Login issued acts as its page only.
    const page = ctx.params.page;
    const tokenPage = ctx.token ? login.pageOf(ctx.token) : undefined;
    if (page !== undefined && tokenPage !== undefined && tokenPage !== page) {
      throw new SimHttpError(
        graphError(403, 200, '(#200) The page access token given does not belong to this Page', {
          type: 'OAuthException',
        }),
      );
    }
  };
  /**
   * Graph's permission refusal (HTTP 403; code 200 for publishing and managing, 10 for reading)
   * when a token Facebook Login issued lacks what the call needs. Tokens it did not issue (the
   * tests' fixed page tokens) are not checked.
   */
  const requirePermission = (token: string | null, need: keyof typeof PERMISSIONS) => {
    const { scopes, code } = PERMISSIONS[need];
    const missing = missingScopes(token ? login.grantOf(token) : null, scopes);
    if (missing.length === 0) return;
    const message =
      code === 10
        ? `(#10) This endpoint requires the '${missing.join("', '")}' permission or the 'Page Public Content Access' feature.`
        : need === 'post'
          ? '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission'
          : `(#200) Requires ${missing.join(' and ')} permission to manage the object`;
    throw new SimHttpError(graphPermissionError(code, message));
  };
  const noObject = (id: string) =>
    graphError(
      400,
      100,
      `Unsupported request - method type: post. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      { subcode: 33, type: 'GraphMethodException' },
    );
  const visiblePost = (id: string) => {
    const post = posts.get(id);
    return post && !post.deleted && post.state !== 'failed' ? post : null;
  };
  /** A comment still there: not deleted, on a post still there, and (a reply) under a comment still there. */
  const liveComment = (id: string): StoredComment | null => {
    const comment = comments.get(id);
    if (!comment || comment.deleted || !visiblePost(comment.postId)) return null;
    return comment.parentId === null || liveComment(comment.parentId) ? comment : null;
  };
  /** A new comment's id: `<post object>_<comment>`, as Graph's comment ids carry their post's. */
  const commentIdFor = (post: StoredPost) => `${post.id.split('_')[1]}_${snowflake()}`;

  /**
   * A comment as Graph shows it to the page, with the fields asked for (`id` always; none asked:
   * Graph's defaults `created_time`, `from`, `message`). `from` is absent for a person when
   * `hideCommenters` is on; `parent` only on replies; a reply `can_comment: false` (Graph nests
   * two levels: answer the comment it replies to).
   */
  const commentView = (comment: StoredComment, fields: Map<string, string | null>) => {
    const post = posts.get(comment.postId) as StoredPost;
    const asked = fields.size > 0 ? fields : graphFields('created_time,from,message');
    const m = simulatorMetrics('facebook', comment.id, new Date(comment.createdAt));
    const from = comment.author ?? { id: post.pageId, name: `Page ${post.pageId}` };
    const replies = [...comments.values()].filter((c) => c.parentId === comment.id && !c.deleted);
    const all: Record<string, () => unknown> = {
      message: () => comment.message,
      created_time: () => graphTime(comment.createdAt),
      from: () => (comment.author && switches.hideCommenters ? undefined : from),
      like_count: () => m.likes ?? 0,
      comment_count: () => (m.comments ?? 0) + replies.length,
      parent: () => {
        const parent = comment.parentId ? comments.get(comment.parentId) : undefined;
        return parent
          ? { id: parent.id, created_time: graphTime(parent.createdAt), message: parent.message }
          : undefined;
      },
      permalink_url: () => `https://www.facebook.com/${post.id}?comment_id=${encodeURIComponent(comment.id)}`,
      is_hidden: () => comment.hidden,
      can_comment: () => comment.parentId === null,
      object: () => undefined,
    };
    const view: Record<string, unknown> = { id: comment.id };
    for (const name of asked.keys()) {
      const value = all[name]?.();
      if (value !== undefined) view[name] = value;
    }
    return view;
  };

  /**
   * The `/_sim/comments` hooks over the pages: someone comments on a post or answers a comment
   * (a reply to a reply answers its parent, as Graph nests two levels); hidden comments stay
   * listed to the page with `is_hidden`, deleted ones are gone with their replies.
   */
  const simStore: SimCommentStore = {
    add: ({ parentId, text, author, createdAt }) => {
      const onPost = visiblePost(parentId);
      const target = onPost ? null : liveComment(parentId);
      const parent = target?.parentId ? liveComment(target.parentId) : target;
      const post = onPost ?? (parent ? visiblePost(parent.postId) : null);
      if (!post || (!onPost && !parent)) return null;
      const id = commentIdFor(post);
      comments.set(id, {
        id,
        postId: post.id,
        parentId: parent?.id ?? null,
        author: { id: numericIdFor(`fb-commenter:${author.handle}`, 16), name: author.name },
        message: text,
        createdAt: createdAt.getTime(),
        deleted: false,
        hidden: false,
      });
      post.comments.push(id);
      return id;
    },
    setState: (id, state) => {
      const comment = comments.get(id);
      if (!comment) return false;
      comment.deleted = state === 'deleted';
      comment.hidden = state === 'hidden';
      return true;
    },
  };
  const checkFeedCap = (pageId: string) => {
    if (Date.now() < feedLimitedUntil) {
      const minutes = Math.max(1, Math.ceil((feedLimitedUntil - Date.now()) / 60_000));
      throw new SimHttpError(
        graphError(400, 341, '(#341) Feed action request limit reached', {
          headers: { 'x-business-use-case-usage': bucUsage(pageId, minutes) },
        }),
      );
    }
  };
  const messageOf = (value: unknown, field: string): string => {
    if (value === undefined) return '';
    if (typeof value !== 'string')
      throw new SimHttpError(graphError(400, 100, `(#100) Param ${field} must be a string`));
    return value;
  };
  const newPost = (pageId: string, objectId: string, message: string, link: string | null): StoredPost => ({
    id: `${pageId}_${objectId}`,
    pageId,
    message,
    link,
    createdAt: Date.now(),
    deleted: false,
    state: 'live',
    type: 'post',
    attachments: [],
    comments: [],
  });
  const refuseDuplicate = (pageId: string, message: string) => {
    if (message === '') return;
    for (const other of posts.values()) {
      if (
        other.pageId === pageId &&
        !other.deleted &&
        other.state !== 'failed' &&
        other.message === message
      ) {
        throw new SimHttpError(graphError(400, 506, '(#506) Duplicate status message'));
      }
    }
  };
  const storePost = (ctx: SimContext, post: StoredPost) => {
    posts.set(post.id, post);
    seedComments(simStore, post.id, post.message, new Date(post.createdAt));
    ctx.record({
      kind: 'post',
      id: post.id,
      parentId: null,
      rootId: null,
      text: post.message,
      account: post.pageId,
    });
  };

  /** A reset lifts the feed cap. */
  const clearFeedLimit = () => {
    feedLimitedUntil = 0;
  };
  return {
    posts,
    comments,
    media,
    switches,
    login,
    timers,
    setSwitches,
    paramsOf,
    checkVersion,
    requirePermission,
    noObject,
    visiblePost,
    liveComment,
    commentIdFor,
    commentView,
    simStore,
    checkFeedCap,
    messageOf,
    newPost,
    refuseDuplicate,
    storePost,
    clearFeedLimit,
  };
};

export type FacebookState = ReturnType<typeof facebookState>;
