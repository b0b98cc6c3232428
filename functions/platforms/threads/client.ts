import { createHash } from 'node:crypto';
import {
  type DeleteBlockInput,
  type EditBlockInput,
  type LookupBlockInput,
  type MediaForNetwork,
  type MetricsInput,
  type MetricsReading,
  type NetworkClient,
  type NetworkCredentials,
  NetworkError,
  type PublishBlockInput,
  type RemoteBlock,
} from '../../ports/network-client.ts';
import { type GraphError, graphErrorOf, regainMinutes } from '../meta-graph.ts';
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
import { readThreadsMetrics } from './metrics.ts';

/**
 * Threads API client (graph.threads.net/v1.0). A block is published in Threads' two steps: a
 * media container (`POST /{user-id}/threads`: TEXT, IMAGE, VIDEO, or a CAROUSEL of 2 to 20 items
 * each made as its own container first), whose status is polled until `FINISHED`, then
 * `POST /{user-id}/threads_publish?creation_id=`. Threads pulls the media from the presigned URLs
 * Herald hands it, with the alt text. Later blocks are replies: a container with `reply_to_id` =
 * the previous block, which carries media like the first.
 *
 * Only `threads_publish` can post anything: every failure before it (creating a container,
 * polling it, a container that failed or is still processing after the bounded wait) is retried
 * with a fresh container and cannot post twice, so it is never "outcome unknown". A lost
 * `threads_publish` answer is: `lookup` lists the account's posts (`GET /{user-id}/threads`) or
 * replies (`GET /{user-id}/replies`, matched on `replied_to`) made since the send with the same
 * text. The 24-hour caps (250 posts, 1,000 replies) are refused on `threads_publish`; the client
 * then reads `threads_publishing_limit` and the account's posts in the window to tell the engine
 * how long until the oldest one leaves it. No edits (Threads has none); deletes with
 * `DELETE /{media-id}`.
 */

const NETWORK = 'Threads';

export interface ThreadsClientOptions {
  /** Default `https://graph.threads.net`. */
  baseUrl?: string;
  /** Per request, default 10 s. */
  timeoutMs?: number;
  /** Longest wait for a container's processing within one publish (default 20 s). */
  processingWaitMs?: number;
  /** First pause between status polls (default 1 s; doubled up to 4 s). */
  pollIntervalMs?: number;
}

/** A Graph error body's fields, with Threads' words when it gave no message. */
const threadsErrorOf = (body: unknown): (GraphError & { message: string }) | null => {
  const error = graphErrorOf(body);
  return error && { ...error, message: error.message ?? 'Threads refused the request' };
};

/** Graph's throttling codes: app (4), user (17), page (32), API-specific (613) and business use case (80000s). */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);
/** A 24-hour cap refusal the client could not time (the whole window at most). */
const CAP_WINDOW_SECONDS = 86_400;

/** `estimated_time_to_regain_access` (minutes) from Meta's usage headers, in seconds: the first header stating a wait. */
const regainAccessSeconds = (headers: Record<string, string>): number | undefined => {
  for (const name of ['x-business-use-case-usage', 'x-ad-account-usage', 'x-app-usage']) {
    const minutes = regainMinutes(headers[name]) ?? 0;
    if (minutes > 0) return minutes * 60;
  }
  return undefined;
};

/** A 24-hour cap refusal: code 9 (or its subcode 2207042), on `threads_publish` or a delete. */
const isCapRefusal = (error: GraphError | null) => error?.code === 9 || error?.subcode === 2207042;

/** Graph's permission errors: 10 (permission denied) and 200–299 (a permission not granted). */
const isGraphPermissionCode = (code: number | undefined) =>
  code === 10 || (code !== undefined && code >= 200 && code < 300);

/** The permissions a call needs beyond `threads_basic` (which every call needs). */
type Permission =
  | 'threads_content_publish'
  | 'threads_manage_replies'
  | 'threads_read_replies'
  | 'threads_manage_insights'
  | 'threads_delete';

/**
 * A call refused for a missing permission, naming it: Graph's answer does not say which, so it is
 * the one the call needs (channels connected before Herald asked for it, or a permission Meta took
 * back). The channel must be reconnected: its consent grants the permission again. A replies
 * lookup says that the reply is looked up again then (never resent).
 */
