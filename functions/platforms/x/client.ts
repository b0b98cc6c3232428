// twitter-text's URL extractor only, not its index (see domain/platforms/text-length.ts): the file exports the function itself.
import extractUrlsWithIndices from 'twitter-text/dist/extractUrlsWithIndices.js';
import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteBlockInput,
  type DeleteReplyInput,
  type EditBlockInput,
  type LookupBlockInput,
  type LookupReplyInput,
  type MediaForNetwork,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
  type RemoteComment,
  type ReplyInput,
} from '../../ports/network-client.ts';
import {
  baseUrlOf,
  DEFAULT_TIMEOUT_MS,
  details,
  type HttpAnswer,
  type HttpCall,
  type HttpFailure,
  retryAfterSeconds,
  secondsUntilEpoch,
  sendOrClassify,
  serverError,
  stringField,
  transportError,
} from '../network-http.ts';
import { xComments } from './comments.ts';
import { XMediaUploader, type XMediaUploadOptions } from './media-upload.ts';
import { readXMetrics } from './metrics.ts';
import { X_SCOPES } from './oauth.ts';

/**
 * X API v2 client. Threads: each block replies to the previous one (`reply.in_reply_to_tweet_id`).
 * X has no edit endpoint for API clients and takes no client key, so a lost answer is found by
 * reading the account's recent tweets (`GET /2/users/:id/tweets`) and matching text and parent.
 * That timeline is eventually consistent: a tweet X stored a moment ago can be missing from it for
 * a while, so a lookup that finds nothing proves nothing until `consistencyWindowSeconds` have
 * passed since the send.
 *
 * Media: each file goes through X's chunked media upload first (`media-upload.ts`: streamed from
 * its presigned URL, alt text through media metadata, videos and GIFs polled until processed),
 * then the tweet carries the ids in `media.media_ids`. X takes up to 4 images, or one GIF, or one
 * video per tweet.
 */

export interface XClientOptions {
  /** Default `https://api.x.com`. */
  baseUrl?: string;
  /** Per request, default 10 s. */
  timeoutMs?: number;
  /** How long X's user timeline may lag behind a stored tweet (default 30 s). */
  consistencyWindowSeconds?: number;
  /** Chunk size, processing wait and clock of the media upload. */
  media?: XMediaUploadOptions;
}

const NETWORK = 'X';
/**
 * An upper bound of X's user-timeline lag. X does not document one; tweets usually appear within
 * seconds. Erring long only delays the resend of a tweet that truly failed; erring short risks a
 * second send (which X itself mostly refuses as duplicate content, read as "look again").
 */
export const DEFAULT_X_CONSISTENCY_WINDOW_SECONDS = 30;
/** X caps a user timeline at 3,200 tweets: 32 pages of 100. */
const MAX_TIMELINE_PAGES = 32;

/** X's message from any of its error body shapes: the first of `errors[]` (the specific one), else the problem's `detail`. */
const xMessage = (body: unknown): string | undefined => {
  const errors = (body as { errors?: unknown } | null)?.errors;
  const first = Array.isArray(errors) ? (errors[0] as unknown) : undefined;
  return (
    stringField(first, 'message') ??
    stringField(body, 'detail') ??
    stringField(first, 'detail') ??
    stringField(body, 'title')
  );
};

/**
 * How the engine handles a failed X call: 429 is transient with the wait from
 * `x-rate-limit-reset` (epoch seconds); 5xx is transient with `outcomeUnknown` (X may have stored
 * the tweet); 401 means reconnect; other 4xx are permanent with X's own message, a 403 duplicate
 * content refusal marked `duplicate`, a bare 403 `Forbidden` (a scope missing) naming the scopes; failures without an answer are transient, with
 * `outcomeUnknown` once the request was sent.
 */
