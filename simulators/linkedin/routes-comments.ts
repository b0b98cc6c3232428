import type { SimCommentState, SimCommentStore } from '../framework/comments.ts';
import {
  headerOf,
  objectOf,
  type SimContext,
  SimHttpError,
  type SimResponse,
  snowflake,
} from '../framework/framework.ts';
import { linkedInError, linkedInErrors } from './errors.ts';
import type { SimCommentContent, StoredComment, StoredPost } from './records.ts';
import type { LinkedInState } from './state.ts';

/** LinkedIn's largest page of comments (`count`); its default is 10. */
const MAX_COUNT = 100;
const DEFAULT_COUNT = 10;
/** A comment's text: at most 1,250 characters (code points). */
const MAX_TEXT = 1250;

const tooLong = (text: string, field: string): SimResponse | null => {
  const length = [...text].length;
  return length > MAX_TEXT
    ? linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        `ERROR :: ${field} :: length of ${length} exceeds the maximum allowed length ${MAX_TEXT}`,
      )
    : null;
};

/**
 * Comments on a post and on a comment (`/rest/socialActions/{post or comment urn}/comments`,
 * Comments API, https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api):
 * create, edit, get, list (start/count paging), delete. A comment on a comment ("nested") is made
 * under the comment's URN with `parentComment` naming it; LinkedIn nests one level, so a nested
 * comment cannot be answered in turn (the answer goes to its parent). Listing a post gives its
 * first-level comments only; each comment's replies are listed under its own URN.
 */
