import type { SimCommentStore } from '../framework/comments.ts';
import { objectOf, type SimContext, type SimResponse } from '../framework/framework.ts';
import { simulatorMetrics } from '../framework/metrics.ts';
import { xrpcError } from './errors.ts';
import { cidOf, nextTid, simDidForHandle } from './ids.ts';
import type { StoredRecord } from './lexicon.ts';
import type { BlueskyState } from './state.ts';

/**
 * The AppView's reads of posts, which the PDS proxies (`app.bsky.feed.getPosts`,
 * `app.bsky.feed.getPostThread`), and the replies of other accounts (the common comment hooks).
 * Awkward as on Bluesky:
 * - a thread is cut at `depth` (default 6, at most 1000) and has no cursor: what is deeper is not
 *   in the answer (https://docs.bsky.app/docs/api/app-bsky-feed-get-post-thread);
 * - a reply the viewer may not see (a block between the accounts, a takedown: the common hook's
 *   `hidden`) is a `#blockedPost` node in the thread, without its replies, and left out of
 *   getPosts; a deleted reply is gone with its replies (they hang from a record that no longer
 *   exists);
 * - an author whose handle does not verify is shown as `handle.invalid`.
 */

const POST = 'app.bsky.feed.post';
const DEFS = 'app.bsky.feed.defs';

/** A commenter's Bluesky handle: the hook's name (`ada_reader`) as a handle on bsky.social. */
export const blueskyHandleOf = (name: string) =>
  name.includes('.') ? name.toLowerCase() : `${name.toLowerCase().replace(/[^a-z0-9-]/g, '-')}.bsky.social`;

export const blueskyThreadRoutes = (s: BlueskyState) => {
  const { records, profiles, blocked } = s;

  const keyOf = (uri: string) => uri.replace(/^at:\/\//, '');
  const didIn = (uri: string) => keyOf(uri).split('/')[0] as string;

  const postView = (stored: StoredRecord) => {
    const did = didIn(stored.uri);
    const profile = profiles.get(did);
    const createdAt = new Date(typeof stored.value.createdAt === 'string' ? stored.value.createdAt : 0);
    const m = simulatorMetrics('bluesky', stored.uri, createdAt);
    return {
      uri: stored.uri,
      cid: stored.cid,
      author: {
        did,
        handle: profile?.handle ?? 'handle.invalid',
        ...(profile?.displayName ? { displayName: profile.displayName } : {}),
      },
      record: stored.value,
      replyCount: m.comments ?? 0,
      likeCount: m.likes ?? 0,
      repostCount: m.reposts ?? 0,
      quoteCount: m.quotes ?? 0,
      indexedAt: createdAt.toISOString(),
    };
  };

  const repliesOf = (uri: string) =>
    [...records.values()]
      .filter((stored) => objectOf(objectOf(stored.value.reply)?.parent)?.uri === uri)
      .sort((a, b) => String(a.value.createdAt).localeCompare(String(b.value.createdAt)));

  const blockedPost = (uri: string) => ({
    $type: `${DEFS}#blockedPost`,
    uri,
    blocked: true,
    author: { did: didIn(uri), viewer: { blockedBy: true } },
  });

  const threadOf = (stored: StoredRecord, depth: number): Record<string, unknown> => {
    const node: Record<string, unknown> = { $type: `${DEFS}#threadViewPost`, post: postView(stored) };
    if (depth > 0) {
      node.replies = repliesOf(stored.uri).map((reply) =>
        blocked.has(reply.uri) ? blockedPost(reply.uri) : threadOf(reply, depth - 1),
      );
    }
    return node;
  };

  const getPostThread = (ctx: SimContext): SimResponse => {
    const uri = ctx.query.get('uri') as string;
    const depth = Number(ctx.query.get('depth') ?? '6');
    const parentHeight = Number(ctx.query.get('parentHeight') ?? '80');
    if (depth > 1000 || parentHeight > 1000 || depth < 0 || parentHeight < 0) {
      return xrpcError(400, 'InvalidRequest', 'depth and parentHeight must be between 0 and 1000');
    }
    const stored = records.get(keyOf(uri));
    if (!stored) return xrpcError(400, 'NotFound', `Post not found: ${uri}`);
    if (blocked.has(uri)) return { status: 200, body: { thread: blockedPost(uri) } };
    const thread = threadOf(stored, depth);
    // Ancestors, up to parentHeight.
    let child = thread;
    let parentUri = objectOf(objectOf(stored.value.reply)?.parent)?.uri;
    for (let height = 0; height < parentHeight && typeof parentUri === 'string'; height++) {
      const parent = records.get(keyOf(parentUri));
      const node = !parent
        ? { $type: `${DEFS}#notFoundPost`, uri: parentUri, notFound: true }
        : blocked.has(parentUri)
          ? blockedPost(parentUri)
          : { $type: `${DEFS}#threadViewPost`, post: postView(parent) };
      child.parent = node;
      if (!parent || blocked.has(parentUri)) break;
      child = node;
      parentUri = objectOf(objectOf(parent.value.reply)?.parent)?.uri;
    }
    return { status: 200, body: { thread } };
  };

  /**
   * `app.bsky.feed.getPosts`: up to 25 `uris`; posts that do not exist or that the viewer may not
   * see are left out of `posts` (no error); counts grow with the post's age.
   */
  const getPosts = (ctx: SimContext): SimResponse => {
    const uris = ctx.query.getAll('uris');
    if (uris.length === 0)
      return xrpcError(400, 'InvalidRequest', 'Error: Params must have the property "uris"');
    if (uris.length > 25)
      return xrpcError(400, 'InvalidRequest', 'Error: uris must not have more than 25 elements');
    const posts = uris.flatMap((uri) => {
      const stored = records.get(keyOf(uri));
      return stored && !blocked.has(stored.uri) ? [postView(stored)] : [];
    });
    return { status: 200, body: { posts } };
  };

  const store: SimCommentStore = {
    add: ({ parentId, text, author, createdAt }) => {
      const parent = records.get(keyOf(parentId));
      if (!parent || !parentId.includes(`/${POST}/`)) return null;
      const handle = blueskyHandleOf(author.handle);
      const did = simDidForHandle(handle);
      profiles.set(did, { handle, displayName: author.name });
      const root = objectOf(objectOf(parent.value.reply)?.root) ?? { uri: parent.uri, cid: parent.cid };
      const value = {
        $type: POST,
        text,
        createdAt: createdAt.toISOString(),
        reply: { root: { uri: root.uri, cid: root.cid }, parent: { uri: parent.uri, cid: parent.cid } },
      };
      const key = `${did}/${POST}/${nextTid()}`;
      records.set(key, { uri: `at://${key}`, cid: cidOf(value), value });
      return `at://${key}`;
    },
    setState: (id, state) => {
      if (!records.has(keyOf(id))) return false;
      if (state === 'deleted') records.delete(keyOf(id));
      if (state === 'hidden') blocked.add(id);
      else blocked.delete(id);
      return true;
    },
  };

  return { getPostThread, getPosts, store };
};
