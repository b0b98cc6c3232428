import type { SimContext, SimResponse } from '../framework/framework.ts';
import { linkedInError, linkedInErrors } from './errors.ts';
import type { StoredPost } from './records.ts';
import type { LinkedInState } from './state.ts';

/** Reading posts: by URN, and an author's posts (`q=author`). */
export const linkedInReadRoutes = (s: LinkedInState) => {
  const { posts, requireReader, checkHeaders, livePost } = s;

  const postView = (post: StoredPost) => ({
    id: post.urn,
    author: post.author,
    commentary: post.commentary,
    visibility: post.visibility,
    lifecycleState: 'PUBLISHED',
    createdAt: post.createdAt,
    publishedAt: post.createdAt,
    lastModifiedAt: post.createdAt,
  });

  const getPost = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    const post = livePost(ctx.params.urn as string);
    requireReader(ctx, post.author, 'partnerApiPostsExternal.GET');
    return { status: 200, body: postView(post) };
  };

  /**
   * The author finder (`q=author`), newest first. Members' own posts need `r_member_social`, a
   * permission LinkedIn grants to few apps: the sim refuses person authors, as LinkedIn does
   * without it; organization pages can be read.
   */
  const findPosts = (ctx: SimContext): SimResponse => {
    checkHeaders(ctx);
    if (ctx.query.get('q') !== 'author')
      return linkedInErrors.badRequest('Only the author finder is supported');
    const author = ctx.query.get('author') ?? '';
    requireReader(ctx, author, 'partnerApiPostsExternal.FINDER-author');
    if (!author.startsWith('urn:li:organization:')) {
      return linkedInError(
        403,
        'ACCESS_DENIED',
        'Not enough permissions to access: partnerApiPostsExternal.FINDER-author',
        100,
      );
    }
    const count = Math.min(Math.max(Number(ctx.query.get('count') ?? 10) || 10, 1), 100);
    const elements = [...posts.values()]
      .filter((post) => !post.deleted && post.author === author)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, count)
      .map(postView);
    return { status: 200, body: { elements, paging: { start: 0, count, links: [] } } };
  };

  return { getPost, findPosts };
};
