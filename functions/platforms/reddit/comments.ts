import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteReplyInput,
  type LookupReplyInput,
  type NetworkCredentials,
  NetworkError,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import { type HttpAnswer, stringField } from '../network-http.ts';
import type { redditCall } from './http.ts';

/**
 * A Reddit post's comments (oauth.reddit.com):
 * - `comments`: the first page is `GET /comments/{article}?sort=new&limit=` (a tree: each comment's
 *   `replies` is a Listing), flattened with each comment's `parent_id` (`t3_…` the post, `t1_…` a
 *   comment) as its parent. Reddit leaves out what does not fit the limit as `more` things naming
 *   the ids left; those ids are the cursor, and the next pages are
 *   `GET /api/morechildren?link_id=&children=` (flat, at most `limit` ids a call, Reddit reads 100).
 *   A `more` without ids ("continue this thread", below Reddit's depth of about 10 levels) is
 *   followed on a page of its own with `/comments/{article}?comment=<id>`. Reddit filters by no
 *   date: `since` is applied here.
 * - Deleted and removed comments come back as `[deleted]` / `[removed]` with author `[deleted]`:
 *   kept, with that text and no author (deleted ones only while replies hang under them).
 * - `likeCount` is Reddit's `score` (points: upvotes less downvotes, fuzzed, the author's own
 *   upvote counted; it can be below zero), the same number the metrics read as `likes`; null while
 *   the subreddit hides new comments' scores (`score_hidden`). Reddit users have no display name:
 *   `author.name` is null, `author.handle` the username.
 * - `findComment`: `GET /api/info?id=t1_…`, under this post (`link_id`), not a placeholder.
 * - `reply`: `POST /api/comment {thing_id, text}` (refusals in `json.errors`, `RATELIMIT` "try again
 *   in N minutes" a rate limit: http.ts); `deleteReply`: `POST /api/del` (200 for a thing already gone).
 * - `lookupReply`: Reddit takes no client key: the account's newest comments
 *   (`/user/{name}/comments?sort=new`), answering the comment, with the same text, since the send.
 * Scopes: `read` (listing, info, morechildren), `submit` (comment), `edit` (del), `history` (the
 * account's comments) and `identity` (its name), all in Herald's consent; a grant without one is
 * `missingPermission` naming it.
 */

type Call = (
  credentials: NetworkCredentials,
  request: Parameters<typeof redditCall>[2],
  alsoFine?: number[],
) => Promise<HttpAnswer>;

type Thing = Record<string, unknown>;

const WEB = 'https://www.reddit.com';
const PLACEHOLDERS = new Set(['[deleted]', '[removed]']);
/** Tolerance on `created_utc` against our clock when matching a reply to a send. */
const CLOCK_SKEW_SECONDS = 5;
/** Reddit reads at most this many ids a `morechildren` call. */
const MORE_CHILDREN_MAX = 100;

/** The `{ kind, data }` children of a Listing. */
const thingsOf = (listing: unknown): { kind: string; data: Thing }[] => {
  const children = (listing as { data?: { children?: unknown } } | null)?.data?.children;
  return Array.isArray(children) ? children.flatMap(asThing) : [];
};
const asThing = (child: unknown): { kind: string; data: Thing }[] => {
  const c = child as { kind?: unknown; data?: unknown } | null;
  return typeof c?.kind === 'string' && c.data && typeof c.data === 'object'
    ? [{ kind: c.kind, data: c.data as Thing }]
    : [];
};

const isPlaceholder = (data: Thing) =>
  stringField(data, 'author') === '[deleted]' && PLACEHOLDERS.has(String(data.body ?? ''));

/** Reddit's refusal of a grant without `scope`, named (http.ts classifies the 403 itself). */
const scoped = (scope: string, what: string) => (error: unknown) => {
  if (error instanceof NetworkError && error.details.missingPermission) {
    throw new NetworkError(
      'reconnect',
      `Reddit refused to ${what}: the channel's grant lacks the "${scope}" scope (insufficient_scope); reconnect the channel to grant it.`,
      error.details,
    );
  }
  throw error;
};

