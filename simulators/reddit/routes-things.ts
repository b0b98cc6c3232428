import { simulatedMetrics } from '../../functions/platforms/sandbox/metrics.ts';
import type { SimContext, SimResponse } from '../framework/framework.ts';
import { jsonErrors, redditError } from './errors.ts';
import { base36, type SimRedditComment, type SimRedditPost } from './records.ts';
import type { RedditState } from './state.ts';

/** Things after submitting: comments, edits, deletes, and the reads (`submitted`, `comments/{article}`, `api/info`). */
export const redditThingRoutes = (s: RedditState) => {
  const { posts, comments, switches, userOf, form, visible, postData, commentData, listing, firstRead } = s;

  const thingOf = (fullname: string): { post?: SimRedditPost; comment?: SimRedditComment } => {
    if (fullname.startsWith('t3_')) {
      const post = posts.get(fullname.slice(3));
      return post && !post.deleted ? { post } : {};
    }
    if (fullname.startsWith('t1_')) {
      const comment = comments.get(fullname.slice(3));
      return comment && !comment.deleted ? { comment } : {};
    }
    return {};
  };

  const comment = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const text = params.text ?? '';
    const parent = thingOf(params.thing_id ?? '');
    if (!parent.post && !parent.comment) {
      return jsonErrors([['NO_THING_ID', 'that thing does not exist', 'parent']]);
    }
    if (parent.comment?.removed) {
      return jsonErrors([['DELETED_COMMENT', 'that comment has been deleted', 'parent']]);
    }
    if (text.trim() === '') return jsonErrors([['NO_TEXT', 'we need something here', 'text']]);
    if ([...text].length > 10000) return jsonErrors([['TOO_LONG', 'this is too long (max: 10000)', 'text']]);
    // The account's posting limit covers comments too (Reddit's "you are doing that too much").
    if (Date.now() < s.postLimitEnd()) {
      const seconds = (s.postLimitEnd() - Date.now()) / 1000;
      return jsonErrors(
        [
          [
            'RATELIMIT',
            `you are doing that too much. try again in ${Math.max(1, Math.ceil(seconds / 60))} minutes.`,
            'ratelimit',
          ],
        ],
        { ratelimit: seconds },
      );
    }
    const lost = ctx.screen(text, author);
    const linkId = parent.post ? parent.post.name : (parent.comment as SimRedditComment).linkId;
    const post = posts.get(linkId.slice(3));
    const id = base36();
    const stored: SimRedditComment = {
      id,
      name: `t1_${id}`,
      author,
      linkId,
      parentId: parent.post ? parent.post.name : (parent.comment as SimRedditComment).name,
      body: text,
      createdUtc: Date.now() / 1000,
      deleted: false,
      removed: false,
      score: 1,
    };
    comments.set(id, stored);
    post?.comments.push(stored);
    ctx.record({
      kind: parent.comment ? 'reply' : 'comment',
      id: stored.name,
      parentId: params.thing_id ?? null,
      rootId: linkId,
      text,
      account: author,
    });
    return {
      status: 200,
      body: { json: { errors: [], data: { things: [{ kind: 't1', data: commentData(stored, post) }] } } },
      lost,
    };
  };

  const editUserText = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const text = params.text ?? '';
    const thing = thingOf(params.thing_id ?? '');
    const owner = thing.post?.author ?? thing.comment?.author;
    if (!owner) return jsonErrors([['NO_THING_ID', 'that thing does not exist', 'thing_id']]);
    if (owner !== author) return jsonErrors([['NOT_AUTHOR', "you can't do that", 'thing_id']]);
    if (thing.post && thing.post.kind !== 'self') {
      return jsonErrors([['NOT_AUTHOR', "you can't edit the text of this post", 'thing_id']]);
    }
    const lost = ctx.screen(text, author);
    if (thing.post) {
      thing.post.selftext = text;
      ctx.record({ kind: 'edit', id: thing.post.name, parentId: null, rootId: null, text, account: author });
      return {
        status: 200,
        body: { json: { errors: [], data: { things: [{ kind: 't3', data: postData(thing.post) }] } } },
        lost,
      };
    }
    const stored = thing.comment as SimRedditComment;
    stored.body = text;
    ctx.record({
      kind: 'edit',
      id: stored.name,
      parentId: stored.linkId,
      rootId: stored.linkId,
      text,
      account: author,
    });
    return {
      status: 200,
      body: {
        json: {
          errors: [],
          data: { things: [{ kind: 't1', data: commentData(stored, posts.get(stored.linkId.slice(3))) }] },
        },
      },
      lost,
    };
  };

  const del = (ctx: SimContext): SimResponse => {
    const params = form(ctx);
    const author = userOf(ctx);
    const thing = thingOf(params.id ?? '');
    const target = thing.post ?? thing.comment;
    // Reddit answers 200 {} whatever the id (gone, someone else's, malformed): nothing changes then.
    if (target && target.author === author) {
      target.deleted = true;
      const linkId = thing.comment?.linkId ?? null;
      ctx.record({
        kind: 'delete',
        id: target.name,
        parentId: linkId,
        rootId: linkId,
        text: null,
        account: author,
      });
    }
    return { status: 200, body: {} };
  };

  const submitted = (ctx: SimContext): SimResponse => {
    if (switches.listingFailures > 0) {
      switches.listingFailures -= 1;
      return redditError(503);
    }
    const name = (ctx.params.name ?? '').toLowerCase();
    const limit = Math.min(100, Math.max(1, Number(ctx.query.get('limit') ?? 25) || 25));
    const now = Date.now();
    const children = [...posts.values()]
      .filter((post) => post.author.toLowerCase() === name && visible(post, now))
      .sort((a, b) => b.createdUtc - a.createdUtc)
      .slice(0, limit)
      .map((post) => ({ kind: 't3', data: postData(post) }));
    return { status: 200, body: listing(children) };
  };

  const info = (ctx: SimContext): SimResponse => {
    const ids = (ctx.query.get('id') ?? '').split(',').filter(Boolean);
    const children = ids.flatMap((fullname): { kind: string; data: Record<string, unknown> }[] => {
      const thing = thingOf(fullname);
      const now = Date.now();
      const since = firstRead.get(fullname) ?? now;
      firstRead.set(fullname, since);
      const m = simulatedMetrics('reddit', fullname, ((now - since) / 1000) * 3600 + 3600);
      const likes = m.likes ?? 0;
      if (thing.post && visible(thing.post)) {
        return [
          {
            kind: 't3',
            data: {
              ...postData(thing.post),
              score: likes,
              ups: likes,
              downs: 0,
              upvote_ratio:
                likes === 0 ? 1 : Math.round((likes / (likes + Math.floor(likes / 9))) * 100) / 100,
              num_comments: (m.comments ?? 0) + thing.post.comments.filter((c) => !c.deleted).length,
            },
          },
        ];
      }
      if (thing.comment) {
        const post = posts.get(thing.comment.linkId.slice(3));
        // A comment the moderators removed keeps its place, without its author or text.
        const removed = thing.comment.removed ? { author: '[deleted]', body: '[removed]' } : {};
        return [
          {
            kind: 't1',
            data: { ...commentData(thing.comment, post), score: likes, ups: likes, downs: 0, ...removed },
          },
        ];
      }
      return [];
    });
    return { status: 200, body: listing(children) };
  };

  return { comment, editUserText, del, submitted, info };
};
