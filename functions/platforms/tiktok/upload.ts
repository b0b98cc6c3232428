import { NetworkError } from '../../ports/network-client.ts';
import { mediaChunks, type StreamedAnswer, streamUpload } from '../media-stream.ts';

/**
 * TikTok's FILE_UPLOAD transfer as the client does it: the chunk plan TikTok's rules allow, and
 * one chunk at a time streamed from the presigned media URL to the `upload_url` with node:http's
 * backpressure (a 256 KiB read at a time: a 10 MiB chunk or a 100 MB video is never held in memory).
 */

const MiB = 1024 * 1024;
/** The chunk size Herald uses: within TikTok's 5–64 MB whichever way "MB" is read. */
export const TIKTOK_CHUNK_BYTES = 10 * MiB;

export interface ChunkPlan {
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
}

/**
 * TikTok's chunk rules: `total_chunk_count = floor(video_size / chunk_size)`, every chunk
 * `chunk_size` bytes but the last, which takes the trailing bytes (so it is under twice
 * `chunk_size`, far below the 128 MB limit); a video no larger than one chunk goes whole.
 */
export const chunkPlan = (videoSize: number, chunkBytes = TIKTOK_CHUNK_BYTES): ChunkPlan =>
  videoSize <= chunkBytes
    ? { videoSize, chunkSize: videoSize, totalChunkCount: 1 }
    : { videoSize, chunkSize: chunkBytes, totalChunkCount: Math.floor(videoSize / chunkBytes) };

/** The byte range of chunk `index` (inclusive). */
export const rangeOf = (plan: ChunkPlan, index: number) => {
  const first = index * plan.chunkSize;
  const last = index === plan.totalChunkCount - 1 ? plan.videoSize - 1 : first + plan.chunkSize - 1;
  return { first, last };
};

/**
 * The media file read once from `start`, handed out as consecutive byte runs of given lengths:
 * each chunk's body is a run, so one storage read serves every chunk of an upload.
 */
export class MediaReader {
  private readonly source: AsyncGenerator<Uint8Array>;
  private rest: Uint8Array | null = null;

  constructor(
    url: string,
    start: number,
    private readonly mediaId: string,
    private readonly size: number,
  ) {
    this.source = mediaChunks(url, 256 * 1024, start > 0 ? { start } : {});
  }

  /** Exactly `length` bytes from where the previous run ended. */
  async *take(length: number): AsyncGenerator<Uint8Array> {
    let left = length;
    while (left > 0) {
      let piece = this.rest;
      this.rest = null;
      if (!piece) {
        const next = await this.source.next();
        if (next.done) {
          throw new NetworkError(
            'permanent',
            `The media file ${this.mediaId} is shorter than the ${this.size} bytes it was stored with.`,
          );
        }
        piece = next.value;
      }
      if (piece.length > left) {
        this.rest = piece.subarray(left);
        piece = piece.subarray(0, left);
      }
      left -= piece.length;
      yield piece;
    }
  }

  async close(): Promise<void> {
    await this.source.return(undefined).catch(() => undefined);
  }
}

/** PUTs one chunk; the upload host's answer, or the transport error as thrown. */
export const putChunk = (
  uploadUrl: string,
  options: {
    body: AsyncIterable<Uint8Array>;
    first: number;
    last: number;
    total: number;
    mimeType: string;
    timeoutMs: number;
  },
): Promise<StreamedAnswer> =>
  streamUpload(uploadUrl, {
    method: 'PUT',
    headers: {
      'content-type': options.mimeType,
      'content-range': `bytes ${options.first}-${options.last}/${options.total}`,
    },
    body: options.body,
    contentLength: options.last - options.first + 1,
    timeoutMs: options.timeoutMs,
  });