const missingPermissionError = (needs: readonly Permission[], said: string, status: number, after = '') =>
  new NetworkError(
    'reconnect',
    `Threads refused the call for a missing permission: it needs ${needs.length > 0 ? `${needs.join(' and ')} (with threads_basic)` : 'threads_basic'}, which this channel's token does not hold (granted before Herald asked for it, or taken back since). Reconnecting the channel grants it.${after} Threads said: ${said}`,
    { status, missingPermission: true },
  );

/**
 * How the engine handles a failed Threads call: code 190 (and 102, 2500: no usable token) means
 * reconnect, marked `tokenExpired` for an expired session (subcode 463); Graph throttling (codes
 * 4, 17, 32, 613) and the 24-hour caps (code 9) are transient and `rateLimited`, waiting as long
 * as Meta's usage headers say (else 10 minutes; the caps are timed by the client); a 5xx or an
 * answer marked `is_transient` may come after Threads stored the post: transient with
 * `outcomeUnknown`; a container not found or not ready (code 24, subcode 4279009) is transient;
 * other refusals are permanent with Threads' message. No answer: transient, `outcomeUnknown`
 * once the request was sent.
 */
export const classifyThreadsFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const error = threadsErrorOf(body);
  const said = error?.title
    ? `${error.title}: ${error.userMessage ?? error.message}`
    : error?.userMessage
      ? `${error.message}: ${error.userMessage}`
      : error?.message;
  const codes =
    error?.code === undefined
      ? ''
      : ` (code ${error.code}${error.subcode === undefined ? '' : `/${error.subcode}`})`;
  const message = error ? `${said}${codes}` : `Threads answered HTTP ${status}`;
  const code = error?.code;
  if (code === 190 || code === 102 || code === 2500) {
    const expired = error?.subcode === 463 || /session has expired/i.test(error?.message ?? '');
    return new NetworkError('reconnect', message, { status, ...(expired ? { tokenExpired: true } : {}) });
  }
  // Graph's permission errors: a permission the token was not granted (or was taken back).
  if (isGraphPermissionCode(code)) {
    return new NetworkError('reconnect', `${message}: reconnect the channel to grant the permission`, {
      status,
      missingPermission: true,
    });
  }
  if (status === 429 || (code !== undefined && RATE_LIMIT_CODES.has(code)) || (code ?? 0) >= 80_000) {
    // No time stated (a rolling window): no reset is claimed; the engine tries again in growing steps.
    const wait = regainAccessSeconds(headers) ?? retryAfterSeconds(headers['retry-after'], now);
    return new NetworkError('transient', message, { ...details(status, wait), rateLimited: true });
  }
  if (isCapRefusal(error)) {
    return new ThreadsCapError(message, { ...details(status, CAP_WINDOW_SECONDS), rateLimited: true });
  }
  if (status >= 500 || error?.transient) {
    return serverError(message, status, retryAfterSeconds(headers['retry-after'], now));
  }
  if (code === 24 && error?.subcode === 4279009) {
    return new NetworkError('transient', `Threads does not have the container ready: ${message}`, { status });
  }
  return new NetworkError('permanent', message, { status });
};

/** A 24-hour cap refusal: waits the whole window unless the client times it (see `capWait`). */
export class ThreadsCapError extends NetworkError {
  constructor(message: string, errorDetails: NetworkError['details']) {
    super('transient', message, errorDetails);
  }
}

/** The same error with `outcomeUnknown` dropped: for calls that cannot post anything. */
const withoutUnknownOutcome = (error: NetworkError, failure: HttpFailure): NetworkError => {
  if (!error.details.outcomeUnknown) return error;
  const { outcomeUnknown: _dropped, ...rest } = error.details;
  const message =
    failure.type === 'transport'
      ? `Threads did not answer (${failure.code}); nothing was posted`
      : error.message;
  return new NetworkError(error.kind, message, rest);
};

/** Graph's `2026-11-25T23:14:56+0000` (or any ISO 8601 time) as epoch milliseconds, or NaN. */
export const parseGraphTime = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')) : Number.NaN;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dataOf = (body: unknown): unknown[] => {
  const data = (body as { data?: unknown } | null | undefined)?.data;
  return Array.isArray(data) ? data : [];
};

/** How long a saved media container is waited for across calls (Meta: poll for at most 5 minutes). */
export const RESUME_LIMIT_MS = 5 * 60_000;

/** The containers a block's earlier call made, kept in its saved progress under `threads`. */
interface SavedContainers {
  /** What the containers were made for: a block whose content or files changed makes new ones. */
  key: string;
  /** When the first of them was made (epoch ms). */
  createdAt: number;
  /** Carousel items, in the block's file order. */
  children: string[];
  /** The container to publish (a single file's, or the carousel). */
  containerId: string | null;
}

