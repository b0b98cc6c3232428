import type { SimCommentStore } from '../framework/comments.ts';
import type { SimContext, SimResponse } from '../framework/framework.ts';
import { redditError } from './errors.ts';
import { base36, type SimRedditComment, type SimRedditPost } from './records.ts';
import type { RedditState } from './state.ts';

/**
 * A post's conversation as Reddit serves it (https://www.reddit.com/dev/api#GET_comments_{article},
 * #GET_api_morechildren, #GET_user_{username}_comments):
 * - `GET /comments/{article}?sort=&limit=&depth=`: `[post listing, comment listing]`, the comments
 *   as a tree (each `t1`'s `replies` a Listing, or `""` when it has none), `sort=new` newest first
 *   at every level. At most `limit` comments come back (depth first); the rest of each level is one
 *   `kind: "more"` thing naming their ids in `children` (and, in `count`, how many comments they
 *   hold with their replies). Below `depth` levels (default 10) a `more` with no children stands
 *   for "continue this thread", which `?comment=<id36>` opens (that comment and its replies).
 * - `GET /api/morechildren?api_type=json&link_id=&children=&sort=`: the named comments (at most 100
 *   ids are read) with their replies, flat (`parent_id` links them), in
 *   `json.data.things`.
 * - A deleted comment with replies stays as `[deleted]` (author `[deleted]`); without replies it
 *   is gone. A removed comment (the `hidden` state: the moderators') is `[removed]`, author
 *   `[deleted]`. Scores are points (the author's own upvote: 1).
 * - `GET /user/{name}/comments?sort=new&limit=`: the account's comments, newest first.
 * The common `/_sim/comments` hooks add comments (parent: the post's `t3_` or a comment's `t1_`
 * fullname; the commenter's handle is the Reddit username) and change their state.
 */
