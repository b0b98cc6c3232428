import {
  type CommentInput,
  type CommentsInput,
  type CommentsPage,
  type DeleteBlockInput,
  type DeleteReplyInput,
  type EditBlockInput,
  type LookupBlockInput,
  type LookupReplyInput,
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
  sendOrClassify,
  serverError,
  stringField,
  transportError,
} from '../network-http.ts';
import { LinkedInComments, parseCommentUrn, postUrl } from './comments.ts';
import { type LinkedInMediaOptions, LinkedInMediaUploader } from './media-upload.ts';
import { readLinkedInMetrics } from './metrics.ts';
import { DEFAULT_LINKEDIN_VERSION } from './version.ts';

export { DEFAULT_LINKEDIN_VERSION };

/**
 * LinkedIn Posts API client (versioned REST: `LinkedIn-Version: YYYYMM`,
 * `X-Restli-Protocol-Version: 2.0.0`), for member profiles (`urn:li:person:<id>`) and, through the
 * same code, organization pages (`urn:li:organization:<id>`). The first block is a post; the other
 * blocks are comments on it (Comments API under `socialActions`). Edits of posts and comments are
 * Rest.li PARTIAL_UPDATEs. Comments come back as LinkedIn returns them: a bare id in
 * `x-restli-id` and `commentUrn: urn:li:comment:(urn:li:activity:…,id)` in the body; the block keeps
 * that URN with the post URN it was made on (`meta.postUrn`), which edits and deletes go through.
 *
 * LinkedIn takes no client key, so `lookup` works with what LinkedIn shows: a comment is found in
 * the post's comments (same actor and text, made since the send); a page post through the author
 * finder (`q=author`); a member's posts cannot be listed (`r_member_social` is closed), so a lost
 * member post is found when a resend is refused as `DUPLICATE_POST`: the refusal names the
 * existing post, which is adopted when its author made it since the first send.
 *
 * Comments (pages only, `LinkedInPageClient`): the post's conversation is read, one comment found,
 * answered, looked up after a lost answer and deleted through the Comments API (comments.ts); a
 * member profile's comments cannot be read, so the `linkedin` client has no such methods.
 *
 * Media (first block): images, a video or a document through LinkedIn's Images, Videos and
 * Documents APIs (media-upload.ts), sent as `content.media` or `content.multiImage` with alt text.
 * A comment (a later block) takes one image, uploaded the same way and sent as
 * `content: [{ entity: { image } }]` (Comments API); more files or another kind are refused
 * (permanent). Access tokens last 60 days; refreshing them belongs to the token store.
 */

export type LinkedInPlatform = 'linkedin' | 'linkedin_page';

export interface LinkedInClientOptions {
  /** Default `https://api.linkedin.com`. */
  baseUrl?: string;
  /** Per request, default 10 s. */
  timeoutMs?: number;
  /**
   * The `LinkedIn-Version` header (YYYYMM). LinkedIn sunsets each version after about a year
   * (HTTP 426 `NONEXISTENT_VERSION`), so this must be moved forward regularly.
   */
  apiVersion?: string;
  /** Media uploads and processing waits (media-upload.ts). */
  media?: LinkedInMediaOptions;
}

