import { createHash } from 'node:crypto';
import { BLUESKY_IMAGE_MAX_BYTES } from '../../domain/platforms/rules/bluesky.ts';
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
import type { OutboundPolicy } from '../../ports/outbound.ts';
import { STRICT_OUTBOUND, transportFor } from '../guarded-http.ts';
import { exactly, mediaBytes, mediaChunks, type StreamedAnswer, streamUpload } from '../media-stream.ts';
import {
  baseUrlOf,
  DEFAULT_TIMEOUT_MS,
  details,
  GUARD_REFUSALS,
  type HttpAnswer,
  type HttpCall,
  type HttpFailure,
  type HttpTransport,
  retryAfterSeconds,
  secondsUntilEpoch,
  sendOrClassify,
  serverError,
  stringField,
  TransportError,
  transportError,
} from '../network-http.ts';
import { blueskyComments } from './comments.ts';
import { imageSize } from './image-header.ts';
import { readBlueskyMetrics } from './metrics.ts';
import { facetsFor } from './rich-text.ts';

/**
 * Bluesky (AT Protocol) client over XRPC on the account's PDS. The channel token is an access JWT
 * (no `createSession` here; refreshing it with the refresh JWT via `com.atproto.server.refreshSession`
 * belongs to the token store). Each block is an `app.bsky.feed.post` record created with
 * `com.atproto.repo.createRecord`; replies carry strong refs (`uri` + `cid`) to the thread's root
 * and to the previous block, so `meta` keeps both. The record key is derived from the engine's
 * idempotency key, which makes a block whose answer was lost findable with `getRecord`: after a
 * 5xx or a reset connection from `createRecord` the client reads that key before sending again.
 * Requests go to the channel's own PDS (`credentials.serviceUrl`) when it has one. That host was
 * named by a client or by a DID document, so every call to it (and to anything but the configured
 * PDS and video service) goes through the guarded path (guarded-http.ts): https only, its
 * addresses checked and pinned at each connection, redirects not followed. A stored address the
 * policy refuses fails the call before anything, the token least of all, is sent.
 *
 * Text carries the official client's facets (rich-text.ts: links, mentions resolved to DIDs,
 * hashtags, cashtags).
 *
 * Images: each file is read from its presigned URL (at most 2,000,000 bytes, the lexicon's
 * limit), uploaded with `com.atproto.repo.uploadBlob`, and embedded as `app.bsky.embed.images`
 * with its alt text and the `aspectRatio` read from the image header. Uploading again on a retry
 * is harmless: a blob is addressed by its content.
 *
 * Video (MP4 only, alone in its post): streamed from storage to the video service
 * (`app.bsky.video.uploadVideo` with a service-auth token), its job polled until the blob is
 * ready, embedded as `app.bsky.embed.video` with alt text.
 *
 * Not done here: link cards, video captions and the video's aspect ratio.
 */

export interface BlueskyClientOptions {
  /** The PDS (or entryway) address; default `https://bsky.social`. */
  baseUrl?: string;
  /** Per request, default 10 s. */
  timeoutMs?: number;
  /**
   * The video service; default `https://video.bsky.app`, or `baseUrl` when that is set (the local
   * simulator serves both).
   */
  videoServiceUrl?: string;
  /** Between two job status reads, default 2 s. */
  videoPollMs?: number;
  /** How long a video may take to process before the send is given up (transient), default 5 min. */
  videoProcessingTimeoutMs?: number;
  /** The guarded path's policy for a channel's own PDS; default: public addresses, system DNS. */
  outbound?: OutboundPolicy;
}

const NETWORK = 'Bluesky';
/** An image upload may take longer than a JSON call. */
const UPLOAD_TIMEOUT_MS = 30_000;
const POST_COLLECTION = 'app.bsky.feed.post';
const S32 = '234567abcdefghijklmnopqrstuvwxyz';
/** 2023-01-01T00:00:00Z in microseconds, and one year of them. */
const TID_BASE_MICROS = 1_672_531_200_000_000n;
const TID_SPAN_MICROS = 365n * 24n * 3600n * 1_000_000n;

/** A TID: 13 base32-sortable characters, the top bit zero. */
export const isTid = (rkey: string) =>
  /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(rkey);

