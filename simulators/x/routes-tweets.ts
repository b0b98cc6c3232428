import { objectOf, type SimContext, type SimResponse, snowflake } from '../framework/framework.ts';
import { invalidRequest, problem, rateLimitedAnswer } from './errors.ts';
import { REPLY_SETTINGS, type StoredTweet, X_EPOCH_MS } from './records.ts';
import type { XState } from './state.ts';
import { escapeText, shorten, withMediaLink, xUserForToken } from './text.ts';

/** Tweets: create (replies, quotes, media, polls), delete, read, a user's timeline. */
export const xTweetRoutes = (
  s: XState,
  /** Called with each tweet stored (the `sim:comments` seeding). */
  onStored: (tweet: StoredTweet) => void = () => {},
) => {
  const { tweets, users, timelineLagMs, mediaSim, faults, view, fieldsOf, includedUsers } = s;

  const createTweet = (ctx: SimContext): SimResponse => {
    const user = xUserForToken(ctx.token as string);
    users.set(user.id, user);
    if (Date.now() < faults.dailyLimitedUntil) {
      // The daily cap: the 15-minute window would reset within minutes, the 24-hour one later.
      return rateLimitedAnswer(new Date(Date.now() + 60_000), new Date(faults.dailyLimitedUntil));
    }
    const body = objectOf(ctx.body);
    if (!body) return invalidRequest('Request body must be a JSON object');
    const text = body.text === undefined ? '' : body.text;
    if (typeof text !== 'string') return invalidRequest('$.text: string expected');
    const media = objectOf(body.media);
    const mediaIds = media?.media_ids;
    if (
      media &&
      (!Array.isArray(mediaIds) || !mediaIds.every((id) => typeof id === 'string' && /^\d+$/.test(id)))
    ) {
      return invalidRequest('$.media.media_ids: array of numeric strings expected');
    }
    if (text.trim() === '' && !media) return invalidRequest('Tweet needs text or media', { text: [''] });
    const replySettings = body.reply_settings;
    if (replySettings !== undefined && !REPLY_SETTINGS.includes(replySettings as string)) {
      return invalidRequest(`$.reply_settings: does not have a value in the enumeration [${REPLY_SETTINGS}]`);
    }
    const reply = objectOf(body.reply);
    let parent: StoredTweet | undefined;
    if (body.reply !== undefined) {
      const parentId = reply?.in_reply_to_tweet_id;
      if (typeof parentId !== 'string' || !/^\d+$/.test(parentId)) {
        return invalidRequest('$.reply.in_reply_to_tweet_id: numeric string expected');
      }
      parent = tweets.get(parentId);
      if (!parent || parent.deleted || (parent.hidden && parent.authorId !== user.id)) {
        return problem(
          403,
          'Forbidden',
          'You attempted to reply to a Tweet that is deleted or not visible to you.',
        );
      }
    }
    if (media) {
      const refused = mediaSim.refuseForTweet(mediaIds as string[], user.id);
      if (refused) return refused;
    }
    const outcome = ctx.screen(text, user.id);
    for (const other of tweets.values()) {
      if (!other.deleted && other.authorId === user.id && text !== '' && other.text === text) {
        return problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
      }
    }
    const id = snowflake(X_EPOCH_MS);
    const tweet: StoredTweet = {
      id,
      text,
      ...withMediaLink(shorten(id, text), id, user.username, (mediaIds as string[] | undefined) ?? []),
      authorId: user.id,
      createdAt: new Date(),
      inReplyTo: parent?.id ?? null,
      conversationId: parent?.conversationId ?? id,
      replySettings: typeof replySettings === 'string' ? replySettings : 'everyone',
      mediaIds: (mediaIds as string[] | undefined) ?? [],
      deleted: false,
      hidden: false,
    };
    tweets.set(id, tweet);
    onStored(tweet);
    mediaSim.attach(tweet.mediaIds, id);
    ctx.record({
      kind: parent ? 'reply' : 'post',
      id,
      parentId: parent?.id ?? null,
      rootId: parent ? tweet.conversationId : null,
      text,
      account: user.id,
    });
    if (faults.serverErrorAfterStore && !outcome) {
      faults.serverErrorAfterStore = false;
      return problem(503, 'Service Unavailable', 'Service Unavailable');
    }
    return {
      status: 201,
      body: { data: { id, text: escapeText(tweet.shown), edit_history_tweet_ids: [id] } },
      lost: outcome,
    };
  };

  const deleteTweet = (ctx: SimContext): SimResponse => {
    const user = xUserForToken(ctx.token as string);
    const id = ctx.params.id as string;
    const tweet = tweets.get(id);
    if (!tweet || tweet.deleted) {
      return problem(
        404,
        'Not Found Error',
        `Could not find tweet with id: [${id}].`,
        'https://api.twitter.com/2/problems/resource-not-found',
      );
    }
    if (tweet.authorId !== user.id) {
      return problem(403, 'Forbidden', 'You are not allowed to delete a Tweet you did not create.');
    }
    tweet.deleted = true;
    ctx.record({
      kind: 'delete',
      id,
      parentId: tweet.inReplyTo,
      rootId: tweet.inReplyTo ? tweet.conversationId : null,
      text: null,
      account: user.id,
    });
    return { status: 200, body: { data: { deleted: true } } };
  };

  const getTweet = (ctx: SimContext): SimResponse => {
    const id = ctx.params.id as string;
    const tweet = tweets.get(id);
    if (tweet?.hidden && tweet.authorId !== xUserForToken(ctx.token as string).id) {
      // A protected or withheld account's tweet: X answers 200 with an authorization error.
      return {
        status: 200,
        body: {
          errors: [
            {
              value: id,
              detail: `Sorry, you are not authorized to see the Tweet with id: [${id}].`,
              title: 'Authorization Error',
              resource_type: 'tweet',
              parameter: 'id',
              resource_id: id,
              type: 'https://api.twitter.com/2/problems/not-authorized-for-resource',
            },
          ],
        },
      };
    }
    if (!tweet || tweet.deleted) {
      // X answers lookups of missing tweets with 200 and an `errors` array.
      return {
        status: 200,
        body: {
          errors: [
            {
              value: id,
              detail: `Could not find tweet with id: [${id}].`,
              title: 'Not Found Error',
              resource_type: 'tweet',
              parameter: 'id',
              resource_id: id,
              type: 'https://api.twitter.com/2/problems/resource-not-found',
            },
          ],
        },
      };
    }
    const includes = includedUsers(ctx, [tweet]);
    return { status: 200, body: { data: view(tweet, fieldsOf(ctx)), ...(includes ? { includes } : {}) } };
  };

  const userTweets = (ctx: SimContext): SimResponse => {
    const userId = ctx.params.id as string;
    const maxRaw = ctx.query.get('max_results') ?? '10';
    const max = Number(maxRaw);
    if (!/^\d+$/.test(maxRaw) || max < 5 || max > 100) {
      return invalidRequest(
        `The \`max_results\` query parameter value [${maxRaw}] is not between 5 and 100`,
        {
          max_results: [maxRaw],
        },
      );
    }
    const startRaw = ctx.query.get('start_time');
    const start = startRaw === null ? null : Date.parse(startRaw);
    if (startRaw !== null && (start === null || Number.isNaN(start) || !/Z$|[+-]\d\d:\d\d$/.test(startRaw))) {
      return invalidRequest(
        `Invalid 'start_time':'${startRaw}'. 'start_time' must be a valid RFC3339 date-time`,
        {
          start_time: [startRaw],
        },
      );
    }
    // The timeline is eventually consistent: what was stored within the lag is not in it yet.
    const visibleUntil = Date.now() - timelineLagMs;
    const all = [...tweets.values()]
      .filter((tweet) => tweet.authorId === userId && !tweet.deleted)
      .filter((tweet) => tweet.createdAt.getTime() <= visibleUntil)
      .filter((tweet) => start === null || tweet.createdAt.getTime() >= start)
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const token = ctx.query.get('pagination_token');
    let offset = 0;
    if (token !== null) {
      offset = Number.parseInt(token, 36);
      if (!Number.isInteger(offset) || offset < 0) return invalidRequest('Invalid pagination_token');
    }
    const page = all.slice(offset, offset + max);
    if (page.length === 0) return { status: 200, body: { meta: { result_count: 0 } } };
    const fields = fieldsOf(ctx);
    const meta: Record<string, unknown> = {
      result_count: page.length,
      newest_id: page[0]?.id,
      oldest_id: page[page.length - 1]?.id,
    };
    if (offset + max < all.length) meta.next_token = (offset + max).toString(36);
    return { status: 200, body: { data: page.map((tweet) => view(tweet, fields)), meta } };
  };

  return { createTweet, deleteTweet, getTweet, userTweets };
};