/** Identifies what a block's containers carry: text, files (ids, not their URLs, which change), alt texts, reply target, options. */
const blockKeyOf = (input: PublishBlockInput): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        input.content,
        input.media.map((m) => [m.mediaId, m.altText]),
        input.parent?.block.remoteId ?? null,
        input.parent ? null : input.options,
      ]),
    )
    .digest('base64url');

const savedContainersOf = (
  saved: Record<string, unknown> | null | undefined,
  key: string,
): SavedContainers | null => {
  const state = saved?.threads as Partial<SavedContainers> | undefined;
  if (!state || state.key !== key || typeof state.createdAt !== 'number') return null;
  const children = Array.isArray(state.children) ? state.children.filter((c) => typeof c === 'string') : [];
  return {
    key,
    createdAt: state.createdAt,
    children,
    containerId: typeof state.containerId === 'string' ? state.containerId : null,
  };
};

type CallRequest = {
  method: HttpCall['method'];
  path: string;
  json?: unknown;
  /** The permissions the call needs beyond threads_basic: named when Threads refuses it for a missing one. */
  needs: readonly Permission[];
  /** Said after the refusal's advice (the replies lookup: the reply is looked up again). */
  afterReconnect?: string;
};

export class ThreadsClient implements NetworkClient {
  readonly platform = 'threads' as const;
  /**
   * Threads does not document how soon a post shows in the account's listings; a lookup that
   * finds nothing proves the post absent only after this long.
   */
  readonly consistencyWindowSeconds = 30;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly processingWaitMs: number;
  private readonly pollIntervalMs: number;