/**
 * The record key of a block: a valid TID derived from a hash of the idempotency key, so every
 * attempt of a block uses the same key. `app.bsky.feed.post` declares `key: tid` and the Bluesky
 * AppView only indexes posts whose key is a TID, so a free-form key would be stored by the PDS but
 * never shown. The TID's embedded time is a hashed moment in 2023, not the publication time
 * (feeds sort by `createdAt` and indexing time, not by record key).
 */
export const recordKeyFor = (idempotencyKey: string): string => {
  const hash = createHash('sha256').update(`herald:bluesky:${idempotencyKey}`).digest();
  const micros = TID_BASE_MICROS + (hash.readBigUInt64BE(0) % TID_SPAN_MICROS);
  const clockId = BigInt(hash.readUInt16BE(8) & 0x3ff);
  let value = (micros << 10n) | clockId;
  let key = '';
  for (let i = 0; i < 13; i++) {
    key = (S32[Number(value & 31n)] as string) + key;
    value >>= 5n;
  }
  return key;
};

/** Splits `at://<repo>/<collection>/<rkey>`. */
export const parseAtUri = (uri: string) => {
  const match = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
  if (!match) return null;
  return { repo: match[1] as string, collection: match[2] as string, rkey: match[3] as string };
};

const RECONNECT_ERRORS = new Set(['ExpiredToken', 'InvalidToken', 'AuthMissing', 'AuthRequired']);
const ACCOUNT_GONE_ERRORS = new Set(['AccountTakedown', 'AccountDeactivated']);

/**
 * How the engine handles a failed XRPC call. The PDS answers an expired or unverifiable access
 * token with HTTP 400 (`ExpiredToken`, `InvalidToken`) and a missing one with 401 (`AuthMissing`),
 * so the error name decides, not only the status: those mean reconnect. 429 `RateLimitExceeded`
 * is transient and `rateLimited`, with the wait until `ratelimit-reset` (epoch seconds; else
 * `Retry-After`); 5xx are transient; other 4xx are permanent with the PDS's
 * message; failures without an answer are transient, with `outcomeUnknown` once the request was sent.
 * A 5xx is transient with `outcomeUnknown`: the PDS may have written the record (it even answers a
 * taken record key with 500).
 */
export const classifyBlueskyFailure = (failure: HttpFailure, now: Date = new Date()): NetworkError => {
  if (failure.type === 'transport') return transportError(NETWORK, failure);
  const { status, headers, body } = failure;
  const error = stringField(body, 'error');
  const message = stringField(body, 'message') ?? error ?? `Bluesky answered HTTP ${status}`;
  if (status === 429) {
    // A rate limit: the engine waits until the reset without spending the channel's attempts.
    const wait =
      secondsUntilEpoch(headers['ratelimit-reset'], now) ?? retryAfterSeconds(headers['retry-after'], now);
    return new NetworkError('transient', message, { ...details(status, wait), rateLimited: true });
  }
  if (status >= 500) return serverError(message, status, retryAfterSeconds(headers['retry-after'], now));
  if (error !== undefined && ACCOUNT_GONE_ERRORS.has(error))
    return new NetworkError('permanent', message, { status });
  if ((error !== undefined && RECONNECT_ERRORS.has(error)) || status === 401) {
    return new NetworkError('reconnect', message, {
      status,
      ...(error === 'ExpiredToken' ? { tokenExpired: true } : {}),
    });
  }
  return new NetworkError('permanent', message, { status });
};

interface StrongRef {
  uri: string;
  cid: string;
}

const strongRef = (block: RemoteBlock): StrongRef => {
  const uri = block.meta.uri ?? block.remoteId;
  const cid = block.meta.cid;
  if (!parseAtUri(uri) || !cid) {
    throw new NetworkError(
      'permanent',
      `Bluesky reply target ${block.remoteId} has no uri and cid to reply to`,
    );
  }
  return { uri, cid };
};

/** Failures after the request was sent that are not a timeout: 5xx answers and reset connections. */
const lostAfterSending = new WeakSet<NetworkError>();
const isLostAfterSending = (error: NetworkError) => lostAfterSending.has(error);

/** The same error without `outcomeUnknown`: for calls made before anything was posted. */
const withoutUnknownOutcome = (error: unknown) => {
  if (!(error instanceof NetworkError) || !error.details.outcomeUnknown) return error;
  const { outcomeUnknown: _, ...rest } = error.details;
  return new NetworkError(error.kind, error.message, rest);
};

