import type { PlatformId } from '../domain/platforms/types.ts';
import type { OptionValue } from '../domain/post.ts';

/** What a network client needs to act as a connected channel. */
export interface NetworkCredentials {
  /** Decrypted access token; never logged. */
  accessToken: string;
  /** The network-side account (handle, DID, person URN...). */
  remoteAccountId: string;
  /**
   * The account's own API host where the network has several (a Bluesky account's PDS, e.g.
   * `https://morel.us-east.host.bsky.network`); null or absent: the client's configured base URL.
   */
  serviceUrl?: string | null;
}

/** A published block as the network identifies it. */
export interface RemoteBlock {
  remoteId: string;
  remoteUrl: string;
  /** Extra network references the engine keeps and hands back (e.g. Bluesky's `uri` and `cid`). */
  meta: Record<string, string>;
}

export interface MediaForNetwork {
  mediaId: string;
  mimeType: string;
  size: number;
  altText: string | null;
  /** A presigned GET URL the client may download from or hand to the network. */
  url: string;
}

export interface PublishBlockInput {
  credentials: NetworkCredentials;
  content: string;
  media: MediaForNetwork[];
  /**
   * The files named by the first block's options of type `media` (Pinterest's `coverImage`, YouTube's `thumbnail`), by
   * option key, with presigned URLs like `media`; absent when there are none.
   */
  optionMedia?: Record<string, MediaForNetwork>;
  /** Channel-level fields, given with the first block. */
  title: string | null;
  postType: string | null;
  options: Record<string, OptionValue>;
  /**
   * null for the first block. Otherwise the block to attach to: on `reply` networks the previous
   * block (with `root` the first block), on `comment` networks the first block.
   */
  parent: { block: RemoteBlock; root: RemoteBlock } | null;
  /** Stable for this block of this post across every attempt: networks that take a client key use it, so a lost answer can be looked up. */
  idempotencyKey: string;
  /** 1 on the first publication of the post, 2 on the first retry (POST /posts/{id}/publish), ... */
  round: number;
  /**
   * Where a long upload keeps its place across worker invocations: what an earlier attempt of
   * this block saved (an upload session and its offset), kept with the block's claim. Absent
   * where the caller keeps none (a client must then work without it).
   */
  progress?: UploadProgress;
  /**
   * When the call must have returned (the worker's invocation ends soon after). A client with a
   * resumable upload saves its progress and throws
   * `NetworkError('transient', …, { continueLater: true })` before it. Absent: no limit.
   */
  deadline?: Date;
}

/** A block's upload state, kept with its claim so that the next invocation continues the upload. */
export interface UploadProgress {
  /** What the latest attempt saved for this block; null when nothing was saved. */
  readonly saved: Record<string, unknown> | null;
  /**
   * Saves `state` with the block's claim and extends the claim's lease, so no other worker takes
   * the block over while the upload makes progress. Throws when the claim is no longer this
   * worker's (another took it over): the caller must stop sending at once.
   */
  save(state: Record<string, unknown>): Promise<void>;
}

export interface EditBlockInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
  content: string;
  /** Only on networks whose `remoteEdit` includes them; first block only. */
  title?: string | null;
  options?: Record<string, OptionValue>;
}

export interface DeleteBlockInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
}

export interface LookupBlockInput {
  credentials: NetworkCredentials;
  idempotencyKey: string;
  content: string;
  parent: PublishBlockInput['parent'];
  /** The send was attempted after this time. */
  since: Date;
  /**
   * The upload progress the block's sends saved (`UploadProgress.save`), null when none: a
   * resumable session's status can tell whether the upload completed and which post it made.
   */
  saved?: Record<string, unknown> | null;
}

/**
 * How a network error is to be handled:
 * - `transient`: try again later (429, a network that could not be reached; with `outcomeUnknown`
 *   when the request reached the network: 5xx, a timeout or reset after sending);
 * - `permanent`: the network refused this content; the channel fails with `message`;
 * - `reconnect`: the token is expired or revoked; the channel must be reconnected.
 */
export type NetworkErrorKind = 'transient' | 'permanent' | 'reconnect';

