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
import { graphErrorOf, regainMinutes } from '../meta-graph.ts';
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
import { InstagramComments } from './comments.ts';
import { readInstagramMetrics } from './metrics.ts';
import { INSTAGRAM_GRAPH_VERSION } from './oauth.ts';

/** The permissions a call needs beyond `instagram_business_basic` (which every call needs). */
const PUBLISH = 'instagram_business_content_publish';
const COMMENTS = 'instagram_business_manage_comments';
const INSIGHTS = 'instagram_business_manage_insights';
type Needs = typeof PUBLISH | typeof COMMENTS | typeof INSIGHTS | null;

/** Graph's permission errors: 10 (permission denied) and 200–299 (a permission not granted). */
export const isGraphPermissionCode = (code: number | undefined) =>
  code === 10 || (code !== undefined && code >= 200 && code < 300);

/**
 * A call refused for a missing permission, naming it: Instagram's answer says only "Application
 * does not have permission for this action", so the permission is the one the call needs. The
 * channel must be reconnected: its consent grants the permission again.
 */
export const missingPermissionError = (needs: Needs, said: string, status: number) =>
  new NetworkError(
    'reconnect',
    `Instagram refused the call for a missing permission: it needs ${needs ? `${needs} (with instagram_business_basic)` : 'instagram_business_basic'}, which this channel's token does not hold (granted before Herald asked for it, or taken back since). Reconnecting the channel grants it. Instagram said: ${said}`,
    { status, missingPermission: true },
  );

/**
 * Instagram API with Instagram Login (graph.instagram.com), for professional accounts.
 *
 * The first block is published through containers: one per file (`image_url` or `video_url`: the
 * presigned URL of Herald's copy, which Instagram fetches; it lives an hour, far beyond the
 * processing), carousel items and a CAROUSEL container for several files, REELS for a video
 * (feed videos are reels since 2023), STORIES for the `story` post type. The containers are polled
 * (`status_code`) until FINISHED within a bounded wait, then `media_publish` is sent once. An
 * EXPIRED container is replaced by a new one (once); an ERROR is a permanent refusal with
 * Instagram's reason, unless Instagram calls it temporary. The container id is saved with the
 * block's claim (`progress`): a wait beyond the bound (or the worker's deadline) continues later
 * on the same container without spending an attempt, and the lease is extended while waiting.
 * Without saved progress a wait beyond the bound is transient and the retry makes fresh
 * containers. An unpublished container is never posted twice, and a saved container found
 * PUBLISHED means an earlier attempt's answer was lost: the outcome is looked up. The other blocks are comments on the first (`POST /{media}/comments`).
 *
 * Instagram does not let an app edit a caption or a comment, nor delete a post through Instagram
 * Login (only accounts connected through Facebook Login can); a comment can be deleted.
 *
 * After a lost answer, `lookup` lists the account's recent media (or the post's comments) and
 * adopts the one with the same text made since the send (Graph timestamps have second precision);
 * the lists may lag behind a publish, so a block not found is resent only after the consistency
 * window (30 s).
 * Stories carry no caption: a lost story is found only in the process that sent it.
 *
 * The conversation under a post (issue 31: listing, finding, replying to, looking up and deleting
 * replies) is in comments.ts; its calls need `instagram_business_manage_comments`.
 */

export interface InstagramClientOptions {
  /** Default `https://graph.instagram.com`. */
  baseUrl?: string;
  /** Per request, default 10 s. */
  timeoutMs?: number;
  /** Graph API version (default INSTAGRAM_GRAPH_VERSION). */
  apiVersion?: string;
  /** The longest wait for containers to finish inside one publish (default 20 s). */
  processingWaitMs?: number;
  /** Between two status polls (default 1 s). */
  pollIntervalMs?: number;
}

const NETWORK = 'Instagram';
const DAY_SECONDS = 86_400;

