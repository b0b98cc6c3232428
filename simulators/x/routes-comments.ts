import { createHash } from 'node:crypto';
import type { SimCommentStore } from '../framework/comments.ts';
import type { SimContext, SimResponse } from '../framework/framework.ts';
import { invalidRequest, problem } from './errors.ts';
import { X_EPOCH_MS } from './records.ts';
import type { XState } from './state.ts';
import { shorten } from './text.ts';

/**
 * Replies from other accounts and X's recent search, the way Herald reads a post's conversation
 * (`GET /2/tweets/search/recent?query=conversation_id:<id>`), with what makes it awkward:
 * - search is not the timeline: a tweet shows in it only `searchLagMs` after it was made;
 * - recent search covers 7 days: older tweets are not returned, and a `start_time` earlier than
 *   that is refused with X's 400 (https://docs.x.com/x-api/posts/search-recent-posts);
 * - its own rate limit, per user and 15-minute window (300 for a user token;
 *   https://docs.x.com/x-api/fundamentals/rate-limits), announced in `x-rate-limit-*` on every
 *   answer and answered 429 once spent.
 * A hidden comment is one this user may not see (a protected or withheld account): search leaves
 * it out and `GET /2/tweets/:id` answers X's "Authorization Error".
 */

const WEEK_MS = 7 * 24 * 3600 * 1000;
const WINDOW_MS = 15 * 60 * 1000;
/** `conversation_id:<id>` alone, as Herald searches; other operators are not simulated. */
const CONVERSATION_QUERY = /^conversation_id:(\d{1,19})$/;

/** The X id of a commenter named by handle: stable, so a test can name them. */
export const xIdForHandle = (handle: string): string =>
  (createHash('sha256').update(`x-commenter:${handle}`).digest().readBigUInt64BE(0) >> 9n).toString();

/** A snowflake for a moment in the past (a backdated comment): X's ids follow their creation time. */
let sequence = 0n;
const snowflakeAt = (at: Date) => {
  sequence = (sequence + 1n) & 4095n;
  return ((BigInt(at.getTime() - X_EPOCH_MS) << 22n) | (2n << 12n) | sequence).toString();
};

/** The RFC 3339 time X prints in its messages (minutes, `Z`). */
const minuteOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;