export const classifyXFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const message = xMessage(body) ?? `X answered HTTP ${status}`;
  if (status === 429) return rateLimitError(headers, now, xMessage(body));
  if (status >= 500) return serverError(message, status, retryAfterSeconds(headers['retry-after'], now));
  // X answers an expired and a revoked token alike: a refresh tells them apart.
  if (status === 401) return new NetworkError('reconnect', message, { status, tokenExpired: true });
  if (status === 403 && /duplicate content/i.test(message))
    return new NetworkError('permanent', message, { status, duplicate: true });
  // X's bare 403 (no reason given) is what a user token without the endpoint's scopes gets.
  if (status === 403 && message === 'Forbidden')
    return new NetworkError(
      'permanent',
      `X refused the call (Forbidden): the channel's grant may lack a scope Herald needs (${X_SCOPES.join(', ')}); reconnect the channel to grant them.`,
      { status },
    );
  return new NetworkError('permanent', message, { status });
};

/**
 * The comment calls' classification: `classifyXFailure`, except that X's bare 403 `Forbidden` (a
 * user token without a scope the endpoint needs) means reconnect with `missingPermission`, naming
 * the scopes the call needs: a channel connected before Herald asked for them is reconnected once.
 */
const commentFailure =
  (needs: readonly string[], what: string) =>
  (failure: HttpFailure, now: Date = new Date()): NetworkError => {
    if (failure.type === 'answer' && failure.status === 403 && xMessage(failure.body) === 'Forbidden') {
      return new NetworkError(
        'reconnect',
        `X refused to ${what} (Forbidden): it needs the scopes ${needs.join(', ')}; reconnecting the channel grants them.`,
        { status: 403, missingPermission: true },
      );
    }
    return classifyXFailure(failure, now);
  };

/**
 * X's 429: the wait is until the 15-minute window resets (`x-rate-limit-reset`), or until the
 * 24-hour reset when the user's daily cap is what ran out (`x-user-limit-24hour-remaining: 0`, or
 * `x-app-limit-24hour-remaining: 0` for the app's) — whichever of the spent limits resets last.
 * A window that still has requests left (`x-rate-limit-remaining` above 0) beside a spent cap is
 * not what refused: its reset does not count, even when the cap resets first (near its daily
 * reset), which would otherwise add up to 15 minutes of waiting for nothing.
 */
export const rateLimitError = (
  headers: Record<string, string>,
  now: Date,
  xSays = 'Too Many Requests',
): NetworkError => {
  const spent = (prefix: string) => headers[`${prefix}-remaining`]?.trim() === '0';
  const resets: number[] = [];
  let daily = false;
  for (const prefix of ['x-user-limit-24hour', 'x-app-limit-24hour']) {
    const reset = spent(prefix) ? secondsUntilEpoch(headers[`${prefix}-reset`], now) : undefined;
    if (reset !== undefined) {
      resets.push(reset);
      daily = true;
    }
  }
  // The window counts when it is spent, or when no cap is (then it is what refused, whatever it says).
  const windowLeft = headers['x-rate-limit-remaining']?.trim();
  const windowCounts = !daily || windowLeft === undefined || windowLeft === '0';
  const window = windowCounts ? secondsUntilEpoch(headers['x-rate-limit-reset'], now) : undefined;
  if (window !== undefined) resets.push(window);
  const wait = resets.length > 0 ? Math.max(...resets) : retryAfterSeconds(headers['retry-after'], now);
  const message = daily ? `${xSays} (the 24-hour limit of this account is reached)` : xSays;
  return new NetworkError('transient', message, {
    ...details(429, wait),
    rateLimited: true,
  });
};

interface XTweet {
  id: string;
  text: string;
  referenced_tweets?: { type: string; id: string }[];
  entities?: { urls?: { url?: string; expanded_url?: string; media_key?: string }[] };
}

const unescapeEntities = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * A URL the way X's link expansion leaves it comparable: X stores a bare domain as `http://` +
 * the domain and may change the host's case, so the scheme, the host's case and a lone trailing
 * slash do not count.
 */