export const redditCommentRoutes = (s: RedditState) => {
  const { posts, comments, visible, postData, commentData, listing } = s;

  const store: SimCommentStore = {
    add: ({ parentId, text, author, createdAt }) => {
      const post = parentId.startsWith('t3_') ? posts.get(parentId.slice(3)) : undefined;
      const parent = parentId.startsWith('t1_') ? comments.get(parentId.slice(3)) : undefined;
      const linkId = post?.name ?? parent?.linkId;
      if (!linkId) return null;
      const id = base36();
      const stored: SimRedditComment = {
        id,
        name: `t1_${id}`,
        author: author.handle,
        linkId,
        parentId,
        body: text,
        createdUtc: createdAt.getTime() / 1000,
        deleted: false,
        removed: false,
        score: 1,
      };
      comments.set(id, stored);
      posts.get(linkId.slice(3))?.comments.push(stored);
      return stored.name;
    },
    setState: (fullname, state) => {
      const comment = comments.get(fullname.replace(/^t1_/, ''));
      if (!comment) return false;
      comment.deleted = state === 'deleted';
      comment.removed = state === 'hidden';
      return true;
    },
  };

  const childrenOf = (post: SimRedditPost, parent: string, sort: string) => {
    const list = post.comments.filter((c) => c.parentId === parent);
    return sort === 'new' ? [...list].sort((a, b) => b.createdUtc - a.createdUtc) : list;
  };

  /** Whether the comment is listed: a deleted one only while replies hang under it. */
  const listed = (post: SimRedditPost, c: SimRedditComment, sort: string): boolean =>
    !c.deleted || childrenOf(post, c.name, sort).some((child) => listed(post, child, sort));

  /** The comment as listings show it: `[deleted]`/`[removed]` placeholders keep their place. */
  const dataOf = (post: SimRedditPost, c: SimRedditComment, depth: number) => {
    const data = { ...commentData(c, post), depth };
    if (c.deleted || c.removed) {
      return { ...data, author: '[deleted]', body: c.deleted ? '[deleted]' : '[removed]' };
    }
    return data;
  };

  const sizeOf = (post: SimRedditPost, c: SimRedditComment, sort: string): number =>
    1 +
    childrenOf(post, c.name, sort)
      .filter((x) => listed(post, x, sort))
      .reduce((n, x) => n + sizeOf(post, x, sort), 0);

  const more = (
    post: SimRedditPost,
    parent: string,
    rest: SimRedditComment[],
    depth: number,
    sort: string,
  ) => ({
    kind: 'more',
    data: {
      count: rest.reduce((n, c) => n + sizeOf(post, c, sort), 0),
      name: rest[0] ? rest[0].name : 't1__',
      id: rest[0] ? rest[0].id : '_',
      parent_id: parent,
      depth,
      children: rest.map((c) => c.id),
    },
  });

  const article = (ctx: SimContext): SimResponse => {
    const post = posts.get(ctx.params.article ?? '');
    if (!post || !visible(post)) return redditError(404);
    const sort = ctx.query.get('sort') ?? 'confidence';
    const limit = Math.max(1, Math.min(500, Number(ctx.query.get('limit') ?? 200) || 200));
    const maxDepth = Math.max(1, Number(ctx.query.get('depth') ?? 10) || 10);
    let budget = limit;
    const level = (parent: string, depth: number): unknown[] => {
      const kids = childrenOf(post, parent, sort).filter((c) => listed(post, c, sort));
      if (kids.length === 0) return [];
      if (depth >= maxDepth) {
        // "Continue this thread": Reddit names no children, only that there are more.
        return [
          { kind: 'more', data: { count: 0, name: 't1__', id: '_', parent_id: parent, depth, children: [] } },
        ];
      }
      const out: unknown[] = [];
      for (const [i, c] of kids.entries()) {
        if (budget <= 0) {
          out.push(more(post, parent, kids.slice(i), depth, sort));
          break;
        }
        budget -= 1;
        const replies = level(c.name, depth + 1);
        out.push({
          kind: 't1',
          data: { ...dataOf(post, c, depth), replies: replies.length > 0 ? listing(replies) : '' },
        });
      }
      return out;
    };
    // `comment=<id36>`: the thread under one comment (where "continue this thread" leads).
    const focusId = ctx.query.get('comment');
    let tree: unknown[];
    if (focusId) {
      const focus = comments.get(focusId);
      if (!focus || focus.linkId !== post.name || !listed(post, focus, sort)) {
        tree = [];
      } else {
        budget -= 1;
        const replies = level(focus.name, 1);
        tree = [
          {
            kind: 't1',
            data: { ...dataOf(post, focus, 0), replies: replies.length > 0 ? listing(replies) : '' },
          },
        ];
      }
    } else {
      tree = level(post.name, 0);
    }
    return {
      status: 200,
      body: [listing([{ kind: 't3', data: postData(post) }]), listing(tree)],
    };
  };

  const moreChildren = (ctx: SimContext): SimResponse => {
    const post = posts.get((ctx.query.get('link_id') ?? '').replace(/^t3_/, ''));
    if (!post || !visible(post)) return { status: 200, body: { json: { errors: [], data: { things: [] } } } };
    const sort = ctx.query.get('sort') ?? 'confidence';
    const wanted = (ctx.query.get('children') ?? '').split(',').filter(Boolean).slice(0, 100);
    const things: unknown[] = [];
    const depthOf = (c: SimRedditComment): number => {
      const parent = c.parentId.startsWith('t1_') ? s.comments.get(c.parentId.slice(3)) : undefined;
      return parent ? depthOf(parent) + 1 : 0;
    };
    const walk = (c: SimRedditComment) => {
      things.push({ kind: 't1', data: { ...dataOf(post, c, depthOf(c)), replies: '' } });
      for (const child of childrenOf(post, c.name, sort)) if (listed(post, child, sort)) walk(child);
    };
    for (const id of wanted) {
      const c = comments.get(id);
      if (c && c.linkId === post.name && listed(post, c, sort)) walk(c);
    }
    return { status: 200, body: { json: { errors: [], data: { things } } } };
  };

  const userComments = (ctx: SimContext): SimResponse => {
    const name = (ctx.params.name ?? '').toLowerCase();
    const limit = Math.min(100, Math.max(1, Number(ctx.query.get('limit') ?? 25) || 25));
    const children = [...comments.values()]
      .filter((c) => c.author.toLowerCase() === name && !c.deleted && !c.removed)
      .sort((a, b) => b.createdUtc - a.createdUtc)
      .slice(0, limit)
      .map((c) => ({ kind: 't1', data: commentData(c, posts.get(c.linkId.slice(3))) }));
    return { status: 200, body: listing(children) };
  };

  return { store, article, moreChildren, userComments };
};