/** The PDS's answer to a record key that is already taken. */
const isKeyTaken = (error: NetworkError) =>
  (error.details.status === 500 || error.details.status === 400) &&
  /already a value at key|already exists/i.test(error.message);

const anotherVersion = (block: RemoteBlock) =>
  new NetworkError(
    'permanent',
    `Another version of this block is already on Bluesky (${block.remoteId}); delete it to publish again`,
  );

interface FoundRecord {
  block: RemoteBlock;
  /** Same text and same reply parent as the block being looked for. */
  matches: boolean;
}

export class BlueskyClient implements NetworkClient {
  readonly platform = 'bluesky' as const;
  /** getRecord on the PDS reads its own writes: a record that is not there was not stored. */
  readonly consistencyWindowSeconds = 0;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly videoServiceUrl: string;
  private readonly videoPollMs: number;
  private readonly videoProcessingTimeoutMs: number;
  /** Direct to the configured hosts, guarded to every other (a channel's own PDS). */
  private readonly transport: HttpTransport;

  constructor(options: BlueskyClientOptions = {}) {
    this.baseUrl = baseUrlOf(options.baseUrl ?? 'https://bsky.social');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.videoServiceUrl = baseUrlOf(options.videoServiceUrl ?? options.baseUrl ?? 'https://video.bsky.app');
    this.videoPollMs = options.videoPollMs ?? 2_000;
    this.videoProcessingTimeoutMs = options.videoProcessingTimeoutMs ?? 5 * 60_000;
    this.transport = transportFor([this.baseUrl, this.videoServiceUrl], options.outbound ?? STRICT_OUTBOUND);
  }

  async publish(input: PublishBlockInput): Promise<RemoteBlock> {
    const video = input.media.find((file) => !file.mimeType.startsWith('image/'));
    if (video && (video.mimeType !== 'video/mp4' || input.media.length > 1)) {
      throw new NetworkError(
        'permanent',
        video.mimeType !== 'video/mp4'
          ? `Bluesky takes video as MP4 only (${video.mediaId} is ${video.mimeType})`
          : 'A Bluesky post holds either up to 4 images or one video, not both',
      );
    }
    const rkey = recordKeyFor(input.idempotencyKey);
    const record: Record<string, unknown> = {
      $type: POST_COLLECTION,
      text: input.content,
      createdAt: new Date().toISOString(),
    };
    const languages = input.options.languages;
    const langs = typeof languages === 'string' ? [languages] : languages;
    if (langs && langs.length > 0) record.langs = langs;
    const facets = await facetsFor(input.content, (handle) => this.resolveHandle(input.credentials, handle));
    if (facets.length > 0) record.facets = facets;
    if (input.parent) {
      record.reply = { root: strongRef(input.parent.root), parent: strongRef(input.parent.block) };
    }
    if (video) {
      record.embed = {
        $type: 'app.bsky.embed.video',
        video: await this.uploadVideo(input.credentials, video),
        ...(video.altText ? { alt: video.altText } : {}),
      };
    } else if (input.media.length > 0) {
      const images = [];
      for (const file of input.media) images.push(await this.uploadImage(input.credentials, file));
      record.embed = { $type: 'app.bsky.embed.images', images };
    }
    const create = () =>
      this.call(input.credentials, {
        method: 'POST',
        nsid: 'com.atproto.repo.createRecord',
        json: { repo: input.credentials.remoteAccountId, collection: POST_COLLECTION, rkey, record },
      });
    let answer: HttpAnswer | null = null;
    for (let send = 1; answer === null; send++) {
      try {
        answer = await create();
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        // The key is this block's own: it is taken when an earlier attempt went through. A PDS says
        // so with a 500 ("There is already a value at key"; older ones a 400 "Record already
        // exists"). After any other 5xx or a reset connection the PDS may have stored the record
        // all the same (it commits before it answers). Either way the record is read by its key
        // before anything is sent again: there = published, if it is this block (same text, same
        // parent); not there = sent once more under the same key, which cannot make a second post.
        // A timeout is left to the engine's lookup: the PDS may still be writing.
        const keyTaken = isKeyTaken(error);
        if (!keyTaken && !(send === 1 && isLostAfterSending(error))) throw error;
        let found: FoundRecord | null;
        try {
          found = await this.find(input.credentials, rkey, input.content, input.parent);
        } catch {
          throw error; // could not read it: still outcome-unknown, the engine looks again
        }
        if (found?.matches) return found.block;
        if (found) throw anotherVersion(found.block);
        if (keyTaken) throw error;
      }
    }
    const uri = stringField(answer.body, 'uri');
    const cid = stringField(answer.body, 'cid');
    if (!uri || !cid || !parseAtUri(uri)) {
      throw new NetworkError('transient', 'Bluesky accepted the record but its answer had no uri and cid', {
        status: answer.status,
        outcomeUnknown: true,
      });
    }
    return blockOf(uri, cid);
  }