export class NetworkError extends Error {
  constructor(
    readonly kind: NetworkErrorKind,
    message: string,
    readonly details: {
      /** HTTP status of the network's answer, when there was one. */
      status?: number;
      /** Seconds the network asked us to wait (429 Retry-After, rate-limit reset). */
      retryAfterSeconds?: number;
      /**
       * With `rateLimited` and no `retryAfterSeconds`: the latest reset the network is known to
       * have, in seconds (LinkedIn's daily limits reset at midnight UTC). The engine's growing
       * steps never wait past it.
       */
      resetBySeconds?: number;
      /**
       * true when the network may have stored the post although it did not confirm it: no answer
       * after the request was sent (timeout, reset), or a 5xx (a gateway or server failing after
       * the request reached it). The engine looks the block up instead of sending it again.
       */
      outcomeUnknown?: boolean;
      /**
       * true when the network refused the post as a duplicate of one it already has (X's 403
       * duplicate content, LinkedIn's DUPLICATE_POST). After a lost answer this means "the
       * earlier send went through", not a refusal.
       */
      duplicate?: boolean;
      /**
       * With kind `reconnect`: the network said the access token expired (not revoked). The token
       * service refreshes it and the call is tried once more; only a refused refresh makes the
       * channel `needs_reconnect`.
       */
      tokenExpired?: boolean;
      /**
       * With kind `reconnect`: the token lacks a permission (scope) the call needs; the message
       * names it and says that reconnecting grants it. The channel's `needs_reconnect` event and
       * failure carry that message instead of "expired or revoked".
       */
      missingPermission?: boolean;
      /**
       * With kind `transient`: the network's rate limit (not an outage). The engine waits until
       * `retryAfterSeconds` without spending an attempt; without it (a reset not announced), in
       * growing steps up to `resetBySeconds` (see core/publishing/rate-limit-wait.ts).
       */
      rateLimited?: boolean;
      /**
       * With kind `transient`: a resumable upload is under way and its progress is saved
       * (`UploadProgress.save`); nothing was posted. The next attempt continues it, without
       * spending an attempt.
       */
      continueLater?: boolean;
      /**
       * With kind `permanent`: the guarded path refused the call to a host a client chose or a
       * network named: an address the address policy refuses or plain http (nothing was sent), or
       * a redirect (not followed). Trying again cannot change that.
       */
      notAllowed?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

/** One network's API as the publishing engine uses it. Every method throws `NetworkError` on failure. */
export interface NetworkClient {
  readonly platform: PlatformId;
  /**
   * How long after a send `lookup` may still miss the block (the network's consistency window,
   * seconds): 0 where the lookup reads what was written (Bluesky's getRecord on the PDS, a client
   * key), X's timeline lag bound for X. Before it has passed, a lookup that finds nothing does not
   * prove the block was not stored.
   */
  readonly consistencyWindowSeconds: number;
  publish(input: PublishBlockInput): Promise<RemoteBlock>;
  edit(input: EditBlockInput): Promise<void>;
  delete(input: DeleteBlockInput): Promise<void>;
  /**
   * Finds a block whose publication outcome was lost: the block, or null when the network does not
   * show it (proof that it was not stored only once `consistencyWindowSeconds` have passed since
   * the send). Absent on networks that offer no way to look a post up.
   */
  lookup?(input: LookupBlockInput): Promise<RemoteBlock | null>;
  /**
   * The block's engagement as the network reports it now (running totals), under the stable names
   * of `MetricName`. A metric the network did not report is absent, never 0. Absent on networks
   * that offer no metrics.
   */
  metrics?(input: MetricsInput): Promise<MetricsReading>;
  /**
   * One page of the comments under a published post, the whole conversation: answers to the first
   * block, to later blocks and to other comments, each with its parent. Newest or oldest first as
   * the network pages them. Absent on networks whose comments cannot be read (`commentsReadable`).
   */
  comments?(input: CommentsInput): Promise<CommentsPage>;
  /**
   * One comment of the post's conversation by its network id; null when the network does not show
   * it there (deleted, hidden from the API, or under another post). Replies start from it.
   */
  findComment?(input: CommentInput): Promise<RemoteComment | null>;
  /** Answers `comment` with `content` (and images where `commentReplies` allows); the reply as the network stored it. */
  reply?(input: ReplyInput): Promise<RemoteComment>;
  /**
   * Finds a reply whose answer was lost: the reply, or null when the network does not show it
   * (proof that it was not stored only once `consistencyWindowSeconds` have passed since `since`).
   */
  lookupReply?(input: LookupReplyInput): Promise<RemoteComment | null>;
  /** Deletes a reply Herald made; a reply the network no longer has counts as deleted (no error). */
  deleteReply?(input: DeleteReplyInput): Promise<void>;
}

/** A comment under a published post, as the network reports it. */
export interface RemoteComment {
  /** The network's own id (a post id, a comment URN, an at:// URI, a `t1_` fullname...). */
  remoteId: string;
  /**
   * The network id of what it answers: one of the post's blocks (its `remoteId`) or another
   * comment. A top-level comment on the first block names the first block.
   */
  parentRemoteId: string;
  author: {
    /** Display name; null where the network gives none. */
    name: string | null;
    /** The handle or username as the network shows it (without a leading @); null where it gives none. */
    handle: string | null;
  };
  text: string;
  /** ISO 8601. */
  createdAt: string;
  /** null where the network does not report likes for comments (missing is not 0). */
  likeCount: number | null;
  /** A link to the comment on the network; null where it has none. */
  url: string | null;
  /** Extra references a reply or delete needs later (Bluesky's `cid`, the thread root), kept and handed back. */
  meta: Record<string, string>;
}

export interface CommentsInput {
  credentials: NetworkCredentials;
  /** The post's first block: the conversation's root. */
  block: RemoteBlock;
  /** Every block of the post as published on this channel, first block first (threads' later blocks, a comment network's own comments). */
  blocks: RemoteBlock[];
  /** The network's cursor from the previous page's `nextCursor`; null for the first page. */
  cursor: string | null;
  /** Only comments made at or after this time, where the network can filter (the caller filters again). */
  since: Date | null;
  /** Most comments wanted on this page (1–100); a network may return fewer. */
  limit: number;
  /** How long the post has been live (seconds): simulated networks (the sandbox) grow their comments from it. */
  ageSeconds?: number;
}

export interface CommentsPage {
  comments: RemoteComment[];
  /** The network's cursor for the next page; null when this is the last. */
  nextCursor: string | null;
}

export interface CommentInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
  blocks: RemoteBlock[];
  remoteId: string;
}

export interface ReplyInput {
  credentials: NetworkCredentials;
  /** The post's first block (the conversation's root). */
  block: RemoteBlock;
  /** The comment answered, as `findComment` returned it. */
  comment: RemoteComment;
  content: string;
  /** Images, where the network's `commentReplies` takes them. */
  media: MediaForNetwork[];
  /** Stable for this reply across every attempt: networks that take a client key use it, so a lost answer can be looked up. */
  idempotencyKey: string;
}

export interface LookupReplyInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
  comment: RemoteComment;
  content: string;
  idempotencyKey: string;
  /** The first send was attempted after this time. */
  since: Date;
}

export interface DeleteReplyInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
  /** The reply as `reply` or `lookupReply` returned it. */
  reply: Pick<RemoteComment, 'remoteId' | 'parentRemoteId' | 'meta'>;
}

