import { headerOf, objectOf, type SimContext, type SimResponse, snowflake } from '../framework/framework.ts';
import { duplicatePostError, linkedInError, linkedInErrors, VISIBILITIES } from './errors.ts';
import { fromLittleText } from './formats.ts';
import type { LinkedInState } from './state.ts';

/** `POST /rest/posts`, its partial updates and deletes; `onStored` runs for each post stored (the `sim:comments` seed). */
export const linkedInPostRoutes = (s: LinkedInState, onStored: (urn: string, text: string) => void) => {
  const { posts, requireActor, checkHeaders, livePost, postContent } = s;

  const createPost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const body = objectOf(ctx.body);
    if (!body) return linkedInErrors.badRequest('Request body must be a JSON object');
    const author = body.author;
    if (typeof author !== 'string' || !/^urn:li:(person|organization):[\w-]+$/.test(author)) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        `ERROR :: /author :: "${String(author)}" is not a valid author`,
      );
    }
    if (typeof body.commentary !== 'string') {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /commentary :: field is required but not found',
      );
    }
    const visibility = body.visibility;
    if (typeof visibility !== 'string' || !VISIBILITIES.includes(visibility)) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        `ERROR :: /visibility :: "${String(visibility)}" is not an enum`,
      );
    }
    requireActor(ctx, author, 'partnerApiPostsExternal.CREATE');
    if (visibility === 'CONNECTIONS' && author.startsWith('urn:li:organization:')) {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /visibility :: CONNECTIONS is only for member authors',
      );
    }
    const distribution = objectOf(body.distribution);
    if (distribution?.feedDistribution !== 'MAIN_FEED' && distribution?.feedDistribution !== 'NONE') {
      return linkedInError(
        422,
        'UNPROCESSABLE_ENTITY',
        'ERROR :: /distribution/feedDistribution :: field is required',
      );
    }
    if (body.lifecycleState !== 'PUBLISHED' && body.lifecycleState !== 'DRAFT') {
      return linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /lifecycleState :: field is required');
    }
    const content = postContent(body.content, author);
    if (content && 'status' in content) return content;
    const text = fromLittleText(body.commentary);
    const outcome = ctx.screen(text, author);
    for (const other of posts.values()) {
      if (!other.deleted && other.author === author && other.text === text) {
        return duplicatePostError(other.urn);
      }
    }
    const urn = `urn:li:share:${snowflake()}`;
    posts.set(urn, {
      urn,
      activityUrn: `urn:li:activity:${snowflake()}`,
      author,
      commentary: body.commentary,
      text,
      visibility,
      createdAt: Date.now(),
      deleted: false,
      comments: new Map(),
      content,
    });
    ctx.record({ kind: 'post', id: urn, parentId: null, rootId: null, text, account: author });
    onStored(urn, text);
    return {
      status: 201,
      headers: { 'x-restli-id': urn, 'x-linkedin-id': urn },
      lost: outcome,
    };
  };

  const updatePost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    if (headerOf(ctx.headers, 'x-restli-method')?.toUpperCase() !== 'PARTIAL_UPDATE') {
      return linkedInErrors.badRequest('Send X-RestLi-Method: PARTIAL_UPDATE to update a post');
    }
    const post = livePost(ctx.params.urn as string);
    requireActor(ctx, post.author, 'partnerApiPostsExternal.PARTIAL_UPDATE');
    const commentary = objectOf(objectOf(objectOf(ctx.body)?.patch)?.$set)?.commentary;
    if (typeof commentary !== 'string') {
      return linkedInError(422, 'UNPROCESSABLE_ENTITY', 'ERROR :: /patch/$set :: only commentary can be set');
    }
    const text = fromLittleText(commentary);
    const outcome = ctx.screen(text, post.author);
    post.commentary = commentary;
    post.text = text;
    ctx.record({ kind: 'edit', id: post.urn, parentId: null, rootId: null, text, account: post.author });
    return { status: 204, lost: outcome };
  };

  const deletePost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const post = livePost(ctx.params.urn as string);
    requireActor(ctx, post.author, 'partnerApiPostsExternal.DELETE');
    post.deleted = true;
    ctx.record({
      kind: 'delete',
      id: post.urn,
      parentId: null,
      rootId: null,
      text: null,
      account: post.author,
    });
    return { status: 204 };
  };

  return { createPost, updatePost, deletePost };
};