  async edit(_input: EditBlockInput): Promise<void> {
    throw new NetworkError('permanent', 'Bluesky does not allow edits');
  }

  async delete(input: DeleteBlockInput): Promise<void> {
    const target = parseAtUri(input.block.meta.uri ?? input.block.remoteId);
    if (!target) throw new NetworkError('permanent', `Not a Bluesky record: ${input.block.remoteId}`);
    // Deleting a record that is already gone succeeds on a PDS.
    await this.call(input.credentials, {
      method: 'POST',
      nsid: 'com.atproto.repo.deleteRecord',
      json: target,
    });
  }

  /**
   * Reads the record at the block's own key. Null when there is none; the block when it holds this
   * text and parent; a permanent error when another version of the block is there (its text
   * changed since it was sent), which neither counts as published nor can be created again.
   */
  async lookup(input: LookupBlockInput): Promise<RemoteBlock | null> {
    const rkey = recordKeyFor(input.idempotencyKey);
    const found = await this.find(input.credentials, rkey, input.content, input.parent);
    if (!found) return null;
    if (!found.matches) throw anotherVersion(found.block);
    return found.block;
  }

  private async find(
    credentials: NetworkCredentials,
    rkey: string,
    content: string,
    parent: PublishBlockInput['parent'],
  ): Promise<FoundRecord | null> {
    const query = new URLSearchParams({
      repo: credentials.remoteAccountId,
      collection: POST_COLLECTION,
      rkey,
    });
    const answer = await this.call(
      credentials,
      { method: 'GET', nsid: `com.atproto.repo.getRecord?${query}` },
      (missing) => isRecordNotFound(missing),
    );
    if (isRecordNotFound(answer)) return null;
    const uri = stringField(answer.body, 'uri');
    const cid = stringField(answer.body, 'cid');
    if (!uri || !cid || !parseAtUri(uri)) {
      throw new NetworkError('transient', 'Bluesky getRecord answered without uri and cid', {
        status: answer.status,
      });
    }
    const value = (answer.body as { value?: { text?: unknown; reply?: { parent?: { uri?: unknown } } } })
      .value;
    const parentUri = value?.reply?.parent?.uri ?? null;
    const wantedParent = parent ? (parent.block.meta.uri ?? parent.block.remoteId) : null;
    return { block: blockOf(uri, cid), matches: value?.text === content && parentUri === wantedParent };
  }