export const linkedInCommentRoutes = (s: LinkedInState) => {
  const { posts, files, requireActor, requireReader, checkHeaders, livePost } = s;

  /** Whether LinkedIn shows the comment: not deleted, not hidden, and its parent shown. */
  const shown = (post: StoredPost, comment: StoredComment): boolean => {
    if (comment.deleted || comment.hidden) return false;
    if (!comment.parentUrn) return true;
    const parent = [...post.comments.values()].find((c) => c.urn === comment.parentUrn);
    return parent !== undefined && shown(post, parent);
  };

  /** The post and comment a comment URN names (`urn:li:comment:(<activity>,<id>)`), or null. */
  const commentByUrn = (urn: string): { post: StoredPost; comment: StoredComment } | null => {
    const match = /^urn:li:comment:\((urn:li:activity:\d+),(\d+)\)$/.exec(urn);
    if (!match) return null;
    for (const post of posts.values()) {
      if (post.activityUrn !== match[1] || post.deleted) continue;
      const comment = post.comments.get(match[2] as string);
      return comment ? { post, comment } : null;
    }
    return null;
  };

  /**
   * What `/rest/socialActions/{urn}` names: a live post (its first-level comments), or a shown
   * comment (its nested comments); LinkedIn's 404 otherwise.
   */
  const targetOf = (urn: string): { post: StoredPost; parent: StoredComment | null } => {
    if (urn.startsWith('urn:li:comment:')) {
      const found = commentByUrn(urn);
      if (!found || !shown(found.post, found.comment)) {
        throw new SimHttpError(linkedInErrors.notFound(`Comment ${urn} does not exist`));
      }
      return { post: found.post, parent: found.comment };
    }
    return { post: livePost(urn), parent: null };
  };

  /**
   * A comment's `content` (Comments API): at most one entity, an image of the actor's that is
   * AVAILABLE. Null without content; LinkedIn's error answer when it is wrong.
   */
  const commentContent = (raw: unknown, actor: string): SimCommentContent | SimResponse | null => {
    if (raw === undefined) return null;
    const bad = (message: string) =>
      linkedInError(422, 'UNPROCESSABLE_ENTITY', `ERROR :: /content :: ${message}`);
    if (!Array.isArray(raw)) return bad('content must be an array of content entities');
    if (raw.length === 0) return null;
    if (raw.length > 1) return bad('a comment takes at most one content entity (one image)');
    const entity = objectOf(objectOf(raw[0])?.entity);
    if (!entity || typeof entity.image !== 'string' || Object.keys(entity).length !== 1) {
      return bad('a comment content entity must be { entity: { image: <image URN> } }');
    }
    const file = files.usable(entity.image, actor, ['image'], '/content/0/entity/image');
    if (!('urn' in file)) return file;
    return [{ entity: { image: file.urn } }];
  };

  /**
   * A comment as LinkedIn shows it: its image, when it has one, with the image's URL; its parent
   * when nested; the count of its shown replies (`commentsSummary`) and of its likes.
   */
  const commentView = (comment: StoredComment, object: string, post?: StoredPost) => {
    const replies = post
      ? [...post.comments.values()].filter((c) => c.parentUrn === comment.urn && shown(post, c)).length
      : 0;
    return {
      ...commentBody(comment, object),
      commentsSummary: {
        selectedComments: [],
        totalFirstLevelComments: replies,
        aggregatedTotalComments: replies,
      },
      likesSummary: { selectedLikes: [], likedByCurrentUser: false, totalLikes: 0, aggregatedTotalLikes: 0 },
    };
  };

  const commentBody = (comment: StoredComment, object: string) => ({
    id: comment.id,
    commentUrn: comment.urn,
    $URN: comment.urn,
    actor: comment.actor,
    object,
    ...(comment.parentUrn ? { parentComment: comment.parentUrn } : {}),
    message: { text: comment.text, attributes: [] },
    ...(comment.content
      ? {
          content: comment.content.map((item) => ({
            ...item,
            type: 'IMAGE',
            url: `https://media.licdn.sim/${encodeURIComponent(item.entity.image)}`,
          })),
        }
      : {}),
    created: { actor: comment.actor, time: comment.createdAt },
    lastModified: { actor: comment.actor, time: comment.createdAt },
  });

  const createComment = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const { post, parent } = targetOf(ctx.params.urn as string);
    const body = objectOf(ctx.body);
    const actor = body?.actor;
    const text = objectOf(body?.message)?.text;
    if (typeof actor !== 'string' || !/^urn:li:(person|organization):[\w-]+$/.test(actor)) {
      return linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /actor :: field is required but not found');
    }
    requireActor(ctx, actor, 'partnerApiSocialActions.comments.CREATE');
    const content = commentContent(body?.content, actor);
    if (content && 'status' in content) return content;
    // An image comment may have no text; a comment without an image needs some.
    if (typeof text !== 'string' || (text === '' && !content)) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /message/text :: field is required but not found',
      );
    }
    const long = tooLong(text, '/message/text');
    if (long) return long;
    // A nested comment names the post (its share or activity) as `object`.
    if (body?.object !== undefined && body.object !== post.urn && body.object !== post.activityUrn) {
      return linkedInErrors.badRequest(`Comment object ${String(body.object)} does not match ${post.urn}`);
    }
    if (parent) {
      // Made under the comment's URN, with `parentComment` naming that same comment.
      if (body?.parentComment !== parent.urn) {
        return linkedInError(
          422,
          'UNPROCESSABLE_ENTITY',
          `ERROR :: /parentComment :: must be ${parent.urn}, the comment this nested comment is created under`,
        );
      }
      // LinkedIn nests one level: a nested comment takes no comments of its own.
      if (parent.parentUrn) {
        return linkedInError(
          422,
          'UNPROCESSABLE_ENTITY',
          `ERROR :: /parentComment :: ${parent.urn} is a nested comment; comment on its parent ${parent.parentUrn} instead`,
        );
      }
    } else if (body?.parentComment !== undefined) {
      return linkedInErrors.badRequest('parentComment is only for comments created under a comment URN');
    }
    const outcome = ctx.screen(text, actor);
    const comment = store(post, {
      actor,
      text,
      createdAt: Date.now(),
      content,
      parentUrn: parent?.urn ?? null,
    });
    ctx.record({
      kind: parent ? 'reply' : 'comment',
      id: comment.urn,
      parentId: parent ? parent.urn : post.urn,
      rootId: post.urn,
      text,
      account: actor,
    });
    // As LinkedIn: the header carries the bare comment id; the URN (on the activity) is in the body.
    return {
      status: 201,
      headers: { 'x-restli-id': comment.id },
      body: commentBody(comment, parent ? post.activityUrn : post.urn),
      lost: outcome,
    };
  };

  const store = (
    post: StoredPost,
    fields: Pick<StoredComment, 'actor' | 'text' | 'createdAt' | 'content' | 'parentUrn'>,
  ): StoredComment => {
    const id = snowflake();
    const comment: StoredComment = {
      id,
      urn: `urn:li:comment:(${post.activityUrn},${id})`,
      deleted: false,
      hidden: false,
      ...fields,
    };
    post.comments.set(id, comment);
    return comment;
  };

  /**
   * The comment `:id` under `/rest/socialActions/{urn}`: any comment of the post (first-level or
   * nested) when `urn` is the post, a nested comment of it when `urn` is a comment; 404 when
   * LinkedIn does not show it there.
   */
  const commentUnder = (ctx: SimContext) => {
    const { post, parent } = targetOf(ctx.params.urn as string);
    const comment = post.comments.get(ctx.params.id as string);
    if (!comment || !shown(post, comment) || (parent && comment.parentUrn !== parent.urn)) {
      throw new SimHttpError(
        linkedInErrors.notFound(`Comment ${ctx.params.id} does not exist on ${ctx.params.urn}`),
      );
    }
    return { post, comment };
  };

  const liveComment = (ctx: SimContext) => {
    const { post, comment } = commentUnder(ctx);
    requireActor(ctx, comment.actor, 'partnerApiSocialActions.comments.WRITE');
    const actor = ctx.query.get('actor');
    if (actor !== null && actor !== comment.actor) {
      throw new SimHttpError(
        linkedInError(403, 'ACCESS_DENIED', 'Not enough permissions to modify this comment', 100),
      );
    }
    return { post, comment };
  };

  const updateComment = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    if (headerOf(ctx.headers, 'x-restli-method')?.toUpperCase() !== 'PARTIAL_UPDATE') {
      return linkedInErrors.badRequest('Send X-RestLi-Method: PARTIAL_UPDATE to update a comment');
    }
    const { post, comment } = liveComment(ctx);
    const text = objectOf(objectOf(objectOf(objectOf(ctx.body)?.patch)?.message)?.$set)?.text;
    if (typeof text !== 'string' || text === '') {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /patch/message/$set/text :: field is required',
      );
    }
    const long = tooLong(text, '/patch/message/$set/text');
    if (long) return long;
    const outcome = ctx.screen(text, comment.actor);
    comment.text = text;
    ctx.record({
      kind: 'edit',
      id: comment.urn,
      parentId: post.urn,
      rootId: post.urn,
      text,
      account: comment.actor,
    });
    return {
      status: 200,
      body: {
        id: comment.id,
        commentUrn: comment.urn,
        actor: comment.actor,
        object: post.urn,
        message: { text },
      },
      lost: outcome,
    };
  };

  /** A page of `start`/`count` (LinkedIn's default count 10, at most 100), with `paging.total` and a `next` link. */
  const pageOf = <T>(ctx: SimContext, all: T[]) => {
    const start = Number(ctx.query.get('start') ?? 0);
    const count = Number(ctx.query.get('count') ?? DEFAULT_COUNT);
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(count) || count < 0) {
      throw new SimHttpError(linkedInErrors.badRequest('start and count must be non-negative integers'));
    }
    const size = Math.min(count, MAX_COUNT);
    const elements = all.slice(start, start + size);
    const links =
      start + elements.length < all.length
        ? [
            {
              type: 'application/json',
              rel: 'next',
              href: `${ctx.path}?count=${size}&start=${start + elements.length}`,
            },
          ]
        : [];
    return { elements, paging: { start, count: size, total: all.length, links } };
  };

  const listComments = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const { post, parent } = targetOf(ctx.params.urn as string);
    requireReader(ctx, post.author, 'partnerApiSocialActions.comments.FINDER');
    const all = [...post.comments.values()]
      .filter((comment) => comment.parentUrn === (parent?.urn ?? null) && shown(post, comment))
      .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id))
      .map((comment) => commentView(comment, post.activityUrn, post));
    return { status: 200, body: pageOf(ctx, all) };
  };

  const getComment = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const { post, comment } = commentUnder(ctx);
    requireReader(ctx, post.author, 'partnerApiSocialActions.comments.GET');
    return { status: 200, body: commentView(comment, post.activityUrn, post) };
  };

  const deleteComment = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const { post, comment } = liveComment(ctx);
    comment.deleted = true;
    ctx.record({
      kind: 'delete',
      id: comment.urn,
      parentId: post.urn,
      rootId: post.urn,
      text: null,
      account: comment.actor,
    });
    return { status: 204 };
  };

  /**
   * Others' comments for `/_sim/comments`: on a post (its share URN) or on a comment (its URN); an
   * answer to a nested comment goes to that comment's parent, as LinkedIn threads it. The
   * commenter is the member `urn:li:person:<handle>`.
   */
  const commentStore: SimCommentStore = {
    add: ({ parentId, text, author, createdAt }) => {
      const onComment = commentByUrn(parentId);
      const post = onComment ? onComment.post : posts.get(parentId);
      if (!post || post.deleted) return null;
      const parentUrn = onComment ? (onComment.comment.parentUrn ?? onComment.comment.urn) : null;
      const actor = `urn:li:person:${author.handle.replace(/[^\w-]/g, '')}`;
      return store(post, { actor, text, createdAt: createdAt.getTime(), content: null, parentUrn }).urn;
    },
    setState: (id: string, state: SimCommentState) => {
      const found = commentByUrn(id);
      if (!found) return false;
      found.comment.deleted = state === 'deleted';
      found.comment.hidden = state === 'hidden';
      return true;
    },
  };

  return { createComment, updateComment, listComments, getComment, deleteComment, commentStore };
};