const comparableUrl = (url: string): string => {
  const match = /^(?:https?:\/\/)?([^/?#]*)(.*)$/i.exec(url.trim()) as RegExpExecArray;
  const rest = match[2] === '/' ? '' : (match[2] as string);
  return `${(match[1] as string).toLowerCase()}${rest}`;
};
/** Marks a link's place in comparable text (it cannot occur in a tweet). */
const LINK = '\u0000';

/**
 * The text a tweet was posted with, in a form comparable to `comparableContent`: X returns `&`,
 * `<`, `>` as HTML entities, every link (a bare domain too) as a t.co link expanded in
 * `entities.urls`, and a trailing t.co link for attached media.
 */
export const postedTextOf = (tweet: XTweet): string => {
  let text = tweet.text;
  for (const url of tweet.entities?.urls ?? []) {
    if (!url.url) continue;
    const isMedia = url.media_key !== undefined || /\/(photo|video)\/\d+$/.test(url.expanded_url ?? '');
    text = text
      .split(url.url)
      .join(isMedia ? '' : `${LINK}${comparableUrl(url.expanded_url ?? url.url)}${LINK}`);
  }
  return unescapeEntities(text).normalize('NFC').trim();
};

/** The content as X will show it, comparable to `postedTextOf`: the links X finds (twitter-text's rules, X's own) marked. */
export const comparableContent = (content: string): string => {
  const text = content.normalize('NFC').trim();
  let out = '';
  let at = 0;
  for (const { url, indices } of extractUrlsWithIndices(text)) {
    out += `${text.slice(at, indices[0])}${LINK}${comparableUrl(url)}${LINK}`;
    at = indices[1];
  }
  return out + text.slice(at);
};

const repliedTo = (tweet: XTweet) =>
  tweet.referenced_tweets?.find((ref) => ref.type === 'replied_to')?.id ?? null;

export class XClient implements NetworkClient {
  readonly platform = 'x' as const;
  readonly consistencyWindowSeconds: number;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly media: XMediaUploader;
  /** Numeric user ids by channel account, from `GET /2/users/me`. */
  private readonly userIds = new Map<string, string>();

  constructor(options: XClientOptions = {}) {
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://api.x.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.consistencyWindowSeconds = options.consistencyWindowSeconds ?? DEFAULT_X_CONSISTENCY_WINDOW_SECONDS;
    this.media = new XMediaUploader(
      (credentials, request, alsoFine) => this.call(credentials, request, alsoFine),
      options.media,
    );
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    const replySettings = input.options.replySettings;
    const id = await this.createTweet(input.credentials, {
      content: input.content,
      replyTo: input.parent?.block.remoteId ?? null,
      replySettings: !input.parent && typeof replySettings === 'string' ? replySettings : null,
      media: input.media,
    });
    return this.block(input.credentials, id);
  }

  /** `POST /2/tweets` (its media uploaded first): the new tweet's id. */
  private async createTweet(
    credentials: NetworkCredentials,
    tweet: {
      content: string;
      replyTo: string | null;
      replySettings: string | null;
      media: MediaForNetwork[];
    },
    classify: typeof classifyXFailure = classifyXFailure,
  ): Promise<string> {
    const body: Record<string, unknown> = {};
    if (tweet.content !== '') body.text = tweet.content;
    if (tweet.replyTo) body.reply = { in_reply_to_tweet_id: tweet.replyTo };
    if (tweet.replySettings) body.reply_settings = tweet.replySettings;
    if (tweet.media.length > 0) {
      body.media = { media_ids: await this.media.uploadAll(tweet.media, credentials) };
    }
    const answer = await this.call(
      credentials,
      { method: 'POST', path: '/2/tweets', json: body },
      [],
      classify,
    );
    const id = stringField((answer.body as { data?: unknown } | undefined)?.data, 'id');
    if (!id) {
      throw new NetworkError('transient', 'X accepted the tweet but its answer had no id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return id;
  }

  async edit(_input: EditBlockInput): Promise<void> {
    throw new NetworkError('permanent', 'X does not allow edits');
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    const path = `/2/tweets/${encodeURIComponent(input.block.remoteId)}`;
    // Already gone counts as deleted: a retried delete after a lost answer must not fail.
    await this.call(input.credentials, { method: 'DELETE', path }, [404]);
  }

  /**
   * Reads the account's tweets since `since` (a few seconds earlier, for clock skew) and returns the
   * one with this text and this reply parent. Null means "not in the timeline yet": a proof of
   * absence only once `consistencyWindowSeconds` have passed since the send.
   */
  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const parentId = input.parent?.block.remoteId ?? null;
    const tweet = await this.findPosted(input.credentials, input.content, parentId, input.since);
    return tweet ? this.block(input.credentials, tweet.id) : null;
  }

  /** The account's tweet with this text and reply parent made since `since`, from its timeline. */
  private async findPosted(
    credentials: NetworkCredentials,
    content: string,
    parentId: string | null,
    since: Date,
    classify: typeof classifyXFailure = classifyXFailure,
  ): Promise<(XTweet & { created_at?: string }) | null> {
    const userId = await this.userId(credentials, classify);
    const wanted = comparableContent(content);
    const startTime = `${new Date(since.getTime() - 5_000).toISOString().slice(0, 19)}Z`;
    let paginationToken: string | undefined;
    for (let page = 0; page < MAX_TIMELINE_PAGES; page++) {
      const query = new URLSearchParams({
        max_results: '100',
        start_time: startTime,
        'tweet.fields': 'created_at,referenced_tweets,entities',
      });
      if (paginationToken) query.set('pagination_token', paginationToken);
      const answer = await this.call(
        credentials,
        { method: 'GET', path: `/2/users/${encodeURIComponent(userId)}/tweets?${query}` },
        [],
        classify,
      );
      const result = answer.body as
        | { data?: (XTweet & { created_at?: string })[]; meta?: { next_token?: string } }
        | undefined;
      for (const tweet of result?.data ?? []) {
        if (postedTextOf(tweet) === wanted && repliedTo(tweet) === parentId) return tweet;
      }
      paginationToken = result?.meta?.next_token;
      if (!paginationToken) return null;
    }
    throw new NetworkError('transient', 'X lookup did not reach the end of the timeline', {
      outcomeUnknown: true,
    });
  }

  /** Comments (comments.ts): recent search's conversation, replies made and found as tweets are. */
  private readonly replies = xComments({
    call: (credentials, request, alsoFine, classify) => this.call(credentials, request, alsoFine, classify),
    createTweet: (credentials, tweet, classify) => this.createTweet(credentials, tweet, classify),
    findPosted: (credentials, content, parentId, since, classify) =>
      this.findPosted(credentials, content, parentId, since, classify),
    urlOf: (credentials, id) => this.block(credentials, id).remoteUrl,
    failure: commentFailure,
  });

  comments(input: CommentsInput): Promise<CommentsPage> {
    return this.replies.comments(input);
  }

  findComment(input: CommentInput): Promise<RemoteComment | null> {
    return this.replies.findComment(input);
  }

  reply(input: ReplyInput): Promise<RemoteComment> {
    return this.replies.reply(input);
  }

  lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    return this.replies.lookupReply(input);
  }

  deleteReply(input: DeleteReplyInput): Promise<void> {
    return this.replies.deleteReply(input);
  }

  private block(credentials: NetworkCredentials, id: string): RemoteBlock {
    const handle = credentials.remoteAccountId.replace(/^@/, '');
    const user = handle === '' || /^\d+$/.test(handle) ? 'i' : handle;
    return { remoteId: id, remoteUrl: `https://x.com/${encodeURIComponent(user)}/status/${id}`, meta: {} };
  }

  /** The numeric user id: the channel's account when numeric, else `GET /2/users/me` (cached). */
  private async userId(
    credentials: NetworkCredentials,
    classify: typeof classifyXFailure = classifyXFailure,
  ): Promise<string> {
    if (/^\d+$/.test(credentials.remoteAccountId)) return credentials.remoteAccountId;
    const cached = this.userIds.get(credentials.remoteAccountId);
    if (cached) return cached;
    const answer = await this.call(credentials, { method: 'GET', path: '/2/users/me' }, [], classify);
    const id = stringField((answer.body as { data?: unknown } | undefined)?.data, 'id');
    if (!id) throw new NetworkError('transient', 'X did not say which user this token belongs to', {});
    this.userIds.set(credentials.remoteAccountId, id);
    return id;
  }

  /** The tweet's public metrics (see metrics.ts). */
  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readXMetrics({ baseUrl: this.baseUrl, timeoutMs: this.timeoutMs }, input);
  }

  private async call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; path: string; json?: unknown },
    alsoFine: number[] = [],
    classify: typeof classifyXFailure = classifyXFailure,
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.baseUrl}${request.path}`,
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
        json: request.json,
        timeoutMs: this.timeoutMs,
      },
      classify,
      (answer) => alsoFine.includes(answer.status),
    );
  }
}