  /** Comments (comments.ts): the thread from getPostThread, replies made and found as blocks are. */
  private readonly replies = blueskyComments({
    client: this,
    read: (credentials, nsid) => this.call(credentials, { method: 'GET', nsid }),
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

  /** The post's counts from getPosts (see metrics.ts), on the account's own PDS when it has one. */
  metrics(input: MetricsInput): Promise<MetricsReading> {
    return readBlueskyMetrics(
      { baseUrl: this.pdsOf(input.credentials), timeoutMs: this.timeoutMs, transport: this.transport },
      input,
    );
  }

  /**
   * A mentioned handle's DID (`com.atproto.identity.resolveHandle`), or null when the handle does
   * not resolve (a 4xx): the mention then stays plain text. Other failures are transient; nothing
   * was posted yet, so they never leave the outcome unknown.
   */
  private async resolveHandle(credentials: NetworkCredentials, handle: string): Promise<string | null> {
    let answer: HttpAnswer;
    try {
      answer = await this.call(
        credentials,
        { method: 'GET', nsid: `com.atproto.identity.resolveHandle?${new URLSearchParams({ handle })}` },
        (refused) => refused.status === 400 || refused.status === 404,
      );
    } catch (error) {
      if (error instanceof NetworkError && error.details.outcomeUnknown) {
        const { outcomeUnknown: _, ...rest } = error.details;
        throw new NetworkError(error.kind, error.message, rest);
      }
      throw error;
    }
    const did = stringField(answer.body, 'did');
    return answer.status === 200 && did?.startsWith('did:') ? did : null;
  }

  /**
   * Reads one image from storage and uploads it as a blob: the `app.bsky.embed.images` entry
   * (blob ref, alt text, aspect ratio from the header when it can be read). Nothing is posted yet,
   * so failures here never leave an outcome unknown.
   */
  private async uploadImage(credentials: NetworkCredentials, file: MediaForNetwork) {
    const bytes = await mediaBytes(file.url, BLUESKY_IMAGE_MAX_BYTES);
    let answer: HttpAnswer;
    try {
      answer = await this.transport({
        method: 'POST',
        url: `${this.pdsOf(credentials)}/xrpc/com.atproto.repo.uploadBlob`,
        headers: {
          authorization: `Bearer ${credentials.accessToken}`,
          'content-type': file.mimeType,
          'user-agent': 'Herald/0.1',
        },
        bytes,
        timeoutMs: Math.max(this.timeoutMs, UPLOAD_TIMEOUT_MS),
      });
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      if (GUARD_REFUSALS.has(error.code)) throw transportError(NETWORK, error);
      throw new NetworkError(
        'transient',
        `Bluesky did not take the image ${file.mediaId} (${error.message})`,
      );
    }
    const body = answer.body;
    if (answer.status < 200 || answer.status >= 300) {
      const failure = classifyBlueskyFailure({
        type: 'answer',
        status: answer.status,
        headers: answer.headers,
        body,
      });
      const { outcomeUnknown: _, ...rest } = failure.details;
      throw new NetworkError(failure.kind, `${failure.message} (uploading ${file.mediaId})`, rest);
    }
    const blob = (body as { blob?: unknown } | undefined)?.blob;
    if (!blob || typeof blob !== 'object') {
      throw new NetworkError('transient', `Bluesky answered uploadBlob for ${file.mediaId} without a blob`, {
        status: answer.status,
      });
    }
    const size = imageSize(bytes);
    return {
      image: blob,
      alt: file.altText ?? '',
      ...(size ? { aspectRatio: size } : {}),
    };
  }

  /**
   * A video through the video service: a service-auth token from the PDS for
   * `com.atproto.repo.uploadBlob` (audience the PDS's `did:web`), the MP4 streamed from storage to
   * `app.bsky.video.uploadVideo` (an identical earlier upload answers 409 `already_exists` with its
   * job), then `getJobStatus` until the job completes with the blob the post embeds, or fails.
   */
  private async uploadVideo(credentials: NetworkCredentials, file: MediaForNetwork): Promise<unknown> {
    const pds = this.pdsOf(credentials);
    const auth = await this.call(credentials, {
      method: 'GET',
      nsid: `com.atproto.server.getServiceAuth?${new URLSearchParams({
        aud: `did:web:${new URL(pds).hostname}`,
        lxm: 'com.atproto.repo.uploadBlob',
        exp: String(Math.floor(Date.now() / 1000) + 30 * 60),
      })}`,
    }).catch((error: unknown) => {
      throw withoutUnknownOutcome(error);
    });
    const serviceToken = stringField(auth.body, 'token');
    if (!serviceToken) throw new NetworkError('transient', 'Bluesky getServiceAuth answered without a token');
    const query = new URLSearchParams({ did: credentials.remoteAccountId, name: `${file.mediaId}.mp4` });
    // One POST carries the whole video: node:http streams it with backpressure (fetch would grow
    // the worker by about the video's size).
    const uploaded = await this.answerOf(
      file.mediaId,
      () =>
        streamUpload(`${this.videoServiceUrl}/xrpc/app.bsky.video.uploadVideo?${query}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${serviceToken}`,
            'content-type': 'video/mp4',
            'user-agent': 'Herald/0.1',
          },
          body: exactly(mediaChunks(file.url, 1024 * 1024), file.size, file.mediaId),
          contentLength: file.size,
          timeoutMs: Math.max(this.timeoutMs, 10 * UPLOAD_TIMEOUT_MS),
        }),
      (status, body) => status === 409 && stringField(body, 'error') === 'already_exists',
    );
    const jobId =
      stringField((uploaded as { jobStatus?: unknown }).jobStatus, 'jobId') ?? stringField(uploaded, 'jobId');
    if (!jobId)
      throw new NetworkError(
        'transient',
        `Bluesky's video service answered without a job for ${file.mediaId}`,
      );
    const deadline = Date.now() + this.videoProcessingTimeoutMs;
    for (;;) {
      const answer = await this.fetchJson(
        `${this.videoServiceUrl}/xrpc/app.bsky.video.getJobStatus?${new URLSearchParams({ jobId })}`,
        file.mediaId,
        { method: 'GET', signal: AbortSignal.timeout(this.timeoutMs) },
      );
      const job = (answer as { jobStatus?: { state?: unknown; blob?: unknown; error?: unknown } }).jobStatus;
      if (job?.state === 'JOB_STATE_COMPLETED' && job.blob && typeof job.blob === 'object') return job.blob;
      if (job?.state === 'JOB_STATE_FAILED') {
        throw new NetworkError(
          'permanent',
          `Bluesky could not process the video ${file.mediaId}: ${typeof job.error === 'string' ? job.error : 'processing failed'}`,
        );
      }
      if (Date.now() + this.videoPollMs > deadline) {
        throw new NetworkError(
          'transient',
          `Bluesky is still processing the video ${file.mediaId}; trying again later`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, this.videoPollMs));
    }
  }

