import { randomBytes } from 'node:crypto';
import { type MediaForNetwork, NetworkError, type UploadProgress } from '../../ports/network-client.ts';
import { exactly, mediaChunks, streamUpload } from '../media-stream.ts';
import { type HttpAnswer, stringField } from '../network-http.ts';

/**
 * Pinterest video uploads: `POST /v5/media {media_type: 'video'}` registers an upload and answers
 * with `media_id`, an `upload_url` (an S3 bucket) and `upload_parameters` (a presigned S3 POST
 * policy); the file goes to `upload_url` as a multipart/form-data POST with every upload parameter
 * as a field and the file last (S3 answers 204). The body is streamed from the presigned GET URL
 * with node:http backpressure (never the whole video in memory), with an exact Content-Length.
 * Pinterest then processes the video: `GET /v5/media/{media_id}` reports `registered`,
 * `processing`, `succeeded` or `failed`. The wait is bounded (`maxProcessingSeconds`, default 20):
 * a video still processing then is a transient failure (the retry uploads it again; nothing was
 * pinned, so nothing is pinned twice); `failed` is a permanent refusal.
 */

export interface PinterestMediaOptions {
  /** Between two status reads (default 1,000 ms). */
  pollMs?: number;
  /** The longest one publish waits for processing (default 20 s). */
  maxProcessingSeconds?: number;
  /** The S3 upload's timeout (default 10 minutes). */
  uploadTimeoutMs?: number;
}

export type PinterestCall = (request: {
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  /** Statuses answered instead of thrown. */
  alsoFine?: number[];
}) => Promise<HttpAnswer>;

const CHUNK = 1024 * 1024;

/** The multipart form around the file: every upload parameter as a field, then the file part. */
export const uploadForm = (parameters: Record<string, string>, file: MediaForNetwork) => {
  const boundary = `----HeraldPinterest${randomBytes(12).toString('hex')}`;
  const fields = Object.entries(parameters)
    .map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    )
    .join('');
  const head = Buffer.from(
    `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.mediaId}"\r\n` +
      `Content-Type: ${file.mimeType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { boundary, head, tail, length: head.length + file.size + tail.length };
};

async function* framed(head: Buffer, body: AsyncIterable<Uint8Array>, tail: Buffer) {
  yield head;
  yield* body;
  yield tail;
}

export class PinterestVideoUploader {
  private readonly pollMs: number;
  private readonly maxProcessingMs: number;
  private readonly uploadTimeoutMs: number;

  constructor(options: PinterestMediaOptions = {}) {
    this.pollMs = options.pollMs ?? 1000;
    this.maxProcessingMs = (options.maxProcessingSeconds ?? 20) * 1000;
    this.uploadTimeoutMs = options.uploadTimeoutMs ?? 600_000;
  }

  /**
   * Registers, uploads and waits for the video: its `media_id`, ready for a pin. With `progress`
   * (kept by the engine across worker invocations) the uploaded `media_id` is saved once the file
   * is at Pinterest, and a wait that runs out (the bound, or the invocation's `deadline`) ends in
   * `continueLater`: the next attempt resumes waiting for that upload instead of sending the video
   * again. A saved upload Pinterest no longer knows (404) is replaced by a fresh one.
   */
  async upload(
    file: MediaForNetwork,
    call: PinterestCall,
    resume: { progress?: UploadProgress; deadline?: Date } = {},
  ): Promise<string> {
    const saved = resume.progress?.saved;
    if (saved && saved.file === file.mediaId && typeof saved.pinterestMediaId === 'string') {
      const known = await call({
        method: 'GET',
        path: `/v5/media/${encodeURIComponent(saved.pinterestMediaId)}`,
        alsoFine: [404],
      });
      if (known.status !== 404) {
        await this.waitForProcessing(saved.pinterestMediaId, call, resume);
        return saved.pinterestMediaId;
      }
    }
    const registered = await call({ method: 'POST', path: '/v5/media', json: { media_type: 'video' } });
    const mediaId = stringField(registered.body, 'media_id');
    const uploadUrl = stringField(registered.body, 'upload_url');
    const parameters = (registered.body as { upload_parameters?: unknown } | undefined)?.upload_parameters;
    if (!mediaId || !uploadUrl || !parameters || typeof parameters !== 'object') {
      throw new NetworkError('transient', 'Pinterest registered the video upload without its upload form', {
        status: registered.status,
      });
    }
    const fields = Object.fromEntries(
      Object.entries(parameters as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
    const form = uploadForm(fields, file);
    let answer: Awaited<ReturnType<typeof streamUpload>>;
    try {
      answer = await streamUpload(uploadUrl, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${form.boundary}` },
        body: framed(form.head, exactly(mediaChunks(file.url, CHUNK), file.size, file.mediaId), form.tail),
        contentLength: form.length,
        timeoutMs: this.uploadTimeoutMs,
      });
    } catch (error) {
      if (error instanceof NetworkError) throw error;
      // Nothing is pinned by an upload: a lost upload is retried with a new registration.
      const code = (error as NodeJS.ErrnoException).code ?? 'EUPLOAD';
      throw new NetworkError(
        'transient',
        `The video upload to Pinterest failed (${code}): ${(error as Error).message}`,
      );
    }
    if (answer.status < 200 || answer.status >= 300) {
      const kind = answer.status >= 500 || answer.status === 403 ? 'transient' : 'permanent';
      throw new NetworkError(kind, `Pinterest's upload storage refused the video (HTTP ${answer.status}).`, {
        status: answer.status,
      });
    }
    await resume.progress?.save({ file: file.mediaId, pinterestMediaId: mediaId });
    await this.waitForProcessing(mediaId, call, resume);
    return mediaId;
  }

  private async waitForProcessing(
    mediaId: string,
    call: PinterestCall,
    resume: { progress?: UploadProgress; deadline?: Date },
  ): Promise<void> {
    // Leave the invocation 3 s to answer after the last poll.
    const deadline = Math.min(
      Date.now() + this.maxProcessingMs,
      resume.deadline ? resume.deadline.getTime() - 3000 : Number.POSITIVE_INFINITY,
    );
    for (;;) {
      const answer = await call({ method: 'GET', path: `/v5/media/${encodeURIComponent(mediaId)}` });
      const status = stringField(answer.body, 'status');
      if (status === 'succeeded') return;
      if (status === 'failed') {
        throw new NetworkError('permanent', 'Pinterest could not process the video (media status failed).', {
          status: answer.status,
        });
      }
      if (Date.now() + this.pollMs > deadline) {
        if (resume.progress) {
          // The upload is saved: the next attempt waits for it again, without spending an attempt.
          throw new NetworkError(
            'transient',
            'Pinterest is still processing the video; the next attempt waits for the same upload.',
            { continueLater: true },
          );
        }
        throw new NetworkError(
          'transient',
          `Pinterest was still processing the video after ${this.maxProcessingMs / 1000} s; it is uploaded again on the next attempt.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
    }
  }
}