  constructor(options: ThreadsClientOptions = {}) {
    this.baseUrl = `${baseUrlOf(options.baseUrl ?? 'https://graph.threads.net')}/v1.0`;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.processingWaitMs = options.processingWaitMs ?? 20_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    const first = input.parent === null;
    const replyControl =
      first && typeof input.options.replyControl === 'string' ? input.options.replyControl : null;
    const link =
      first && typeof input.options.linkAttachment === 'string' ? input.options.linkAttachment : null;
    if (link && input.media.length > 0) {
      throw new NetworkError(
        'permanent',
        'Threads shows a link attachment on text-only posts: remove linkAttachment or the files.',
      );
    }
    if (input.media.length > 20) {
      throw new NetworkError('permanent', 'A Threads post carries at most 20 files (a carousel).');
    }
    const common: Record<string, unknown> = {
      ...(input.content === '' ? {} : { text: input.content }),
      ...(input.parent ? { reply_to_id: input.parent.block.remoteId } : {}),
      ...(replyControl ? { reply_control: replyControl } : {}),
    };
    const user = encodeURIComponent(input.credentials.remoteAccountId);
    const containerId = await this.readyContainer(input, common, link);
    let answer: HttpAnswer;
    try {
      answer = await this.call(
        input.credentials,
        {
          method: 'POST',
          path: `/${user}/threads_publish`,
          json: { creation_id: containerId },
          needs: ['threads_content_publish'],
        },
        { canPost: true },
      );
    } catch (error) {
      if (error instanceof ThreadsCapError) {
        const wait = await this.capWait(input.credentials, input.parent !== null);
        throw new NetworkError(error.kind, error.message, { ...error.details, retryAfterSeconds: wait });
      }
      throw error;
    }
    const id = stringField(answer.body, 'id');
    if (!id) {
      throw new NetworkError('transient', 'Threads accepted the post but its answer had no media id', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return { remoteId: id, remoteUrl: await this.permalinkOf(input.credentials, id), meta: {} };
  }

  /**
   * A container for the block, processed and ready to publish. Text containers are made fresh on
   * every call. Media containers are kept in the block's saved progress where the engine keeps
   * one: a file still processing when this call must end is waited for by the next call (the
   * engine retries at once without spending an attempt) instead of being fetched again, for up to
   * `RESUME_LIMIT_MS` after the container was made (Meta: poll for at most 5 minutes); after that,
   * or without saved progress, the block is retried later with a new container. An unpublished
   * container is never posted, so nothing is posted twice; a saved container Threads reports
   * `PUBLISHED` means an earlier call posted the block: the engine looks it up.
   */
  private async readyContainer(
    input: PublishBlockInput,
    common: Record<string, unknown>,
    link: string | null,
  ): Promise<string> {
    const bound = Date.now() + this.processingWaitMs;
    // Leave the call time to publish before the worker's invocation ends.
    const deadline = input.deadline ? Math.min(bound, input.deadline.getTime() - 3_000) : bound;
    const key = blockKeyOf(input);
    let resume = savedContainersOf(input.progress?.saved, key);
    if (resume && Date.now() - resume.createdAt > RESUME_LIMIT_MS) resume = null;
    for (let attempt = 1; ; attempt++) {
      const state: SavedContainers = resume ?? {
        key,
        createdAt: Date.now(),
        children: [],
        containerId: null,
      };
      resume = null;
      const status = await this.prepare(input, common, link, deadline, state);
      if (status === 'FINISHED') return state.containerId as string;
      if (attempt >= 2) {
        throw new NetworkError(
          'transient',
          'Threads let the media container expire twice before it could be published',
        );
      }
    }
  }

  /** Makes what `state` lacks (carousel items, the container), saving each step, and waits for it. */
  private async prepare(
    input: PublishBlockInput,
    common: Record<string, unknown>,
    link: string | null,
    deadline: number,
    state: SavedContainers,
  ): Promise<'FINISHED' | 'EXPIRED'> {
    const { media, credentials } = input;
    const save = async () => {
      if (media.length > 0 && input.progress) await input.progress.save({ threads: { ...state } });
    };
    const wait = (id: string) =>
      this.waitFor(credentials, id, deadline, state, save, input.progress !== undefined && media.length > 0);
    if (media.length === 0) {
      state.containerId = await this.container(credentials, {
        media_type: 'TEXT',
        ...common,
        ...(link ? { link_attachment: link } : {}),
      });
      return wait(state.containerId);
    }
    if (media.length === 1) {
      if (!state.containerId) {
        state.containerId = await this.container(credentials, {
          ...this.mediaFields(media[0] as MediaForNetwork),
          ...common,
        });
        await save();
      }
      return wait(state.containerId);
    }
    if (state.children.length !== media.length) {
      state.children = [];
      for (const file of media) {
        state.children.push(
          await this.container(credentials, { ...this.mediaFields(file), is_carousel_item: true }),
        );
      }
      await save();
    }
    if (!state.containerId) {
      for (const child of state.children) {
        if ((await wait(child)) === 'EXPIRED') return 'EXPIRED';
      }
      state.containerId = await this.container(credentials, {
        media_type: 'CAROUSEL',
        children: state.children.join(','),
        ...common,
      });
      await save();
    }
    return wait(state.containerId);
  }

  private mediaFields(file: MediaForNetwork): Record<string, unknown> {
    const video = file.mimeType.startsWith('video/');
    return {
      media_type: video ? 'VIDEO' : 'IMAGE',
      [video ? 'video_url' : 'image_url']: file.url,
      ...(file.altText ? { alt_text: file.altText } : {}),
    };
  }

  private async container(credentials: NetworkCredentials, json: Record<string, unknown>): Promise<string> {
    // Threads downloads an image before it answers: a media container gets a longer wait.
    const pulls = json.media_type === 'IMAGE' || json.media_type === 'VIDEO';
    const answer = await this.call(
      credentials,
      {
        method: 'POST',
        path: `/${encodeURIComponent(credentials.remoteAccountId)}/threads`,
        json,
        needs:
          json.reply_to_id === undefined
            ? ['threads_content_publish']
            : ['threads_content_publish', 'threads_manage_replies'],
      },
      pulls ? { timeoutMs: this.timeoutMs * 3 } : {},
    );
    const id = stringField(answer.body, 'id');
    if (!id) throw new NetworkError('transient', 'Threads made a media container but its answer had no id');
    return id;
  }

  /**
   * Polls a container until it is FINISHED or EXPIRED (returned: the caller makes a new one);
   * ERROR is permanent with Threads' reason; PUBLISHED (only a saved container can be) means an
   * earlier call posted the block: outcome unknown, so the engine looks it up. Still IN_PROGRESS at
   * the deadline: `continueLater` while the saved container may still be waited for, else
   * transient (a later attempt makes a new container).
   */
  private async waitFor(
    credentials: NetworkCredentials,
    id: string,
    deadline: number,
    state: SavedContainers,
    save: () => Promise<void>,
    resumable: boolean,
  ): Promise<'FINISHED' | 'EXPIRED'> {
    let pause = this.pollIntervalMs;
    for (;;) {
      const answer = await this.call(credentials, {
        method: 'GET',
        path: `/${encodeURIComponent(id)}?fields=status,error_message`,
        needs: [],
      });
      const status = stringField(answer.body, 'status');
      if (status === 'FINISHED') return 'FINISHED';
      if (status === 'EXPIRED') return 'EXPIRED';
      if (status === 'PUBLISHED') {
        throw new NetworkError('transient', "Threads already published this block's container", {
          status: answer.status,
          outcomeUnknown: true,
        });
      }
      if (status === 'ERROR') {
        const reason = stringField(answer.body, 'error_message') ?? 'UNKNOWN';
        throw new NetworkError(
          'permanent',
          `Threads could not process the media (${reason})${reason === 'UNKNOWN' ? ': check the file format' : ''}`,
          { status: answer.status },
        );
      }
      if (Date.now() + pause > deadline) {
        if (resumable && Date.now() - state.createdAt < RESUME_LIMIT_MS) {
          // Extends the claim's lease too: this block is being worked on.
          await save();
          throw new NetworkError('transient', 'Threads is still processing the media; waiting for it', {
            continueLater: true,
          });
        }
        throw new NetworkError(
          'transient',
          'Threads is still processing the media; the block is tried again with a new container',
        );
      }
      await sleep(pause);
      pause = Math.min(pause * 2, 4_000);
    }
  }

  /** The post's permalink; a post whose link cannot be read gets the account's profile-free post address. */
  private async permalinkOf(credentials: NetworkCredentials, id: string): Promise<string> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const answer = await this.call(credentials, {
          method: 'GET',
          path: `/${encodeURIComponent(id)}?fields=permalink`,
          needs: [],
        });
        const permalink = stringField(answer.body, 'permalink');
        if (permalink) return permalink;
      } catch {
        // The post is live: a missing link must not fail it.
      }
    }
    return `https://www.threads.net/t/${encodeURIComponent(id)}`;
  }

  /**
   * Seconds until the 24-hour window frees a slot: `threads_publishing_limit` says whether the cap
   * is spent; the oldest post (or reply) in the window leaves it `quota_duration` after it was
   * made. Without that reading, the whole window.
   */
  private async capWait(credentials: NetworkCredentials, reply: boolean): Promise<number> {
    const user = encodeURIComponent(credentials.remoteAccountId);
    try {
      // The reply quota needs threads_manage_replies too: asked for only for a reply.
      const limit = await this.call(credentials, {
        method: 'GET',
        path: `/${user}/threads_publishing_limit?fields=${reply ? 'reply_quota_usage,reply_config' : 'quota_usage,config'}`,
        needs: reply ? ['threads_content_publish', 'threads_manage_replies'] : ['threads_content_publish'],
      });
      const entry = dataOf(limit.body)[0] as Record<string, unknown> | undefined;
      const usage = entry?.[reply ? 'reply_quota_usage' : 'quota_usage'];
      const config = entry?.[reply ? 'reply_config' : 'config'] as Record<string, unknown> | undefined;
      const total = config?.quota_total;
      const duration =
        typeof config?.quota_duration === 'number' ? config.quota_duration : CAP_WINDOW_SECONDS;
      if (typeof usage !== 'number' || typeof total !== 'number') return CAP_WINDOW_SECONDS;
      // Not spent (any more): try again soon.
      if (usage < total) return 60;
      const now = Date.now();
      const since = Math.floor(now / 1000) - duration;
      let oldest = Number.POSITIVE_INFINITY;
      let path: string | null =
        `/${user}/${reply ? 'replies' : 'threads'}?fields=id,timestamp&since=${since}&limit=100`;
      for (let page = 0; path && page < Math.ceil(total / 100) + 1; page++) {
        const answer: HttpAnswer = await this.call(credentials, {
          method: 'GET',
          path,
          needs: reply ? ['threads_read_replies'] : [],
        });
        for (const item of dataOf(answer.body)) {
          const at = parseGraphTime((item as { timestamp?: unknown }).timestamp);
          if (!Number.isNaN(at)) oldest = Math.min(oldest, at);
        }
        const after = (answer.body as { paging?: { next?: unknown; cursors?: { after?: unknown } } })?.paging;
        path =
          typeof after?.next === 'string' && typeof after.cursors?.after === 'string'
            ? `/${user}/${reply ? 'replies' : 'threads'}?fields=id,timestamp&since=${since}&limit=100&after=${encodeURIComponent(after.cursors.after)}`
            : null;
      }
      if (!Number.isFinite(oldest)) return duration;
      return Math.max(1, Math.ceil((oldest + duration * 1000 - now) / 1000));
    } catch {
      return CAP_WINDOW_SECONDS;
    }
  }

  /**
   * Finds a block whose `threads_publish` answer was lost: the account's posts (first block) or
   * replies to the previous block made since the send, with the same text.
   */
  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const user = encodeURIComponent(input.credentials.remoteAccountId);
    const since = Math.floor(input.since.getTime() / 1000);
    const parentId = input.parent?.block.remoteId ?? null;
    const kind = parentId ? 'replies' : 'threads';
    let after: string | null = null;
    for (let page = 0; page < 4; page++) {
      const answer: HttpAnswer = await this.call(input.credentials, {
        method: 'GET',
        path: `/${user}/${kind}?fields=id,text,timestamp,permalink,replied_to&since=${since}&limit=50${after ? `&after=${encodeURIComponent(after)}` : ''}`,
        // Reading the account's replies (to find a reply whose answer was lost) needs threads_read_replies.
        needs: parentId ? ['threads_read_replies'] : [],
        ...(parentId
          ? { afterReconnect: ' The reply whose answer was lost is looked up again then, never sent twice.' }
          : {}),
      });
      for (const item of dataOf(answer.body)) {
        const post = item as {
          id?: unknown;
          text?: unknown;
          timestamp?: unknown;
          permalink?: unknown;
          replied_to?: { id?: unknown };
        };
        if (typeof post.id !== 'string') continue;
        if ((typeof post.text === 'string' ? post.text : '') !== input.content) continue;
        if (parentId && post.replied_to?.id !== parentId) continue;
        const at = parseGraphTime(post.timestamp);
        if (!Number.isNaN(at) && at < since * 1000) continue;
        const remoteUrl =
          typeof post.permalink === 'string'
            ? post.permalink
            : await this.permalinkOf(input.credentials, post.id);
        return { remoteId: post.id, remoteUrl, meta: {} };
      }
      const paging = (answer.body as { paging?: { next?: unknown; cursors?: { after?: unknown } } })?.paging;
      after =
        typeof paging?.next === 'string' && typeof paging.cursors?.after === 'string'
          ? paging.cursors.after
          : null;
      if (!after) break;
    }
    return null;
  }

  async edit(_input: EditBlockInput): Promise<void> {
    throw new NetworkError('permanent', 'Threads does not let a published post be edited.');
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    const answer = await this.call(
      input.credentials,
      { method: 'DELETE', path: `/${encodeURIComponent(input.block.remoteId)}`, needs: ['threads_delete'] },
      {
        // Already gone counts as deleted: a retried delete after a lost answer must not fail.
        alsoFine: (a) => {
          const error = threadsErrorOf(a.body);
          return a.status === 404 || (error?.code === 100 && error.subcode === 33);
        },
      },
    );
    if (
      answer.status >= 200 &&
      answer.status < 300 &&
      (answer.body as { success?: unknown })?.success === false
    ) {
      throw new NetworkError('transient', 'Threads did not confirm the delete', { status: answer.status });
    }
  }

  /** The post's insights (see metrics.ts). */
  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readThreadsMetrics(
      (request) => this.call(input.credentials, { ...request, needs: ['threads_manage_insights'] }),
      input,
    );
  }

  private async call(
    credentials: NetworkCredentials,
    request: CallRequest,
    options: { canPost?: boolean; alsoFine?: (answer: HttpAnswer) => boolean; timeoutMs?: number } = {},
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.baseUrl}${request.path}`,
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
        json: request.json,
        timeoutMs: options.timeoutMs ?? this.timeoutMs,
      },
      (failure) => {
        const error = classifyThreadsFailure(failure);
        if (failure.type === 'answer') {
          const graph = threadsErrorOf(failure.body);
          if (graph && isGraphPermissionCode(graph.code)) {
            const said = `${graph.message} (code ${graph.code})`;
            return missingPermissionError(request.needs, said, failure.status, request.afterReconnect);
          }
        }
        return options.canPost ? error : withoutUnknownOutcome(error, failure);
      },
      options.alsoFine,
    );
  }
}

export const createThreadsClient = (options: ThreadsClientOptions = {}) => new ThreadsClient(options);