/**
 * The content token that makes a simulator (and the sandbox) put a few comments from other
 * accounts under the post it publishes, so that comments can be tried locally
 * (docs/running-locally.md, "Test keys and sim tokens").
 */
export const SIM_COMMENTS_TOKEN = 'sim:comments';

/** Whether a block's content asks the simulators for comments (`sim:comments` as a word of its own). */
export const wantsSimComments = (content: string): boolean => /(^|\s)sim:comments(?=\s|$)/.test(content);

export interface MetricsInput {
  credentials: NetworkCredentials;
  block: RemoteBlock;
  /**
   * How long the block has been live on the metrics cadence (seconds, unscaled): simulated
   * networks (the sandbox) grow their counts from it; real networks ignore it.
   */
  ageSeconds?: number;
}

/** Stable metric names across networks (each client maps the network's own names onto these). */
export const METRIC_NAMES = [
  'likes',
  'comments',
  'views',
  'shares',
  'reposts',
  'quotes',
  'saves',
  'impressions',
  'reach',
  'clicks',
  'bookmarks',
  'replies',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];
/** Only the metrics the network reported: missing is not zero. */
export type MetricsReading = Partial<Record<MetricName, number>>;

/** Content tokens that pick an outcome in the sandbox and on the simulators (documented in docs/running-locally.md, "Test keys and sim tokens"). */
export const SIM_TOKENS = [
  'sim:fail-once',
  'sim:fail',
  'sim:flaky',
  'sim:reconnect',
  'sim:timeout',
  'sim:reset',
  'sim:bad-gateway',
] as const;
export type SimToken = (typeof SIM_TOKENS)[number];

/** The tokens whose post the network stores before the answer is lost (held, reset, or a 502 from a gateway). */
export const LOST_ANSWER_TOKENS: readonly SimToken[] = ['sim:timeout', 'sim:reset', 'sim:bad-gateway'];

/** The token a block's content carries, if any (`sim:fail-once` is not `sim:fail`). */
export const simTokenOf = (content: string): SimToken | null => {
  for (const token of SIM_TOKENS) {
    if (new RegExp(`(^|\\s)${token.replace(/[-:]/g, '\\$&')}(?=\\s|$)`).test(content)) return token;
  }
  return null;
};