export const xCommentRoutes = (s: XState) => {
  const { tweets, users, searches, faults, view, fieldsOf, includedUsers } = s;

  const store: SimCommentStore = {
    add: ({ parentId, text, author, createdAt }) => {
      const parent = tweets.get(parentId);
      if (!parent || parent.deleted) return null;
      const authorId = xIdForHandle(author.handle);
      users.set(authorId, { id: authorId, username: author.handle, name: author.name });
      const id = snowflakeAt(createdAt.getTime() < Date.now() ? createdAt : new Date());
      tweets.set(id, {
        id,
        text,
        ...shorten(id, text),
        authorId,
        createdAt,
        inReplyTo: parent.id,
        conversationId: parent.conversationId,
        replySettings: 'everyone',
        mediaIds: [],
        deleted: false,
        hidden: false,
      });
      return id;
    },
    setState: (id, state) => {
      const tweet = tweets.get(id);
      if (!tweet) return false;
      tweet.deleted = state === 'deleted';
      tweet.hidden = state === 'hidden';
      return true;
    },
  };

  /** Counts one search against the user's window; the headers X sends, and whether it is spent. */
  const spend = (userId: string) => {
    const now = Date.now();
    let window = searches.get(userId);
    if (!window || now - window.since >= WINDOW_MS) {
      window = { since: now, count: 0 };
      searches.set(userId, window);
    }
    const spent = window.count >= faults.searchLimit;
    if (!spent) window.count += 1;
    return {
      spent,
      headers: {
        'x-rate-limit-limit': faults.searchLimit,
        'x-rate-limit-remaining': Math.max(0, faults.searchLimit - window.count),
        'x-rate-limit-reset': Math.ceil((window.since + WINDOW_MS) / 1000),
      },
    };
  };

  const searchRecent = (ctx: SimContext, userId: string): SimResponse => {
    const limit = spend(userId);
    if (limit.spent)
      return { ...problem(429, 'Too Many Requests', 'Too Many Requests'), headers: limit.headers };
    const answer = (response: SimResponse): SimResponse => ({ ...response, headers: limit.headers });
    const now = Date.now();
    const query = (ctx.query.get('query') ?? '').trim();
    const conversation = CONVERSATION_QUERY.exec(query)?.[1];
    if (!conversation) {
      return answer(
        invalidRequest(`The X simulator searches only \`conversation_id:<id>\` (got [${query}])`, {
          query: [query],
        }),
      );
    }
    const startRaw = ctx.query.get('start_time');
    const start = startRaw === null ? now - WEEK_MS : Date.parse(startRaw);
    if (startRaw !== null) {
      if (Number.isNaN(start) || !/Z$|[+-]\d\d:\d\d$/.test(startRaw)) {
        return answer(
          invalidRequest(
            `Invalid 'start_time':'${startRaw}'. 'start_time' must be a valid RFC3339 date-time`,
            {
              start_time: [startRaw],
            },
          ),
        );
      }
      // Recent search reaches back 7 days, and no closer to now than 10 seconds.
      if (start < now - WEEK_MS) {
        return answer(
          invalidRequest(
            `Invalid 'start_time':'${startRaw}'. 'start_time' must be on or after ${minuteOf(now - WEEK_MS + 60_000)}`,
            { start_time: [startRaw] },
          ),
        );
      }
      if (start > now - 10_000) {
        return answer(
          invalidRequest(
            `Invalid 'start_time':'${startRaw}'. 'start_time' must be a minimum of 10 seconds prior to the request time.`,
            { start_time: [startRaw] },
          ),
        );
      }
    }
    const max = Number(ctx.query.get('max_results') ?? '10');
    const found = [...tweets.values()]
      // The replies in the conversation, not the post that started it (X's documentation:
      // https://docs.x.com/x-api/fundamentals/conversation-id).
      .filter((tweet) => tweet.conversationId === conversation && tweet.id !== conversation)
      .filter((tweet) => !tweet.deleted && !tweet.hidden)
      .filter((tweet) => tweet.createdAt.getTime() >= Math.max(start, now - WEEK_MS))
      // Search indexes a tweet a while after it is made.
      .filter((tweet) => tweet.createdAt.getTime() + faults.searchLagMs <= now)
      .sort(
        (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (BigInt(b.id) > BigInt(a.id) ? 1 : -1),
      );
    const token = ctx.query.get('next_token') ?? ctx.query.get('pagination_token');
    let offset = 0;
    if (token !== null) {
      // X's tokens are opaque base36; this one holds the offset (4 digits) and the conversation.
      offset = Number.parseInt(token.slice(0, 4), 36);
      if (token.slice(4) !== BigInt(conversation).toString(36) || !Number.isInteger(offset) || offset < 0) {
        return answer(
          invalidRequest(`The \`next_token\` query parameter value [${token}] is not valid`, {
            next_token: [token],
          }),
        );
      }
    }
    const page = found.slice(offset, offset + max);
    if (page.length === 0) return answer({ status: 200, body: { meta: { result_count: 0 } } });
    const meta: Record<string, unknown> = {
      newest_id: page[0]?.id,
      oldest_id: page[page.length - 1]?.id,
      result_count: page.length,
    };
    if (offset + max < found.length) {
      meta.next_token = `${(offset + max).toString(36).padStart(4, '0')}${BigInt(conversation).toString(36)}`;
    }
    const fields = fieldsOf(ctx);
    const body: Record<string, unknown> = { data: page.map((tweet) => view(tweet, fields)) };
    const includes = includedUsers(ctx, page);
    if (includes) body.includes = includes;
    body.meta = meta;
    return answer({ status: 200, body });
  };

  return { store, searchRecent };
};