/**
 * A cursor is what `more` things left to read, comma-separated: Reddit's base-36 comment ids, and
 * `~<id>` for a "continue this thread" under that comment.
 */
const idsOfCursor = (cursor: string): string[] => {
  const ids = cursor.split(',').filter(Boolean);
  if (ids.some((id) => !/^~?[0-9a-z]+$/.test(id)))
    throw new NetworkError('permanent', 'This is not a Reddit comments cursor.');
  return ids;
};

/** What a `more` thing leaves to read: its ids, or (none named: "continue this thread") its parent. */
const leftBy = (data: Thing): string[] => {
  const ids = Array.isArray(data.children)
    ? data.children.filter((id): id is string => typeof id === 'string')
    : [];
  if (ids.length > 0) return ids;
  const parent = String(data.parent_id ?? '');
  return parent.startsWith('t1_') ? [`~${parent.slice(3)}`] : [];
};

export class RedditComments {
  constructor(
    private readonly call: Call,
    private readonly nameOf: (credentials: NetworkCredentials) => Promise<string>,
  ) {}

  toRemote(data: Thing): RemoteComment {
    const name = String(data.name);
    const placeholder = isPlaceholder(data);
    const author = stringField(data, 'author');
    const permalink = stringField(data, 'permalink');
    const created = typeof data.created_utc === 'number' ? data.created_utc : 0;
    return {
      remoteId: name,
      parentRemoteId: String(data.parent_id ?? ''),
      author: { name: null, handle: placeholder || !author || author === '[deleted]' ? null : author },
      text: String(data.body ?? ''),
      createdAt: new Date(created * 1000).toISOString(),
      likeCount: data.score_hidden === true || typeof data.score !== 'number' ? null : data.score,
      url: permalink ? `${WEB}${permalink}` : null,
      meta: { linkId: String(data.link_id ?? '') },
    };
  }

  async comments(input: CommentsInput): Promise<CommentsPage> {
    const read = scoped('read', 'read the comments');
    const limit = Math.min(100, Math.max(1, input.limit));
    const out: RemoteComment[] = [];
    let next: string[] = [];
    const article = encodeURIComponent(input.block.remoteId.replace(/^t3_/, ''));
    /** Every comment of a tree (skipping `skip`, already listed), and what its `more` things leave. */
    const walk = (listing: unknown, skip?: string) => {
      for (const { kind, data } of thingsOf(listing)) {
        if (kind === 't1') {
          if (data.name !== skip) out.push(this.toRemote(data));
          if (data.replies && typeof data.replies === 'object') walk(data.replies);
        } else if (kind === 'more') {
          next.push(...leftBy(data));
        }
      }
    };
    const ids = input.cursor ? idsOfCursor(input.cursor) : [];
    const head = ids[0];
    if (!input.cursor || head?.startsWith('~')) {
      // The first page, or a "continue this thread": the tree (under that comment).
      const answer = await this.call(input.credentials, {
        method: 'GET',
        path: `/comments/${article}?sort=new&limit=${limit}&raw_json=1${head ? `&comment=${head.slice(1)}` : ''}`,
      }).catch(read);
      walk((Array.isArray(answer.body) ? answer.body : [])[1], head ? `t1_${head.slice(1)}` : undefined);
      next.push(...ids.slice(1));
    } else {
      const plain = ids.findIndex((id) => id.startsWith('~'));
      const asked = ids.slice(0, Math.min(MORE_CHILDREN_MAX, limit, plain === -1 ? ids.length : plain));
      const rest = ids.slice(asked.length);
      const answer = await this.call(input.credentials, {
        method: 'GET',
        path: `/api/morechildren?api_type=json&sort=new&raw_json=1&link_id=${encodeURIComponent(input.block.remoteId)}&children=${asked.join(',')}`,
      }).catch(read);
      const things = (answer.body as { json?: { data?: { things?: unknown } } } | null)?.json?.data?.things;
      // What did not fit this page is asked again next time: the topmost cut comments (their
      // replies come back with them), before the ids still waiting.
      const cut: string[] = [];
      const cutNames = new Set<string>();
      const found: string[] = [];
      for (const { kind, data } of (Array.isArray(things) ? things : []).flatMap(asThing)) {
        const parent = String(data.parent_id ?? '');
        if (kind === 'more') {
          if (!cutNames.has(parent)) found.push(...leftBy(data));
        } else if (kind === 't1') {
          if (out.length < limit && !cutNames.has(parent)) out.push(this.toRemote(data));
          else {
            cutNames.add(String(data.name));
            if (!cutNames.has(parent)) cut.push(String(data.id ?? String(data.name).slice(3)));
          }
        }
      }
      next = [...cut, ...found, ...rest];
    }
    const since = input.since ? input.since.getTime() : null;
    return {
      comments: since === null ? out : out.filter((c) => Date.parse(c.createdAt) >= since),
      nextCursor: next.length > 0 ? next.join(',') : null,
    };
  }