  /** A JSON call outside the PDS (the video service); failures are never outcome-unknown. */
  /** A video service answer as JSON; a failure classified as Bluesky's (never outcome-unknown: nothing is posted yet). */
  private async answerOf(
    mediaId: string,
    send: () => Promise<StreamedAnswer>,
    alsoFine: (status: number, body: unknown) => boolean = () => false,
  ): Promise<unknown> {
    let answer: StreamedAnswer;
    try {
      answer = await send();
    } catch (error) {
      if (error instanceof NetworkError) throw error;
      throw new NetworkError(
        'transient',
        `Bluesky's video service did not answer for ${mediaId} (${(error as Error).message})`,
      );
    }
    let body: unknown;
    try {
      body = answer.text.trim() === '' ? undefined : JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
    if ((answer.status >= 200 && answer.status < 300) || alsoFine(answer.status, body)) return body;
    throw withoutUnknownOutcome(
      classifyBlueskyFailure(
        { type: 'answer', status: answer.status, headers: answer.headers, body },
        new Date(),
      ),
    );
  }

  /** A video service call through fetch, answered and classified like the streamed upload. */
  private fetchJson(url: string, mediaId: string, init: RequestInit): Promise<unknown> {
    return this.answerOf(mediaId, async () => {
      const response = await fetch(url, {
        ...init,
        headers: { 'user-agent': 'Herald/0.1', ...(init.headers as Record<string, string>) },
      });
      return {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        text: await response.text(),
      };
    });
  }

  /** The account's own PDS when the channel has one, else the configured address. */
  private pdsOf(credentials: NetworkCredentials): string {
    return credentials.serviceUrl ? baseUrlOf(credentials.serviceUrl) : this.baseUrl;
  }

  private async call(
    credentials: NetworkCredentials,
    request: { method: HttpCall['method']; nsid: string; json?: unknown },
    alsoFine: (answer: HttpAnswer) => boolean = () => false,
  ): Promise<HttpAnswer> {
    return sendOrClassify(
      {
        method: request.method,
        url: `${this.pdsOf(credentials)}/xrpc/${request.nsid}`,
        headers: { authorization: `Bearer ${credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
        json: request.json,
        timeoutMs: this.timeoutMs,
      },
      (failure) => {
        const error = classifyBlueskyFailure(failure);
        const lost =
          failure.type === 'transport'
            ? failure.sent && failure.code !== 'TIMEOUT' && !GUARD_REFUSALS.has(failure.code)
            : failure.status >= 500 && failure.status !== 501;
        if (lost) lostAfterSending.add(error);
        return error;
      },
      alsoFine,
      this.transport,
    );
  }
}

/** getRecord's "no such record": `RecordNotFound` (400 from a PDS, 404 through some proxies), or older PDSs' plain `InvalidRequest` "Could not locate record". */
const isRecordNotFound = (answer: HttpAnswer) =>
  (answer.status === 400 || answer.status === 404) &&
  (stringField(answer.body, 'error') === 'RecordNotFound' ||
    /^Could not locate record/.test(stringField(answer.body, 'message') ?? ''));

const blockOf = (uri: string, cid: string): RemoteBlock => {
  const parts = parseAtUri(uri) as { repo: string; rkey: string };
  return {
    remoteId: uri,
    remoteUrl: `https://bsky.app/profile/${parts.repo}/post/${parts.rkey}`,
    meta: { uri, cid },
  };
};
