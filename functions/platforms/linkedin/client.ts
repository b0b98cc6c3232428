import {
  type DeleteBlockInput,
  type EditBlockInput,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
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
import { readLinkedInMetrics } from './metrics.ts';

/**
 * LinkedIn Posts API client (versioned REST: `LinkedIn-Version: YYYYMM`,
 * `X-Restli-Protocol-Version: 2.0.0`), for member profiles (`urn:li:person:<id>`) and, through the
 * same code, organization pages (`urn:li:organization:<id>`). The first block is a post; the other
 * blocks are comments on it (Comments API under `socialActions`). Edits of posts and comments are
 * Rest.li PARTIAL_UPDATEs. LinkedIn takes no client key and offers no search of one's own recent
 * posts by text, so there is no `lookup`: after a lost answer the engine stops instead of resending.
 *
 * Not done here: media (a full implementation registers each file with the Images, Videos or
 * Documents API `initializeUpload`, PUTs the bytes to the returned upload URL(s) - videos in parts,
 * then `finalizeUpload` - waits until the asset is AVAILABLE and sends `content.media` (one file)
 * or `content.multiImage` (several images) with alt text). Blocks with media are refused
 * (permanent) rather than published without their files. Access tokens last 60 days; refreshing
 * them (programmatic refresh tokens, for approved apps) belongs to the token store.
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
}

export const DEFAULT_LINKEDIN_VERSION = '202510';
const NETWORK = 'LinkedIn';

/** Seconds until the next midnight UTC, when LinkedIn's daily application and member limits reset. */
const secondsToUtcMidnight = (now: Date) => {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
};

/** LinkedIn's duplicate refusal: `code` or `errorDetails.inputErrors[].code` is `DUPLICATE_POST`. */
const isDuplicatePost = (body: unknown): boolean => {
  if (stringField(body, 'code') === 'DUPLICATE_POST') return true;
  const inputErrors = (body as { errorDetails?: { inputErrors?: unknown } } | null)?.errorDetails
    ?.inputErrors;
  return Array.isArray(inputErrors) && inputErrors.some((e) => stringField(e, 'code') === 'DUPLICATE_POST');
};

/**
 * How the engine handles a failed LinkedIn call: 401 (`EXPIRED_ACCESS_TOKEN`,
 * `REVOKED_ACCESS_TOKEN`, `INVALID_ACCESS_TOKEN`) means reconnect; 429 is transient with
 * `Retry-After` when sent, else until midnight UTC (LinkedIn's limits are daily); 5xx transient
 * with `outcomeUnknown` (LinkedIn may have created the post); other 4xx permanent with LinkedIn's
 * message, `DUPLICATE_POST` marked `duplicate`; failures without an answer are transient, with
 * `outcomeUnknown` once the request was sent.
 */
export const classifyLinkedInFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const message =
    stringField(body, 'message') ?? stringField(body, 'code') ?? `LinkedIn answered HTTP ${status}`;
  if (status === 429) {
    const wait = retryAfterSeconds(headers['retry-after'], now) ?? secondsToUtcMidnight(now);
    return new NetworkError('transient', message, details(status, wait));
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

/** `urn:li:comment:(<post urn>,<comment id>)` split, or null. */
export const parseCommentUrn = (urn: string) => {
  const match = /^urn:li:comment:\((urn:li:[^,]+),(\d+)\)$/.exec(urn);
  return match ? { postUrn: match[1] as string, commentId: match[2] as string } : null;
};

const postUrl = (urn: string) => `https://www.linkedin.com/feed/update/${urn}/`;

export class LinkedInClient implements NetworkClient {
  readonly platform: LinkedInPlatform;
  /** There is no lookup: an unknown outcome is final (the engine never resends it). */
  readonly consistencyWindowSeconds = 0;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly apiVersion: string;

  constructor(platform: LinkedInPlatform = 'linkedin', options: LinkedInClientOptions = {}) {
    this.platform = platform;
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://api.linkedin.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.apiVersion = options.apiVersion ?? DEFAULT_LINKEDIN_VERSION;
  }

  /** The author URN: the channel's account as given when it is a URN, else a person or organization id. */
  authorOf(credentials: NetworkCredentials): string {
    const account = credentials.remoteAccountId;
    if (account.startsWith('urn:li:')) return account;
    return this.platform === 'linkedin_page' ? `urn:li:organization:${account}` : `urn:li:person:${account}`;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.media.length > 0) {
      throw new NetworkError(
        'permanent',
        'Media upload to LinkedIn is not supported yet; publish this post without media',
      );
    }
    const author = this.authorOf(input.credentials);
    if (input.parent) return this.comment(input, author, input.parent.root.remoteId);
    const visibility = typeof input.options.visibility === 'string' ? input.options.visibility : 'PUBLIC';
    const answer = await this.call(input.credentials, {
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
      },
    });
    const urn = answer.headers['x-restli-id'] ?? answer.headers['x-linkedin-id'];
    if (!urn?.startsWith('urn:li:')) {
      throw new NetworkError('transient', 'LinkedIn accepted the post but its answer had no post URN', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return { remoteId: urn, remoteUrl: postUrl(urn), meta: { urn } };
  }

  private async comment(input: PublishBlockInput, actor: string, postUrn: string): Promise<RemoteBlock> {
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: `/rest/socialActions/${encodeURIComponent(postUrn)}/comments`,
      json: { actor, object: postUrn, message: { text: input.content } },
    });
    const header = answer.headers['x-restli-id'];
    const fromBody = stringField(answer.body, 'commentUrn');
    const urn = header?.startsWith('urn:li:comment:')
      ? header
      : (fromBody ?? (header && /^\d+$/.test(header) ? `urn:li:comment:(${postUrn},${header})` : undefined));
    const parsed = urn ? parseCommentUrn(urn) : null;
    if (!urn || !parsed) {
      throw new NetworkError('transient', 'LinkedIn accepted the comment but its answer had no comment URN', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return {
      remoteId: urn,
      remoteUrl: `${postUrl(postUrn)}?commentUrn=${encodeURIComponent(urn)}`,
      meta: { urn, postUrn, commentId: parsed.commentId },
    };
  }

  async edit(input: EditBlockInput): Promise<void> {
    const comment = parseCommentUrn(input.block.remoteId);
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
    const comment = parseCommentUrn(input.block.remoteId);
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

  private async call(
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
      classifyLinkedInFailure,
      (answer) => alsoFine.includes(answer.status),
    );
  }
}

/** The client for `linkedin` (member profile) or `linkedin_page` (organization page). */
export const createLinkedInClient = (platform: LinkedInPlatform, options: LinkedInClientOptions = {}) =>
  new LinkedInClient(platform, options);