/** Graph throttling codes: application, account, page, custom, and Instagram's business-use-case limits. */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80001, 80002]);
/** Container and publishing failures Instagram says to retry (with a new container). */
const TEMPORARY_SUBCODES = new Set([2207001, 2207003, 2207008, 2207020, 2207032, 2207053]);
/** The container is not ready yet: publishing later is safe (nothing was posted). */
const NOT_READY_SUBCODE = 2207027;
/** Stop waiting this long before the worker's invocation ends. */
const INVOCATION_MARGIN_MS = 5_000;
/** While waiting with saved progress, extend the claim's lease this often. */
const KEEP_ALIVE_MS = 3_000;
const CAP_SUBCODE = 2207042;

/** Seconds until access comes back, from `X-Business-Use-Case-Usage`, if stated (a minute at least). */
export const regainSeconds = (headers: Record<string, string>): number | undefined => {
  const minutes = regainMinutes(headers['x-business-use-case-usage']);
  return minutes === undefined ? undefined : Math.max(60, minutes * 60);
};

/** A cap refusal: the engine waits (the seconds are filled in by the client, which can look them up). */
export class PublishingCapError extends NetworkError {}

/**
 * How the engine handles a failed Instagram call. Graph answers most errors with HTTP 400 and a
 * code: 190 is the token (subcode 463: expired, refreshable; anything else: reconnect); 10 and
 * 200–299 are a permission the token lacks (reconnect: `call` names the permission); 4 with
 * subcode 2207051 is a spam refusal (permanent), other throttling codes (4, 17, 32, 613, 80001,
 * 80002) and 429 are rate limits with `X-Business-Use-Case-Usage`'s wait (else 10 minutes); 9 /
 * 2207042 is the 24-hour publishing cap; 5xx is outcome-unknown; the subcodes Instagram calls
 * temporary and `is_transient` are transient; everything else is a permanent refusal with
 * Instagram's message.
 */
export const classifyInstagramFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const error = graphErrorOf(body);
  const code = error?.code;
  const subcode = error?.subcode;
  const message = error?.userMessage ?? error?.message ?? `Instagram answered HTTP ${status}`;
  const described =
    code === undefined ? message : `${message} (Instagram error ${code}${subcode ? `/${subcode}` : ''})`;
  if (code === 190 || status === 401) {
    return new NetworkError('reconnect', described, {
      status,
      ...(subcode === 463 ? { tokenExpired: true } : {}),
    });
  }
  if (isGraphPermissionCode(code)) {
    return new NetworkError('reconnect', `${described}: reconnect the channel to grant the permission`, {
      status,
      missingPermission: true,
    });
  }
  if (subcode === CAP_SUBCODE) {
    return new PublishingCapError('transient', described, {
      status,
      rateLimited: true,
      retryAfterSeconds: 3600,
    });
  }
  if (status === 429 || (code !== undefined && RATE_LIMIT_CODES.has(code) && subcode !== 2207051)) {
    // No time stated: no reset is claimed; the engine tries again in growing steps.
    const wait = regainSeconds(headers) ?? retryAfterSeconds(headers['retry-after'], now);
    return new NetworkError('transient', described, { ...details(status, wait), rateLimited: true });
  }
  if (status >= 500) return serverError(described, status, retryAfterSeconds(headers['retry-after'], now));
  if ((subcode !== undefined && TEMPORARY_SUBCODES.has(subcode)) || error?.transient === true) {
    return new NetworkError('transient', described, { status });
  }
  return new NetworkError('permanent', described, { status });
};

type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

/** The subcode in an ERROR container's `status` (`… (error code 2207026)`), if any. */
const subcodeInStatus = (status: string) => {
  const match = /\b(2207\d{3})\b/.exec(status);
  return match ? Number(match[1]) : undefined;
};

const isImage = (file: MediaForNetwork) => file.mimeType.startsWith('image/');
const isVideo = (file: MediaForNetwork) => file.mimeType.startsWith('video/');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Graph's `2026-11-25T23:10:42+0000` as epoch ms (NaN when unreadable). */
export const parseGraphTime = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : Number.NaN;

const dataOf = (body: unknown): unknown[] => {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data : [];
};

