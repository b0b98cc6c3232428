import { type MediaForNetwork, NetworkError } from '../../ports/network-client.ts';
import { mediaChunks, streamUpload } from '../media-stream.ts';

/**
 * The tus 1.0.0 half of a Vimeo upload: the video's bytes go to its `upload_link` in `PATCH`
 * requests (`Tus-Resumable: 1.0.0`, `Upload-Offset`, `Content-Type:
 * application/offset+octet-stream`), each answered 204 with the new `Upload-Offset`. `HEAD` on
 * the link tells how many bytes Vimeo holds: after a dropped connection, a 409 (another offset
 * than Vimeo's) or at the start of a later attempt, the upload continues from there. Each PATCH
 * body is a byte range of the media file streamed from its presigned URL (256 KiB reads, with
 * backpressure): nothing close to the video's size is ever in memory.
 */

/** Reads at a time from the media store. */
const READ_BYTES = 256 * 1024;

const TUS_HEADERS = { 'tus-resumable': '1.0.0' };

/** The upload link no longer takes bytes (the video was deleted, or the link expired). */
export class UploadGone extends Error {
  constructor(readonly status: number) {
    super(`the upload link answered ${status}`);
    this.name = 'UploadGone';
  }
}

/** A PATCH that did not move the upload (dropped connection, 409, 5xx): ask HEAD and go on. */
export class UploadInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadInterrupted';
  }
}

/** Bytes `[start, start + length)` of the file, streamed in reads of 256 KiB. */
export async function* byteRange(
  file: MediaForNetwork,
  start: number,
  length: number,
): AsyncGenerator<Uint8Array> {
  let left = length;
  if (left === 0) return;
  for await (const chunk of mediaChunks(file.url, READ_BYTES, { start })) {
    const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
    left -= part.length;
    yield part;
    if (left === 0) return;
  }
  throw new NetworkError(
    'permanent',
    `The media file ${file.mediaId} is not the ${file.size} bytes it was stored with: it ends before byte ${start + length - left}.`,
  );
}

/** How many bytes Vimeo holds for the upload (`HEAD`), and the upload's length. */
export const tusOffset = async (
  uploadLink: string,
  timeoutMs: number,
): Promise<{ offset: number; length: number | null }> => {
  let response: Response;
  try {
    response = await fetch(uploadLink, {
      method: 'HEAD',
      headers: TUS_HEADERS,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new NetworkError(
      'transient',
      `Vimeo's upload server could not be asked how much of the video it holds (${(error as Error).message}).`,
    );
  }
  if (response.status === 404 || response.status === 410 || response.status === 403) {
    throw new UploadGone(response.status);
  }
  const offset = Number(response.headers.get('upload-offset'));
  if (!response.ok || !Number.isInteger(offset) || offset < 0) {
    throw new NetworkError(
      'transient',
      `Vimeo's upload server did not tell how much of the video it holds (HTTP ${response.status}).`,
      { status: response.status },
    );
  }
  const length = Number(response.headers.get('upload-length'));
  return { offset, length: Number.isInteger(length) ? length : null };
};

/**
 * Sends `length` bytes of `file` from `offset` in one PATCH; answers the new offset Vimeo reports.
 * A dropped connection, a timeout, a 409 or a 5xx is `UploadInterrupted` (the caller asks HEAD);
 * a 404/410 is `UploadGone`; another refusal is permanent (a protocol error).
 */
export const tusPatch = async (
  uploadLink: string,
  file: MediaForNetwork,
  offset: number,
  length: number,
  timeoutMs: number,
): Promise<number> => {
  let answer: Awaited<ReturnType<typeof streamUpload>>;
  try {
    answer = await streamUpload(uploadLink, {
      method: 'PATCH',
      headers: {
        ...TUS_HEADERS,
        'upload-offset': String(offset),
        'content-type': 'application/offset+octet-stream',
      },
      body: byteRange(file, offset, length),
      contentLength: length,
      timeoutMs,
    });
  } catch (error) {
    if (error instanceof NetworkError) throw error;
    throw new UploadInterrupted(`the connection broke during the upload (${(error as Error).message})`);
  }
  if (answer.status === 204 || answer.status === 200) {
    const next = Number(answer.headers['upload-offset']);
    if (!Number.isInteger(next) || next < offset) {
      throw new UploadInterrupted('Vimeo did not report the new Upload-Offset');
    }
    return next;
  }
  if (answer.status === 404 || answer.status === 410) throw new UploadGone(answer.status);
  if (answer.status === 409 || answer.status >= 500) {
    throw new UploadInterrupted(`Vimeo's upload server answered HTTP ${answer.status}`);
  }
  throw new NetworkError(
    'permanent',
    `Vimeo's upload server refused the video's bytes (HTTP ${answer.status}${answer.text ? `: ${answer.text.slice(0, 200)}` : ''}).`,
    { status: answer.status },
  );
};
