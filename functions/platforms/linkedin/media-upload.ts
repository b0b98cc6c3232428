import { type MediaForNetwork, type NetworkCredentials, NetworkError } from '../../ports/network-client.ts';
import { mediaChunks } from '../media-stream.ts';
import { type HttpAnswer, stringField } from '../network-http.ts';

/**
 * LinkedIn media for a post, as the LinkedIn client uses it for the first block's files:
 * - images (JPEG, PNG, GIF): `POST /rest/images?action=initializeUpload {initializeUploadRequest:{owner}}`
 *   → `uploadUrl` and the image URN; the bytes are PUT there (with the member's token);
 * - a video (MP4): `POST /rest/videos?action=initializeUpload {initializeUploadRequest:{owner,
 *   fileSizeBytes, uploadCaptions, uploadThumbnail}}` → `uploadInstructions[{uploadUrl, firstByte,
 *   lastByte}]` and an `uploadToken`; each part is PUT at its byte range and its `ETag` kept;
 *   `POST /rest/videos?action=finalizeUpload {finalizeUploadRequest:{video, uploadToken, uploadedPartIds}}`;
 * - a document (PDF): `POST /rest/documents?action=initializeUpload`, then a PUT, like an image;
 * then `GET /rest/{images|videos|documents}/{urn}` until `AVAILABLE` (`PROCESSING_FAILED` is a
 * permanent refusal). The post carries `content.media {id, altText}` for one file (a document
 * also a `title`), or `content.multiImage {images:[{id, altText}]}` for 2 to 20 images.
 *
 * The bytes stream from the presigned URL: images and documents pass straight through to the
 * PUT, a video goes one part (LinkedIn's 4 MiB) at a time, never the whole file in memory.
 *
 * Every attempt uploads from a clean start (a new initializeUpload): a failure half-way leaves an
 * asset LinkedIn never shows, and nothing is posted before every file is AVAILABLE. Upload errors
 * never carry `outcomeUnknown`: no post was sent yet.
 */

export type LinkedInCall = (
  credentials: NetworkCredentials,
  request: { method: 'GET' | 'POST'; path: string; json?: unknown },
) => Promise<HttpAnswer>;