/**
 * The 24-hour cap when `content_publishing_limit` states no `quota_total`: "An Instagram
 * professional account can only publish 50 posts within a 24 hour moving period" (IG User Media
 * Publish reference; its `content_publishing_limit` example shows `quota_total: 50`). Peers
 * reporting 100 are not the documentation.
 */
const FALLBACK_PUBLISH_CAP = 50;

/** How long after a send a lookup's "not found" proves nothing (see `consistencyWindowSeconds`). */
export const INSTAGRAM_CONSISTENCY_WINDOW_SECONDS = 30;

export class InstagramClient implements NetworkClient {
  readonly platform = 'instagram' as const;
  /**
   * The media, stories and comments edges may lag behind a publish (Graph reads replicas; Instagram
   * documents no bound, so this is a guess, as Threads' 30 s is): a block not found is sent again
   * only this long after its send (issue 26). The saved container's PUBLISHED status guards a
   * first block besides; a comment has no such guard.
   */
  readonly consistencyWindowSeconds = INSTAGRAM_CONSISTENCY_WINDOW_SECONDS;
  readonly apiVersion: string;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly processingWaitMs: number;
  private readonly pollIntervalMs: number;
  /** Stories sent by this process, by account and block key, with the send time: stories have no caption to look up. */
  private readonly stories = new Map<string, number>();
  /** The conversation under a post (see comments.ts): every call needs the comments permission. */
  private readonly conversation = new InstagramComments((credentials, request) =>
    this.call(credentials, { ...request, needs: COMMENTS }),
  );

