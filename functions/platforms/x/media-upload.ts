import { type MediaForNetwork, type NetworkCredentials, NetworkError } from '../../ports/network-client.ts';
import { mediaChunks } from '../media-stream.ts';
import { type HttpAnswer, stringField } from '../network-http.ts';

/**
 * X's chunked media upload (API v2), as the X client uses it for each file of a block:
 * `POST /2/media/upload/initialize {media_type, total_bytes, media_category}`, one
 * `POST /2/media/upload/{id}/append {segment_index, media}` per chunk (base64 in JSON, as X's v2
 * reference documents), `POST /2/media/upload/{id}/finalize`, then for videos and GIFs
 * `GET /2/media/upload?command=STATUS&media_id=` every `check_after_secs` until `succeeded` (a
 * `failed` processing is a permanent refusal), and the alt text through `POST /2/media/metadata`.
 *
 * The bytes stream from the presigned URL in `chunkBytes` pieces (`mediaChunks`): one chunk (and
 * its base64 form) is in memory at a time, never the whole video.
 *
 * A failure half-way leaves an upload X cannot use: the next attempt starts a new one from the
 * first byte. A finished upload is kept (per process, per account and Herald media file) while X
 * keeps it (`expires_after_secs`, 24 hours for tweet media, less an hour of margin) and reused by
 * a retry, after a STATUS call confirms X still has it. Errors of the upload never carry
 * `outcomeUnknown`: no tweet was sent yet, so sending again cannot make a duplicate.
 */

export type XCall = (
  credentials: NetworkCredentials,
  request: { method: 'GET' | 'POST'; path: string; json?: unknown },
  alsoFine?: number[],
) => Promise<HttpAnswer>;

export interface XMediaUploadOptions {
  /** Bytes per append (default 2 MiB; X takes at most 5 MB per segment and 1,000 segments). */
  chunkBytes?: number;
  /** Longest wait for X to process a video or GIF within one attempt (default 20 s: with the upload and the tweet it stays within the publish worker's 60-s timeout and block lease). */
  maxProcessingSeconds?: number;
  /** Waits between STATUS polls (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export const DEFAULT_X_CHUNK_BYTES = 2 * 1024 * 1024;
const DEFAULT_MAX_PROCESSING_SECONDS = 20;
/** A kept upload is not reused within the last hour of its life. */
const REUSE_MARGIN_MS = 3_600_000;

/** X's media category for a file type. */
export const xMediaCategory = (mimeType: string): 'tweet_image' | 'tweet_gif' | 'tweet_video' =>
  mimeType === 'image/gif' ? 'tweet_gif' : mimeType.startsWith('video/') ? 'tweet_video' : 'tweet_image';

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The error as it applies to an upload: the tweet was not sent, so the outcome is never unknown. */
const uploadError = (error: unknown, what: string): unknown => {
  if (!(error instanceof NetworkError)) return error;
  if (!error.details.outcomeUnknown) return error;
  const { outcomeUnknown: _unknown, ...rest } = error.details;
  return new NetworkError(error.kind, `${what}: ${error.message}`, rest);
};

interface Kept {
  id: string;
  expiresAt: number;
  altText: string | null;
}

interface ProcessingInfo {
  state?: string;
  check_after_secs?: number;
  error?: { message?: string; name?: string };
}

export class XMediaUploader {
  private readonly chunkBytes: number;
  private readonly maxProcessingMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  /** Finished uploads by account and Herald media id. */
  private readonly kept = new Map<string, Kept>();

  constructor(
    private readonly call: XCall,
    options: XMediaUploadOptions = {},
  ) {
    this.chunkBytes = options.chunkBytes ?? DEFAULT_X_CHUNK_BYTES;
    this.maxProcessingMs = (options.maxProcessingSeconds ?? DEFAULT_MAX_PROCESSING_SECONDS) * 1000;
    this.sleep = options.sleep ?? defaultSleep;
    this.now = options.now ?? Date.now;
  }

  /** The X media ids for a block's files, in order (uploading those not already on X). */
  async uploadAll(media: MediaForNetwork[], credentials: NetworkCredentials): Promise<string[]> {
    const heavy = media.filter((file) => xMediaCategory(file.mimeType) !== 'tweet_image');
    if (media.length > 4 || (heavy.length > 0 && media.length > 1)) {
      throw new NetworkError(
        'permanent',
        'X takes up to 4 images, or one GIF, or one video per post; split the files over several blocks.',
      );
    }
    const ids: string[] = [];
    for (const file of media) ids.push(await this.upload(file, credentials));
    return ids;
  }

  /**
   * One file's X media id: a kept upload X still has (finishing its processing if needed), else a
   * new upload from the first byte. An upload is kept from its finalize on, so a retry after a
   * processing wait that ran out goes on polling the same upload.
   */
  async upload(file: MediaForNetwork, credentials: NetworkCredentials): Promise<string> {
    const key = `${credentials.remoteAccountId}\u0000${file.mediaId}`;
    for (const [other, upload] of this.kept) {
      if (upload.expiresAt <= this.now()) this.kept.delete(other);
    }
    const kept = this.kept.get(key);
    if (kept && kept.expiresAt - REUSE_MARGIN_MS > this.now()) {
      const info = await this.status(credentials, kept.id);
      if (info !== null) {
        await this.processed(credentials, kept.id, info);
        await this.describe(credentials, kept, file.altText);
        return kept.id;
      }
    }
    this.kept.delete(key);
    const uploaded = await this.fresh(file, credentials);
    this.kept.set(key, uploaded.kept);
    await this.processed(credentials, uploaded.kept.id, uploaded.processing);
    await this.describe(credentials, uploaded.kept, file.altText);
    return uploaded.kept.id;
  }

