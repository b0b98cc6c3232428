import {
  headerOf,
  objectOf,
  type SimContext,
  SimHttpError,
  type SimResponse,
  snowflake,
} from '../framework/framework.ts';
import { linkedInError, linkedInErrors } from './errors.ts';
import type { SimCommentContent, StoredComment } from './records.ts';
import type { LinkedInState } from './state.ts';

/** Comments on a post (`/rest/socialActions/{urn}/comments`): create, edit, list, delete. */
export const linkedInCommentRoutes = (s: LinkedInState) => {
  const { files, requireActor, requireReader, checkHeaders, livePost } = s;

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

  /** A comment as LinkedIn shows it: its image, when it has one, with the image's URL. */
  const commentView = (comment: StoredComment, object: string) => ({
    id: comment.id,
    commentUrn: comment.urn,
    actor: comment.actor,
    object,
    message: { text: comment.text },
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
    const post = livePost(ctx.params.urn as string);
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
    if (body?.object !== undefined && body.object !== post.urn) {
      return linkedInErrors.badRequest(`Comment object ${String(body.object)} does not match ${post.urn}`);
    }
    const outcome = ctx.screen(text, actor);
    const id = snowflake();
    const urn = `urn:li:comment:(${post.activityUrn},${id})`;
    const comment: StoredComment = { id, urn, actor, text, createdAt: Date.now(), deleted: false, content };
    post.comments.set(id, comment);
    ctx.record({ kind: 'comment', id: urn, parentId: post.urn, rootId: post.urn, text, account: actor });
    // As LinkedIn: the header carries the bare comment id; the URN (on the activity) is in the body.
    return {
      status: 201,
      headers: { 'x-restli-id': id },
      body: commentView(comment, post.urn),
      lost: outcome,
    };
  };

  const liveComment = (ctx: SimContext) => {
    const post = livePost(ctx.params.urn as string);
    const comment = post.comments.get(ctx.params.id as string);
    if (!comment || comment.deleted) {
      throw new SimHttpError(
        linkedInErrors.notFound(`Comment ${ctx.params.id} does not exist on ${post.urn}`),
      );
    }
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

  const listComments = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const post = livePost(ctx.params.urn as string);
    requireReader(ctx, post.author, 'partnerApiSocialActions.comments.FINDER');
    const elements = [...post.comments.values()]
      .filter((comment) => !comment.deleted)
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((comment) => commentView(comment, post.activityUrn));
    return { status: 200, body: { elements, paging: { start: 0, count: elements.length, links: [] } } };
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

  return { createComment, updateComment, listComments, deleteComment };
};