  async findComment(input: CommentInput): Promise<RemoteComment | null> {
    if (!/^t1_[0-9a-z]+$/.test(input.remoteId)) return null;
    const answer = await this.call(input.credentials, {
      method: 'GET',
      path: `/api/info?id=${encodeURIComponent(input.remoteId)}&raw_json=1`,
    }).catch(scoped('read', 'read the comment'));
    const found = thingsOf(answer.body).find((t) => t.kind === 't1' && t.data.name === input.remoteId)?.data;
    if (!found || isPlaceholder(found) || found.link_id !== input.block.remoteId) return null;
    return this.toRemote(found);
  }

  async reply(input: ReplyInput): Promise<RemoteComment> {
    if (input.media.length > 0) throw new NetworkError('permanent', 'Reddit replies carry text only.');
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: '/api/comment',
      form: { api_type: 'json', thing_id: input.comment.remoteId, text: input.content },
    }).catch(scoped('submit', 'post the reply'));
    const things = (answer.body as { json?: { data?: { things?: unknown } } } | null)?.json?.data?.things;
    const data = (Array.isArray(things) ? things : []).flatMap(asThing)[0]?.data;
    if (!data || !stringField(data, 'name')?.startsWith('t1_')) {
      throw new NetworkError('transient', 'Reddit accepted the reply but its answer had no comment id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return this.toRemote(data);
  }

  async lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    const author = await this.nameOf(input.credentials).catch(scoped('identity', "read the account's name"));
    const answer = await this.call(input.credentials, {
      method: 'GET',
      path: `/user/${encodeURIComponent(author)}/comments?sort=new&limit=100&raw_json=1`,
    }).catch(scoped('history', "read the account's comments"));
    const from = input.since.getTime() / 1000 - CLOCK_SKEW_SECONDS;
    const canonical = (text: string) => text.replace(/\s+/g, ' ').trim();
    for (const { kind, data } of thingsOf(answer.body)) {
      if (kind !== 't1' || data.parent_id !== input.comment.remoteId) continue;
      if (typeof data.created_utc !== 'number' || data.created_utc < from) continue;
      if (canonical(String(data.body ?? '')) === canonical(input.content)) return this.toRemote(data);
    }
    return null;
  }

  async deleteReply(input: DeleteReplyInput): Promise<void> {
    // Reddit answers 200 {} for a thing already gone: a second delete succeeds.
    await this.call(input.credentials, {
      method: 'POST',
      path: '/api/del',
      form: { id: input.reply.remoteId },
    }).catch(scoped('edit', 'delete the reply'));
  }
}
