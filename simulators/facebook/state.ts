import { objectOf, type SimContext, SimHttpError } from '../framework/framework.ts';
import { bucUsage, graphError, PERMISSIONS } from './errors.ts';
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
  const liveComment = (id: string) => {
    const comment = comments.get(id);
    return comment && !comment.deleted && visiblePost(comment.postId) ? comment : null;
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
    checkFeedCap,
    messageOf,
    newPost,
    refuseDuplicate,
    storePost,
    clearFeedLimit,
  };
};

export type FacebookState = ReturnType<typeof facebookState>;