/** The version to send: `apiVersion`, else `LINKEDIN_API_VERSION`, else the default; a malformed one is a configuration error. */
export const linkedInVersionOf = (
  configured: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string => {
  const version = configured ?? (env.LINKEDIN_API_VERSION?.trim() || DEFAULT_LINKEDIN_VERSION);
  if (!/^\d{6}(\.\d{2})?$/.test(version)) {
    throw new Error(`LINKEDIN_API_VERSION must be a LinkedIn version like 202607 (YYYYMM), not "${version}"`);
  }
  return version;
};
const NETWORK = 'LinkedIn';

/** Seconds until the next midnight UTC, when LinkedIn's daily application and member limits reset. */
const secondsToUtcMidnight = (now: Date) => {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
};

const inputErrorsOf = (body: unknown): unknown[] => {
  const inputErrors = (body as { errorDetails?: { inputErrors?: unknown } } | null)?.errorDetails
    ?.inputErrors;
  return Array.isArray(inputErrors) ? inputErrors : [];
};

/** LinkedIn's duplicate refusal: `code` or `errorDetails.inputErrors[].code` is `DUPLICATE_POST`. */
const isDuplicatePost = (body: unknown): boolean =>
  stringField(body, 'code') === 'DUPLICATE_POST' ||
  inputErrorsOf(body).some((e) => stringField(e, 'code') === 'DUPLICATE_POST');

/** The post a `DUPLICATE_POST` refusal names (`... duplicate of urn:li:share:…`), or undefined. */
export const duplicateOfUrn = (body: unknown): string | undefined => {
  const texts = [
    stringField(body, 'message'),
    ...inputErrorsOf(body).map((e) => stringField(e, 'description')),
  ];
  for (const text of texts) {
    const match = text ? /urn:li:(?:share|ugcPost):\d+/.exec(text) : null;
    if (match) return match[0];
  }
  return undefined;
};

/**
 * How the engine handles a failed LinkedIn call: 401 (`EXPIRED_ACCESS_TOKEN`,
 * `REVOKED_ACCESS_TOKEN`, `INVALID_ACCESS_TOKEN`) means reconnect; 429 is transient, marked
 * `rateLimited`, with `Retry-After` when sent, else with the daily reset (midnight UTC) as the
 * latest the engine's growing wait may reach (a bare 429 is a short throttle or the daily limit); 426 (a missing or sunset `LinkedIn-Version`) permanent, naming the version; 5xx transient
 * with `outcomeUnknown` (LinkedIn may have created the post); other 4xx permanent with LinkedIn's
 * message, `DUPLICATE_POST` marked `duplicate`; failures without an answer are transient, with
 * `outcomeUnknown` once the request was sent.
 */
export const classifyLinkedInFailure = (
  failure: HttpFailure,
  now: Date = new Date(),
  apiVersion?: string,
): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const message =
    stringField(body, 'message') ?? stringField(body, 'code') ?? `LinkedIn answered HTTP ${status}`;
  if (status === 429) {
    // A rate limit, not an outage: the engine waits without spending an attempt. LinkedIn answers
    // a short throttle and a spent daily limit alike, a bare 429: without `Retry-After` the engine
    // tries again in growing steps, never later than the daily reset at midnight UTC.
    const wait = retryAfterSeconds(headers['retry-after'], now);
    return new NetworkError('transient', message, {
      ...details(status, wait),
      ...(wait === undefined ? { resetBySeconds: secondsToUtcMidnight(now) } : {}),
      rateLimited: true,
    });
  }
  if (status === 426) {
    const version = apiVersion ? `API version ${apiVersion}` : 'the API version Herald sends';
    return new NetworkError(
      'permanent',
      `LinkedIn no longer serves ${version} (${message}); set LINKEDIN_API_VERSION to a current version (YYYYMM).`,
      { status },
    );
  }
  if (status >= 500) return serverError(message, status, retryAfterSeconds(headers['retry-after'], now));
  if (status === 401)
    return new NetworkError('reconnect', message, {
      status,
      ...(stringField(body, 'code') === 'EXPIRED_ACCESS_TOKEN' ? { tokenExpired: true } : {}),
    });
  if (isDuplicatePost(body)) return new NetworkError('permanent', message, { status, duplicate: true });
  return new NetworkError('permanent', message, { status });
};

/**
 * Post commentary is LinkedIn "little text": `| { } @ [ ] ( ) < > # \ * _ ~` are markup, and an
 * unescaped one makes LinkedIn drop or mangle the rest of the text. Hashtags become the hashtag
 * template; every other reserved character is backslash-escaped.
 */