export interface LinkedInMediaOptions {
  /** Longest wait for LinkedIn to process the files within one attempt (default 20 s). */
  maxProcessingSeconds?: number;
  /** Between status reads (default 1 s; tests shorten it). */
  pollMs?: number;
  /** Per upload PUT (default 120 s: a 4 MiB part or a whole image or document). */
  uploadTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export type LinkedInPostContent =
  | { media: { id: string; altText?: string; title?: string } }
  | { multiImage: { images: { id: string; altText?: string }[] } };

type Kind = 'image' | 'video' | 'document';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'];
/** LinkedIn's alt text limit (Posts API `altText`). */
export const LINKEDIN_ALT_TEXT_MAX = 4086;

export const linkedInMediaKind = (mimeType: string): Kind | null =>
  IMAGE_TYPES.includes(mimeType)
    ? 'image'
    : mimeType === 'video/mp4'
      ? 'video'
      : mimeType === 'application/pdf'
        ? 'document'
        : null;

const API: Record<Kind, string> = {
  image: '/rest/images',
  video: '/rest/videos',
  document: '/rest/documents',
};

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An upload error: the post was not sent, so the outcome is never unknown. */
const uploadError = (error: unknown, what: string): unknown => {
  if (!(error instanceof NetworkError)) return error;
  const { outcomeUnknown: _unknown, ...rest } = error.details;
  return new NetworkError(error.kind, `${what}: ${error.message}`, rest);
};

export class LinkedInMediaUploader {
  private readonly maxProcessingMs: number;
  private readonly pollMs: number;
  private readonly uploadTimeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly call: LinkedInCall,
    options: LinkedInMediaOptions = {},
  ) {
    this.maxProcessingMs = (options.maxProcessingSeconds ?? 20) * 1000;
    this.pollMs = options.pollMs ?? 1000;
    this.uploadTimeoutMs = options.uploadTimeoutMs ?? 120_000;
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Checks what one LinkedIn post can carry: up to 20 images, or one video, or one document. */
  static check(media: MediaForNetwork[]): void {
    const kinds = media.map((file) => linkedInMediaKind(file.mimeType));
    const unknown = media.find((_, i) => kinds[i] === null);
    if (unknown) {
      throw new NetworkError('permanent', `LinkedIn does not take ${unknown.mimeType} files.`);
    }
    const images = kinds.filter((kind) => kind === 'image').length;
    if (images !== media.length && media.length > 1) {
      throw new NetworkError(
        'permanent',
        'A LinkedIn post takes up to 20 images, or one video, or one document; split the files over several posts.',
      );
    }
    if (images > 20) throw new NetworkError('permanent', 'A LinkedIn post takes at most 20 images.');
    const long = media.find((file) => (file.altText?.length ?? 0) > LINKEDIN_ALT_TEXT_MAX);
    if (long) {
      throw new NetworkError(
        'permanent',
        `LinkedIn takes alt text of at most ${LINKEDIN_ALT_TEXT_MAX} characters.`,
      );
    }
  }

  /**
   * A comment's image (Comments API `content: [{ entity: { image } }]`): exactly one JPEG, PNG or
   * GIF, uploaded through the Images API as `owner` and AVAILABLE; its URN.
   */
  async commentImage(
    media: MediaForNetwork[],
    credentials: NetworkCredentials,
    owner: string,
  ): Promise<string> {
    const [file] = media;
    if (media.length !== 1 || !file || linkedInMediaKind(file.mimeType) !== 'image') {
      throw new NetworkError(
        'permanent',
        'A LinkedIn comment (a later block) takes one image (JPEG, PNG or GIF) and no other file.',
      );
    }
    const urn = await this.single('image', file, credentials, owner);
    await this.available('image', urn, credentials);
    return urn;
  }

  /** Uploads every file (in order) as `owner` and answers the post's `content`. */
  async content(
    media: MediaForNetwork[],
    credentials: NetworkCredentials,
    owner: string,
  ): Promise<LinkedInPostContent> {
    LinkedInMediaUploader.check(media);
    const uploaded: { urn: string; file: MediaForNetwork; kind: Kind }[] = [];
    for (const file of media) {
      const kind = linkedInMediaKind(file.mimeType) as Kind;
      const urn =
        kind === 'video'
          ? await this.video(file, credentials, owner)
          : await this.single(kind, file, credentials, owner);
      uploaded.push({ urn, file, kind });
    }
    for (const { urn, kind } of uploaded) await this.available(kind, urn, credentials);
    const alt = (file: MediaForNetwork) => (file.altText ? { altText: file.altText } : {});
    if (uploaded.length === 1) {
      const { urn, file, kind } = uploaded[0] as (typeof uploaded)[number];
      if (kind === 'document') return { media: { id: urn, title: file.altText || 'Document' } };
      return { media: { id: urn, ...(kind === 'image' ? alt(file) : {}) } };
    }
    return { multiImage: { images: uploaded.map(({ urn, file }) => ({ id: urn, ...alt(file) })) } };
  }

  /** An image or a document: initializeUpload, then the bytes streamed to the upload URL. */
  private async single(kind: Kind, file: MediaForNetwork, credentials: NetworkCredentials, owner: string) {
    const init = await this.step(`LinkedIn ${kind} upload could not start`, () =>
      this.call(credentials, {
        method: 'POST',
        path: `${API[kind]}?action=initializeUpload`,
        json: { initializeUploadRequest: { owner } },
      }),
    );
    const value = (init.body as { value?: unknown } | undefined)?.value;
    const uploadUrl = stringField(value, 'uploadUrl');
    const urn = stringField(value, kind);
    if (!uploadUrl || !urn) {
      throw new NetworkError('transient', `LinkedIn did not return an upload URL for the ${kind}`);
    }
    await this.put(uploadUrl, await this.source(file.url), file.size, credentials);
    return urn;
  }

  /** A video: each part of the upload instructions streamed at its byte range, ETags kept, then finalize. */
  private async video(file: MediaForNetwork, credentials: NetworkCredentials, owner: string) {
    const init = await this.step('LinkedIn video upload could not start', () =>
      this.call(credentials, {
        method: 'POST',
        path: `${API.video}?action=initializeUpload`,
        json: {
          initializeUploadRequest: {
            owner,
            fileSizeBytes: file.size,
            uploadCaptions: false,
            uploadThumbnail: false,
          },
        },
      }),
    );
    const value = (init.body as { value?: Record<string, unknown> } | undefined)?.value;
    const urn = stringField(value, 'video');
    const token = stringField(value, 'uploadToken') ?? '';
    const instructions = Array.isArray(value?.uploadInstructions)
      ? (value.uploadInstructions as { uploadUrl?: unknown; firstByte?: unknown; lastByte?: unknown }[])
      : [];
    const parts = instructions.map((part) => ({
      url: typeof part.uploadUrl === 'string' ? part.uploadUrl : '',
      first: Number(part.firstByte),
      last: Number(part.lastByte),
    }));
    const contiguous = parts.every(
      (part, i) =>
        part.url !== '' &&
        Number.isInteger(part.first) &&
        part.last >= part.first &&
        part.first === (i === 0 ? 0 : (parts[i - 1] as (typeof parts)[number]).last + 1),
    );
    if (!urn || parts.length === 0 || !contiguous || (parts.at(-1)?.last ?? -1) !== file.size - 1) {
      throw new NetworkError('transient', 'LinkedIn did not return usable upload instructions for the video');
    }
    // LinkedIn's parts have one size (the last may be shorter): stream in that size.
    const partSize = (parts[0] as (typeof parts)[number]).last + 1;
    const etags: string[] = [];
    let index = 0;
    for await (const chunk of mediaChunks(file.url, partSize)) {
      const part = parts[index];
      if (!part || chunk.length !== part.last - part.first + 1) {
        throw new NetworkError(
          'transient',
          `The video had other bytes than the ${file.size} recorded; the upload starts again.`,
        );
      }
      const etag = await this.put(part.url, chunk, chunk.length, null);
      if (!etag) {
        throw new NetworkError(
          'transient',
          'LinkedIn did not return an ETag for a video part; the upload starts again.',
        );
      }
      etags.push(etag);
      index++;
    }
    if (index !== parts.length) {
      throw new NetworkError(
        'transient',
        `The video had other bytes than the ${file.size} recorded; the upload starts again.`,
      );
    }
    await this.step('LinkedIn could not finalize the video upload', () =>
      this.call(credentials, {
        method: 'POST',
        path: `${API.video}?action=finalizeUpload`,
        json: { finalizeUploadRequest: { video: urn, uploadToken: token, uploadedPartIds: etags } },
      }),
    );
    return urn;
  }

  /** Reads the file from the presigned URL as a stream (nothing buffered whole). */
  private async source(url: string): Promise<ReadableStream<Uint8Array>> {
    let response: Response;
    try {
      response = await fetch(url);
    } catch (error) {
      throw new NetworkError('transient', `Could not read the media file: ${(error as Error).message}`);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new NetworkError(
        'transient',
        `Could not read the media file (storage answered ${response.status}).`,
      );
    }
    return response.body;
  }

  /** PUTs bytes to an upload URL; the answer's ETag (video parts), if any. A failure is transient: the upload starts again. */
  private async put(
    url: string,
    body: ReadableStream<Uint8Array> | Uint8Array,
    size: number,
    credentials: NetworkCredentials | null,
  ): Promise<string | null> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'PUT',
        headers: {
          'content-type': 'application/octet-stream',
          'content-length': String(size),
          ...(credentials ? { authorization: `Bearer ${credentials.accessToken}` } : {}),
        },
        body,
        signal: AbortSignal.timeout(this.uploadTimeoutMs),
        ...(body instanceof Uint8Array ? {} : { duplex: 'half' }),
      } as RequestInit);
    } catch (error) {
      throw new NetworkError(
        'transient',
        `LinkedIn media upload failed half-way (${(error as Error).message}); it starts again from the first byte.`,
      );
    }
    await response.body?.cancel().catch(() => {});
    if (response.status === 401) {
      throw new NetworkError('reconnect', 'LinkedIn refused the token for the media upload', { status: 401 });
    }
    if (!response.ok) {
      throw new NetworkError(
        'transient',
        `LinkedIn media upload failed half-way (HTTP ${response.status}); it starts again from the first byte.`,
        { status: response.status },
      );
    }
    return response.headers.get('etag');
  }

  /** Waits until LinkedIn has processed the file. */
  private async available(kind: Kind, urn: string, credentials: NetworkCredentials): Promise<void> {
    const deadline = Date.now() + this.maxProcessingMs;
    for (;;) {
      const answer = await this.step(`LinkedIn ${kind} status could not be read`, () =>
        this.call(credentials, { method: 'GET', path: `${API[kind]}/${encodeURIComponent(urn)}` }),
      );
      const status = stringField(answer.body, 'status');
      if (status === 'AVAILABLE') return;
      if (status === 'PROCESSING_FAILED') {
        throw new NetworkError('permanent', `LinkedIn could not process the ${kind} (${urn}).`);
      }
      if (Date.now() + this.pollMs > deadline) {
        throw new NetworkError(
          'transient',
          `LinkedIn is still processing the ${kind}; publishing tries again with a fresh upload.`,
        );
      }
      await this.sleep(this.pollMs);
    }
  }

  private async step<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw uploadError(error, what);
    }
  }
}