  /** Initialize, every chunk, finalize: the upload X will process. */
  private async fresh(
    file: MediaForNetwork,
    credentials: NetworkCredentials,
  ): Promise<{ kept: Kept; processing: ProcessingInfo | undefined }> {
    const category = xMediaCategory(file.mimeType);
    const init = await this.step('X media upload could not start', () =>
      this.call(credentials, {
        method: 'POST',
        path: '/2/media/upload/initialize',
        json: { media_type: file.mimeType, total_bytes: file.size, media_category: category },
      }),
    );
    const data = (init.body as { data?: { id?: unknown; expires_after_secs?: unknown } } | undefined)?.data;
    const id = stringField(data, 'id');
    if (!id) throw new NetworkError('transient', 'X did not return a media id for the upload', {});
    let expiresAt = this.expiry(data?.expires_after_secs);

    let segment = 0;
    let sent = 0;
    for await (const chunk of mediaChunks(file.url, this.chunkBytes)) {
      const index = segment;
      await this.step('X media upload failed half-way; it starts again from the first byte', () =>
        this.call(credentials, {
          method: 'POST',
          path: `/2/media/upload/${encodeURIComponent(id)}/append`,
          json: {
            segment_index: index,
            media: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('base64'),
          },
        }),
      );
      segment++;
      sent += chunk.length;
    }
    if (sent !== file.size) {
      throw new NetworkError(
        'transient',
        `The media file had ${sent} bytes, not the ${file.size} recorded; the upload starts again.`,
      );
    }
    const finalized = await this.step('X could not finalize the media upload', () =>
      this.call(credentials, { method: 'POST', path: `/2/media/upload/${encodeURIComponent(id)}/finalize` }),
    );
    const finalData = (
      finalized.body as
        | { data?: { processing_info?: ProcessingInfo; expires_after_secs?: unknown } }
        | undefined
    )?.data;
    if (finalData?.expires_after_secs !== undefined) expiresAt = this.expiry(finalData.expires_after_secs);
    return { kept: { id, expiresAt, altText: null }, processing: finalData?.processing_info };
  }

  /** Sets the alt text when it is not already the one X has. */
  private async describe(credentials: NetworkCredentials, kept: Kept, altText: string | null): Promise<void> {
    if (altText === null || altText === kept.altText) return;
    await this.setAltText(credentials, kept.id, altText);
    kept.altText = altText;
  }

  /** Polls STATUS until X has processed the file (a no-op for images, which come back without `processing_info`). */
  private async processed(
    credentials: NetworkCredentials,
    id: string,
    initial: ProcessingInfo | undefined,
  ): Promise<void> {
    const deadline = this.now() + this.maxProcessingMs;
    let info = initial;
    while (info?.state !== undefined && info.state !== 'succeeded') {
      if (info.state === 'failed') {
        const reason = info.error?.message ?? info.error?.name ?? 'no reason given';
        throw new NetworkError('permanent', `X could not process the media file: ${reason}`);
      }
      const waitMs = Math.max(1, info.check_after_secs ?? 1) * 1000;
      if (this.now() + waitMs > deadline) {
        throw new NetworkError(
          'transient',
          'X is still processing the video; publishing tries again (the upload is kept for the retry).',
        );
      }
      await this.sleep(waitMs);
      const answer = await this.step('X media status could not be read', () =>
        this.call(credentials, {
          method: 'GET',
          path: `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}`,
        }),
      );
      info = (answer.body as { data?: { processing_info?: ProcessingInfo } } | undefined)?.data
        ?.processing_info;
    }
  }

  /**
   * A kept upload's processing as X reports it now (`{}` for an image, which has none), or null
   * when X no longer has it (a 4xx).
   */
  private async status(credentials: NetworkCredentials, id: string): Promise<ProcessingInfo | null> {
    const answer = await this.step('X media status could not be read', () =>
      this.call(
        credentials,
        { method: 'GET', path: `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}` },
        [400, 404],
      ),
    );
    if (answer.status >= 400) return null;
    return (
      (answer.body as { data?: { processing_info?: ProcessingInfo } } | undefined)?.data?.processing_info ??
      {}
    );
  }

  private async setAltText(credentials: NetworkCredentials, id: string, text: string): Promise<void> {
    await this.step('X did not take the alt text', () =>
      this.call(credentials, {
        method: 'POST',
        path: '/2/media/metadata',
        json: { id, metadata: { alt_text: { text } } },
      }),
    );
  }

  private expiry(seconds: unknown): number {
    const valid = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0;
    return this.now() + (valid ? seconds : 86_400) * 1000;
  }

  private async step<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw uploadError(error, what);
    }
  }
}