  constructor(options: InstagramClientOptions = {}) {
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://graph.instagram.com');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.apiVersion = options.apiVersion ?? INSTAGRAM_GRAPH_VERSION;
    this.processingWaitMs = options.processingWaitMs ?? 20_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.parent) return this.comment(input);
    const kind = this.kindOf(input);
    const account = input.credentials.remoteAccountId;
    const quota = await this.checkCap(input.credentials);
    // A container still processing when an earlier invocation ran out of time is polled again
    // rather than made anew (a reel can take minutes; a new container would start over).
    const progress = input.progress;
    const key = [kind, ...input.media.map((file) => file.mediaId)].join(',');
    const saved = progress?.saved;
    let creationId = typeof saved?.creationId === 'string' && saved.key === key ? saved.creationId : null;
    const keep = async (id: string) => {
      await progress?.save({ creationId: id, key });
    };
    if (!creationId) {
      creationId = await this.createContainers(input, kind);
      await keep(creationId);
    }
    const margin = input.deadline
      ? input.deadline.getTime() - INVOCATION_MARGIN_MS
      : Number.POSITIVE_INFINITY;
    const deadline = Math.min(Date.now() + this.processingWaitMs, margin);
    let renewed = false;
    for (;;) {
      const id = creationId;
      const saving = progress ? { keep: () => keep(id), drop: () => progress.save({}) } : null;
      const state = await this.waitFor(input.credentials, id, deadline, saving);
      if (state === 'EXPIRED' && !renewed) {
        // Containers live 24 hours; an expired one is replaced (its media is fetched again).
        renewed = true;
        creationId = await this.createContainers(input, kind);
        await keep(creationId);
        continue;
      }
      break;
    }
    if (kind === 'story') this.rememberStory(`${account}\u0000${input.idempotencyKey}`);
    const answer = await this.sendPublish(input.credentials, creationId, deadline, quota, Boolean(progress));
    const id = stringField(answer.body, 'id');
    if (!id) {
      throw new NetworkError('transient', 'Instagram published the post but its answer had no media id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return this.mediaBlock(input.credentials, id, kind === 'story' ? 'story' : 'post');
  }

  /** Keeps a story's key for lookups, forgetting those older than a day (stories live 24 hours). */
  private rememberStory(key: string) {
    const now = Date.now();
    for (const [old, at] of this.stories) if (now - at > DAY_SECONDS * 1000) this.stories.delete(old);
    this.stories.set(key, now);
  }

  /** The post type and the checks Instagram would make later, made before any call. */
  private kindOf(input: PublishBlockInput): 'post' | 'reel' | 'story' {
    const kind = input.postType === 'reel' || input.postType === 'story' ? input.postType : 'post';
    const files = input.media;
    if (files.length === 0) {
      throw new NetworkError('permanent', 'An Instagram post needs an image or a video on its first block.');
    }
    const bad = files.find((file) => file.mimeType !== 'image/jpeg' && !isVideo(file));
    if (bad) {
      throw new NetworkError(
        'permanent',
        `Instagram takes JPEG images, MP4 and MOV videos, not ${bad.mimeType}.`,
      );
    }
    if (kind !== 'post' && files.length !== 1) {
      throw new NetworkError('permanent', `An Instagram ${kind} takes exactly one file.`);
    }
    if (kind === 'reel' && !isVideo(files[0] as MediaForNetwork)) {
      throw new NetworkError('permanent', 'An Instagram reel takes one video.');
    }
    if (kind === 'story' && input.content.trim() !== '') {
      throw new NetworkError(
        'permanent',
        'Instagram stories carry no caption: leave the text of a story empty (put text in the image itself).',
      );
    }
    if (files.length > 10)
      throw new NetworkError('permanent', 'An Instagram carousel takes at most 10 files.');
    return kind;
  }

  /**
   * Before making containers: when the 24-hour cap is already spent, wait until the oldest of the
   * capped posts leaves the window (no containers made in vain).
   */
  private async checkCap(credentials: NetworkCredentials): Promise<number> {
    const account = encodeURIComponent(credentials.remoteAccountId);
    const answer = await this.call(credentials, {
      method: 'GET',
      path: `/${account}/content_publishing_limit?fields=quota_usage,config`,
      needs: PUBLISH,
    });
    const entry = dataOf(answer.body)[0] as
      | { quota_usage?: unknown; config?: { quota_total?: unknown } }
      | undefined;
    const used = entry?.quota_usage;
    const total = entry?.config?.quota_total;
    if (typeof used === 'number' && typeof total === 'number' && used >= total) {
      throw new NetworkError(
        'transient',
        `Instagram's publishing limit is spent: ${used} of ${total} posts in the last 24 hours.`,
        {
          status: answer.status,
          rateLimited: true,
          retryAfterSeconds: await this.capFreesIn(credentials, total),
        },
      );
    }
    return typeof total === 'number' && total > 0 ? total : FALLBACK_PUBLISH_CAP;
  }

  /**
   * Seconds until the cap frees: 24 hours after the `total`-th newest post of the account. The
   * list holds posts not made through the API too, so this is never earlier than the real time.
   */
  private async capFreesIn(credentials: NetworkCredentials, total: number): Promise<number> {
    try {
      const answer = await this.call(credentials, {
        method: 'GET',
        path: `/${encodeURIComponent(credentials.remoteAccountId)}/media?fields=id,timestamp&limit=${Math.min(total, 100)}`,
        needs: null,
      });
      const times = dataOf(answer.body)
        .map((item) => parseGraphTime((item as { timestamp?: unknown }).timestamp))
        .filter((t) => !Number.isNaN(t))
        .sort((a, b) => b - a);
      const oldest = times[Math.min(total, times.length) - 1];
      if (oldest !== undefined && times.length >= total) {
        return Math.min(
          DAY_SECONDS,
          Math.max(60, Math.ceil((oldest + DAY_SECONDS * 1000 - Date.now()) / 1000)),
        );
      }
    } catch {
      // The wait below is Instagram's own advice: try again later.
    }
    return 3600;
  }

  /** The container to publish: one file's, or a carousel of item containers. */
  private async createContainers(input: PublishBlockInput, kind: 'post' | 'reel' | 'story'): Promise<string> {
    const common: Record<string, unknown> = {};
    const collaborators = input.options.collaborators;
    if (kind !== 'story') {
      if (input.content !== '') common.caption = input.content;
      if (Array.isArray(collaborators) && collaborators.length > 0) common.collaborators = collaborators;
      if (typeof input.options.locationId === 'string' && input.options.locationId !== '') {
        common.location_id = input.options.locationId;
      }
    }
    const files = input.media;
    if (files.length === 1) {
      const file = files[0] as MediaForNetwork;
      if (kind === 'story') {
        return this.container(input.credentials, {
          media_type: 'STORIES',
          ...(isImage(file) ? { image_url: file.url } : { video_url: file.url }),
        });
      }
      if (isImage(file)) {
        return this.container(input.credentials, {
          image_url: file.url,
          ...(file.altText ? { alt_text: file.altText } : {}),
          ...common,
        });
      }
      const shareToFeed = input.options.shareToFeed;
      return this.container(input.credentials, {
        media_type: 'REELS',
        video_url: file.url,
        share_to_feed: shareToFeed !== 'false',
        ...common,
      });
    }
    const children: string[] = [];
    for (const file of files) {
      children.push(
        await this.container(input.credentials, {
          is_carousel_item: true,
          ...(isImage(file)
            ? { image_url: file.url, ...(file.altText ? { alt_text: file.altText } : {}) }
            : { media_type: 'VIDEO', video_url: file.url }),
        }),
      );
    }
    return this.container(input.credentials, {
      media_type: 'CAROUSEL',
      children: children.join(','),
      ...common,
    });
  }

  private async container(credentials: NetworkCredentials, params: Record<string, unknown>): Promise<string> {
    const answer = await this.call(credentials, {
      method: 'POST',
      path: `/${encodeURIComponent(credentials.remoteAccountId)}/media`,
      needs: PUBLISH,
      json: params,
    });
    const id = stringField(answer.body, 'id');
    if (!id)
      throw new NetworkError('transient', 'Instagram made a container but its answer had no id', {
        status: answer.status,
      });
    return id;
  }

  /**
   * Polls a container until it is FINISHED (returned), EXPIRED (returned: the caller renews it),
   * or the deadline passes (transient: nothing was published). ERROR is Instagram's refusal with
   * its reason, transient where Instagram says to retry with a new container.
   */
  private async waitFor(
    credentials: NetworkCredentials,
    id: string,
    deadline: number,
    saving: { keep(): Promise<void>; drop(): Promise<void> } | null,
  ): Promise<ContainerStatus> {
    const resumable = saving !== null;
    let lastKept = Date.now();
    for (;;) {
      const answer = await this.call(credentials, {
        method: 'GET',
        path: `/${encodeURIComponent(id)}?fields=status_code,status`,
        needs: PUBLISH,
      });
      const code = stringField(answer.body, 'status_code') as ContainerStatus | undefined;
      const status = stringField(answer.body, 'status') ?? '';
      if (code === 'FINISHED' || code === 'EXPIRED') return code;
      if (code === 'PUBLISHED') {
        // Only this client publishes its containers: an earlier attempt did, and its answer was lost.
        throw new NetworkError('transient', `Instagram container ${id} was published by an earlier attempt`, {
          status: answer.status,
          outcomeUnknown: true,
        });
      }
      if (code === 'ERROR') {
        const subcode = subcodeInStatus(status);
        const reason = `Instagram could not process the media: ${status || 'no reason given'}`;
        // A failed container is never tried again: the next attempt makes a new one.
        await saving?.drop();
        throw new NetworkError(
          subcode !== undefined && TEMPORARY_SUBCODES.has(subcode) ? 'transient' : 'permanent',
          reason,
          { status: answer.status },
        );
      }
      if (Date.now() + this.pollIntervalMs > deadline) throw this.stillProcessing(resumable);
      if (resumable && Date.now() - lastKept >= KEEP_ALIVE_MS) {
        // Extends the claim's lease: a long wait is not taken for a dead worker's.
        await saving?.keep();
        lastKept = Date.now();
      }
      await sleep(this.pollIntervalMs);
    }
  }

  /**
   * Processing outlasted this call: with saved progress the next invocation polls the same
   * container (no attempt spent); without, the retry makes new containers. Nothing was posted.
   */
  private stillProcessing(resumable: boolean) {
    return resumable
      ? new NetworkError('transient', 'Instagram is still processing the media; waiting for it.', {
          continueLater: true,
        })
      : new NetworkError(
          'transient',
          'Instagram is still processing the media; the post will be tried again with new containers.',
          {},
        );
  }

  /**
   * `media_publish`, sent again only after Instagram said the container was not ready (nothing
   * was posted then). The cap refusal waits until the oldest capped post leaves the window.
   */
  private async sendPublish(
    credentials: NetworkCredentials,
    creationId: string,
    deadline: number,
    quota: number,
    resumable: boolean,
  ): Promise<HttpAnswer> {
    for (;;) {
      try {
        return await this.call(credentials, {
          method: 'POST',
          path: `/${encodeURIComponent(credentials.remoteAccountId)}/media_publish`,
          json: { creation_id: creationId },
          needs: PUBLISH,
        });
      } catch (error) {
        if (error instanceof PublishingCapError) {
          throw new NetworkError('transient', error.message, {
            ...error.details,
            retryAfterSeconds: await this.capFreesIn(credentials, quota),
          });
        }
        const notReady =
          error instanceof NetworkError &&
          (error as NetworkError & { subcode?: number }).subcode === NOT_READY_SUBCODE;
        if (!notReady || Date.now() + this.pollIntervalMs > deadline) {
          if (notReady) throw this.stillProcessing(resumable);
          throw error;
        }
        await sleep(this.pollIntervalMs);
      }
    }
  }

  /** A published media as a block: its permalink read back (a failure here leaves the outcome to the lookup). */
  private async mediaBlock(
    credentials: NetworkCredentials,
    id: string,
    kind: 'post' | 'story',
  ): Promise<RemoteBlock> {
    let permalink: string | undefined;
    try {
      const answer = await this.call(credentials, {
        method: 'GET',
        path: `/${encodeURIComponent(id)}?fields=id,permalink,shortcode`,
        needs: null,
      });
      permalink = stringField(answer.body, 'permalink');
    } catch (error) {
      throw new NetworkError(
        'transient',
        `Instagram published media ${id} but its permalink could not be read (${(error as Error).message})`,
        { outcomeUnknown: true },
      );
    }
    return {
      remoteId: id,
      remoteUrl: permalink ?? `https://www.instagram.com/`,
      meta: { kind, mediaId: id },
    };
  }

  private async comment(input: PublishBlockInput): Promise<RemoteBlock> {
    if (input.media.length > 0) {
      throw new NetworkError(
        'permanent',
        'Instagram comments carry text only: put the files on the first block of an Instagram post.',
      );
    }
    const root = input.parent?.root as RemoteBlock;
    if (root.meta.kind === 'story') {
      throw new NetworkError(
        'permanent',
        'Instagram stories take no comments: publish the story as one block.',
      );
    }
    const answer = await this.call(input.credentials, {
      method: 'POST',
      path: `/${encodeURIComponent(root.remoteId)}/comments`,
      json: { message: input.content },
      needs: COMMENTS,
    });
    const id = stringField(answer.body, 'id');
    if (!id) {
      throw new NetworkError('transient', 'Instagram accepted the comment but its answer had no id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return this.commentBlock(id, root);
  }

  private commentBlock(id: string, root: RemoteBlock): RemoteBlock {
    const base = root.remoteUrl.endsWith('/') ? root.remoteUrl : `${root.remoteUrl}/`;
    return { remoteId: id, remoteUrl: `${base}c/${id}/`, meta: { kind: 'comment', mediaId: root.remoteId } };
  }

  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    // Graph timestamps are whole seconds: a block sent at 12:00:00.700 shows as 12:00:00.
    const since = Math.floor(input.since.getTime() / 1000) * 1000;
    if (input.parent) {
      const root = input.parent.root;
      const answer = await this.call(input.credentials, {
        method: 'GET',
        path: `/${encodeURIComponent(root.remoteId)}/comments?fields=id,text,timestamp,from&limit=50`,
        needs: COMMENTS,
      });
      const found = dataOf(answer.body)
        .filter((c) => {
          const from = (c as { from?: { id?: unknown } }).from?.id;
          return (
            stringField(c, 'text') === input.content &&
            parseGraphTime((c as { timestamp?: unknown }).timestamp) >= since &&
            (from === undefined || String(from) === input.credentials.remoteAccountId)
          );
        })
        .map((c) => stringField(c, 'id'))
        .filter((id): id is string => Boolean(id));
      // The earliest match: a later one would be a duplicate, never this block.
      const id = found[found.length - 1];
      return id ? this.commentBlock(id, root) : null;
    }
    const account = encodeURIComponent(input.credentials.remoteAccountId);
    const storyKey = `${input.credentials.remoteAccountId}\u0000${input.idempotencyKey}`;
    const story = this.stories.has(storyKey);
    const answer = await this.call(input.credentials, {
      method: 'GET',
      path: story
        ? `/${account}/stories?fields=id,timestamp,permalink`
        : `/${account}/media?fields=id,caption,timestamp,permalink&limit=25`,
      needs: null,
    });
    const matches = dataOf(answer.body).filter(
      (item) =>
        parseGraphTime((item as { timestamp?: unknown }).timestamp) >= since &&
        (story || (stringField(item, 'caption') ?? '') === input.content),
    );
    const match = matches[matches.length - 1];
    const id = match ? stringField(match, 'id') : undefined;
    if (!id) return null;
    return {
      remoteId: id,
      remoteUrl: stringField(match, 'permalink') ?? 'https://www.instagram.com/',
      meta: { kind: story ? 'story' : 'post', mediaId: id },
    };
  }

  async edit(_input: EditBlockInput): Promise<void> {
    throw new NetworkError(
      'permanent',
      'Instagram does not let apps edit a published caption or comment; delete and publish again instead.',
    );
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    if (input.block.meta.kind !== 'comment') {
      throw new NetworkError(
        'permanent',
        'Instagram does not let apps connected through Instagram Login delete posts; delete it in the Instagram app.',
      );
    }
    try {
      await this.call(input.credentials, {
        method: 'DELETE',
        path: `/${encodeURIComponent(input.block.remoteId)}`,
        needs: COMMENTS,
      });
    } catch (error) {
      // Already gone counts as deleted: a retried delete after a lost answer must not fail.
      if (error instanceof NetworkError && (error as NetworkError & { subcode?: number }).subcode === 33)
        return;
      throw error;
    }
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

  /** Within `consistencyWindowSeconds` of the send, "not found" proves nothing (the replies edge may lag). */
  lookupReply(input: LookupReplyInput): Promise<RemoteComment | null> {
    return this.conversation.lookupReply(input);
  }

  deleteReply(input: DeleteReplyInput): Promise<void> {
    return this.conversation.deleteReply(input);
  }

  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readInstagramMetrics(
      (credentials, path, needs) => this.call(credentials, { method: 'GET', path, needs }),
      input,
    );
  }

  /** One Graph call; `needs` is the permission it needs beyond basic, named when Instagram refuses it for a missing one. */
  private call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; path: string; json?: unknown; needs: Needs },
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.baseUrl}/${this.apiVersion}${request.path}`,
        // The token goes in the header, never in a URL that could be logged.
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
        json: request.json,
        timeoutMs: this.timeoutMs,
      },
      (failure) => {
        const error = classifyInstagramFailure(failure);
        if (failure.type === 'answer') {
          const graph = graphErrorOf(failure.body);
          if (isGraphPermissionCode(graph?.code)) {
            const said = `${graph?.message ?? `HTTP ${failure.status}`} (Instagram error ${graph?.code})`;
            return missingPermissionError(request.needs, said, failure.status);
          }
          const subcode = graph?.subcode;
          if (subcode !== undefined) Object.assign(error, { subcode });
        }
        return error;
      },
    );
  }
}