export const toLittleText = (text: string): string => {
  const escapeMarkup = (value: string) => value.replace(/[\\|{}@[\]()<>#*_~]/g, '\\$&');
  return text.replace(
    /(?<=^|\s)#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)|[\\|{}@[\]()<>#*_~]/gu,
    (match: string, tag: string | undefined) => (tag ? `{hashtag|\\#|${escapeMarkup(tag)}}` : `\\${match}`),
  );
};

export { parseCommentUrn };

/** A `DUPLICATE_POST` refusal with the post it names. */
type DuplicateError = NetworkError & { existingUrn?: string };

const elementsOf = (body: unknown): unknown[] => {
  const elements = (body as { elements?: unknown } | null)?.elements;
  return Array.isArray(elements) ? elements : [];
};

export class LinkedInClient implements NetworkClient {
  readonly platform: LinkedInPlatform;
  /** Lookups read what LinkedIn wrote (a post by its URN, comments, the page finder). */
  readonly consistencyWindowSeconds = 0;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  readonly apiVersion: string;
  /** Posts a `DUPLICATE_POST` refusal named, by account and block idempotency key, for `lookup`. */
  private readonly duplicates = new Map<string, string>();
  protected readonly uploader: LinkedInMediaUploader;

  constructor(platform: LinkedInPlatform = 'linkedin', options: LinkedInClientOptions = {}) {
    this.platform = platform;
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://api.linkedin.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.apiVersion = linkedInVersionOf(options.apiVersion);
    this.uploader = new LinkedInMediaUploader(
      (credentials, request) => this.call(credentials, request),
      options.media,
    );
  }

  /** The author URN: the channel's account as given when it is a URN, else a person or organization id. */
  authorOf(credentials: NetworkCredentials): string {
    const account = credentials.remoteAccountId;
    if (account.startsWith('urn:li:')) return account;
    return this.platform === 'linkedin_page' ? `urn:li:organization:${account}` : `urn:li:person:${account}`;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    const author = this.authorOf(input.credentials);
    if (input.parent) {
      // The image is AVAILABLE before the comment goes out: a comment never lacks its image.
      const image =
        input.media.length > 0
          ? await this.uploader.commentImage(input.media, input.credentials, author)
          : undefined;
      return this.comment(input, author, input.parent.root.remoteId, image);
    }
    // Every file AVAILABLE before the post goes out: a post never lacks its media.
    const content =
      input.media.length > 0
        ? await this.uploader.content(input.media, input.credentials, author)
        : undefined;
    const visibility = typeof input.options.visibility === 'string' ? input.options.visibility : 'PUBLIC';
    const answer = await this.rememberDuplicate(input, () =>
      this.call(input.credentials, {
        method: 'POST',
        path: '/rest/posts',
        json: {
          author,
          commentary: toLittleText(input.content),
          visibility,
          distribution: {
            feedDistribution: 'MAIN_FEED',
            targetEntities: [],
            thirdPartyDistributionChannels: [],
          },
          lifecycleState: 'PUBLISHED',
          isReshareDisabledByAuthor: false,
          ...(content ? { content } : {}),
        },
      }),
    );
    const urn = answer.headers['x-restli-id'] ?? answer.headers['x-linkedin-id'];
    if (!urn?.startsWith('urn:li:')) {
      throw new NetworkError('transient', 'LinkedIn accepted the post but its answer had no post URN', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return { remoteId: urn, remoteUrl: postUrl(urn), meta: { urn } };
  }

  private async comment(
    input: PublishBlockInput,
    actor: string,
    postUrn: string,
    image?: string,
  ): Promise<RemoteBlock> {
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: `/rest/socialActions/${encodeURIComponent(postUrn)}/comments`,
      json: {
        actor,
        object: postUrn,
        message: { text: input.content },
        ...(image ? { content: [{ entity: { image } }] } : {}),
      },
    });
    const header = answer.headers['x-restli-id'];
    const fromBody = stringField(answer.body, 'commentUrn');
    const urn =
      fromBody ??
      (header?.startsWith('urn:li:comment:')
        ? header
        : header && /^\d+$/.test(header)
          ? `urn:li:comment:(${postUrn},${header})`
          : undefined);
    const block = urn ? this.commentBlock(urn, postUrn) : null;
    if (!block) {
      throw new NetworkError('transient', 'LinkedIn accepted the comment but its answer had no comment URN', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return block;
  }

  /** A comment as a block: its URN as LinkedIn gave it, with the post URN edits and deletes go through. */
  private commentBlock(urn: string, postUrn: string): RemoteBlock | null {
    const parsed = parseCommentUrn(urn);
    if (!parsed) return null;
    return {
      remoteId: urn,
      remoteUrl: `${postUrl(postUrn)}?commentUrn=${encodeURIComponent(urn)}`,
      meta: { urn, postUrn, commentId: parsed.commentId },
    };
  }

  /** The post and comment id a comment block is edited and deleted through, or null for a post. */
  private commentTarget(block: RemoteBlock) {
    const parsed = parseCommentUrn(block.remoteId);
    if (!parsed) return null;
    // The stored post URN: the one in the comment URN is the activity, which these routes do not take.
    return {
      postUrn: block.meta.postUrn ?? parsed.postUrn,
      commentId: block.meta.commentId ?? parsed.commentId,
    };
  }

  /** Runs a post creation, keeping the post a `DUPLICATE_POST` refusal names for `lookup`. */
  private async rememberDuplicate<T>(input: PublishBlockInput, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      const existing = error instanceof NetworkError ? (error as DuplicateError).existingUrn : undefined;
      if (existing) {
        this.duplicates.set(`${input.credentials.remoteAccountId}\u0000${input.idempotencyKey}`, existing);
      }
      throw error;
    }
  }

  /**
   * Finds a block whose answer was lost (see the class comment). A post a `DUPLICATE_POST` named
   * is adopted only when it is live, by this author and made since the first send: an older post
   * with the same text is not this block.
   */
  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const author = this.authorOf(input.credentials);
    const since = input.since.getTime();
    if (input.parent) {
      const postUrn = input.parent.root.remoteId;
      const answer = await this.call(input.credentials, {
        method: 'GET',
        path: `/rest/socialActions/${encodeURIComponent(postUrn)}/comments?count=100`,
      });
      for (const element of elementsOf(answer.body)) {
        const created = (element as { created?: { time?: unknown } }).created?.time;
        const text = (element as { message?: { text?: unknown } }).message?.text;
        const urn = stringField(element, 'commentUrn');
        if (stringField(element, 'actor') !== author || text !== input.content || !urn) continue;
        if (typeof created === 'number' && created < since) continue;
        return this.commentBlock(urn, postUrn);
      }
      return null;
    }
    const key = `${input.credentials.remoteAccountId}\u0000${input.idempotencyKey}`;
    const named = this.duplicates.get(key);
    if (named) {
      const answer = await this.call(
        input.credentials,
        { method: 'GET', path: `/rest/posts/${encodeURIComponent(named)}` },
        [404],
      );
      if (answer.status === 404) {
        this.duplicates.delete(key);
        return null;
      }
      const created = answer.body && (answer.body as { createdAt?: unknown }).createdAt;
      if (
        stringField(answer.body, 'author') === author &&
        (typeof created !== 'number' || created >= since)
      ) {
        return { remoteId: named, remoteUrl: postUrl(named), meta: { urn: named } };
      }
      throw new NetworkError(
        'permanent',
        `LinkedIn refuses this text as a duplicate of an earlier post (${named}); change the text to publish it again.`,
        { status: answer.status },
      );
    }
    if (this.platform !== 'linkedin_page') return null;
    const answer = await this.call(input.credentials, {
      method: 'GET',
      path: `/rest/posts?author=${encodeURIComponent(author)}&q=author&count=20&sortBy=LAST_MODIFIED`,
    });
    const commentary = toLittleText(input.content);
    for (const element of elementsOf(answer.body)) {
      const created = (element as { createdAt?: unknown }).createdAt;
      const urn = stringField(element, 'id');
      if (!urn || stringField(element, 'commentary') !== commentary) continue;
      if (typeof created === 'number' && created < since) continue;
      return { remoteId: urn, remoteUrl: postUrl(urn), meta: { urn } };
    }
    return null;
  }

  async edit(input: EditBlockInput): Promise<void> {
    const comment = this.commentTarget(input.block);
    if (comment) {
      const actor = encodeURIComponent(this.authorOf(input.credentials));
      await this.call(input.credentials, {
        method: 'POST',
        path: `/rest/socialActions/${encodeURIComponent(comment.postUrn)}/comments/${comment.commentId}?actor=${actor}`,
        headers: { 'x-restli-method': 'PARTIAL_UPDATE' },
        json: { patch: { message: { $set: { text: input.content } } } },
      });
      return;
    }
    await this.call(input.credentials, {
      method: 'POST',
      path: `/rest/posts/${encodeURIComponent(input.block.remoteId)}`,
      headers: { 'x-restli-method': 'PARTIAL_UPDATE' },
      json: { patch: { $set: { commentary: toLittleText(input.content) } } },
    });
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    const comment = this.commentTarget(input.block);
    const path = comment
      ? `/rest/socialActions/${encodeURIComponent(comment.postUrn)}/comments/${comment.commentId}?actor=${encodeURIComponent(this.authorOf(input.credentials))}`
      : `/rest/posts/${encodeURIComponent(input.block.remoteId)}`;
    // Already gone counts as deleted: a retried delete after a lost answer must not fail.
    await this.call(
      input.credentials,
      { method: 'DELETE', path, headers: { 'x-restli-method': 'DELETE' } },
      [404],
    );
  }

  /** The post's engagement (see metrics.ts). */
  metrics(input: MetricsInput): Promise<MetricsReading> {
    const { baseUrl, timeoutMs, apiVersion } = this;
    const author = this.authorOf(input.credentials);
    return readLinkedInMetrics(
      { baseUrl, timeoutMs, apiVersion, author },
      this.platform === 'linkedin_page',
      input,
    );
  }

  protected async call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; path: string; json?: unknown; headers?: Record<string, string> },
    alsoFine: number[] = [],
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.baseUrl}${request.path}`,
        headers: {
          authorization: `Bearer ${credentials.accessToken}`,
          'linkedin-version': this.apiVersion,
          'x-restli-protocol-version': '2.0.0',
          'user-agent': 'Herald/0.1',
          ...(request.headers ?? {}),
        },
        json: request.json,
        timeoutMs: this.timeoutMs,
      },
      (failure) => {
        const error = classifyLinkedInFailure(failure, new Date(), this.apiVersion);
        if (failure.type === 'answer' && error.details.duplicate) {
          (error as DuplicateError).existingUrn = duplicateOfUrn(failure.body);
        }
        return error;
      },
      (answer) => alsoFine.includes(answer.status),
    );
  }
}

/**
 * The organization page's client: the shared client plus the page's conversation (comments.ts).
 * A member profile's comments cannot be read (`r_member_social` is granted to approved apps only),
 * so the `linkedin` client has none of these methods.
 */
export class LinkedInPageClient extends LinkedInClient {
  private readonly conversation: LinkedInComments;

  constructor(options: LinkedInClientOptions = {}) {
    super('linkedin_page', options);
    this.conversation = new LinkedInComments({
      call: (credentials, request, alsoFine) => this.call(credentials, request, alsoFine),
      authorOf: (credentials) => this.authorOf(credentials),
      commentImage: (media, credentials, owner) => this.uploader.commentImage(media, credentials, owner),
    });
  }

  comments(input: CommentsInput): Promise<CommentsPage> {
    return this.conversation.comments(input);
  }

  findComment(input: CommentInput): Promise<RemoteComment | null> {
    return this.conversation.findComment(input);
  }

  reply(input: ReplyInput): Promise<RemoteComment> {
    return this.conversation.reply(input);
  }

  lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    return this.conversation.lookupReply(input);
  }

  deleteReply(input: DeleteReplyInput): Promise<void> {
    return this.conversation.deleteReply(input);
  }
}

/** The client for `linkedin` (member profile) or `linkedin_page` (organization page, which reads and answers comments). */
export function createLinkedInClient(
  platform: 'linkedin_page',
  options?: LinkedInClientOptions,
): LinkedInPageClient;
export function createLinkedInClient(
  platform: LinkedInPlatform,
  options?: LinkedInClientOptions,
): LinkedInClient;
export function createLinkedInClient(platform: LinkedInPlatform, options: LinkedInClientOptions = {}) {
  return platform === 'linkedin_page'
    ? new LinkedInPageClient(options)
    : new LinkedInClient(platform, options);
}
