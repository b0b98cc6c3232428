import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NetworkError } from '../ports/network-client.ts';

/**
 * Reads a media file from its presigned GET URL in chunks of exactly `chunkSize` bytes (the last
 * one may be shorter), without holding more than one chunk (plus one network read) in memory:
 * how every network client sends large files (X append segments, LinkedIn video parts, resumable
 * uploads). The bytes stream from S3; nothing is buffered whole.
 *
 * A failure to read the file is `transient` (nothing reached the network yet).
 */
export async function* mediaChunks(
  url: string,
  chunkSize: number,
  options: { signal?: AbortSignal; start?: number } = {},
): AsyncGenerator<Uint8Array> {
  if (!Number.isInteger(chunkSize) || chunkSize <= 0)
    throw new RangeError('chunkSize must be a positive integer');
  const start = options.start ?? 0;
  let response: Response;
  try {
    response = await fetch(url, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(start > 0 ? { headers: { range: `bytes=${start}-` } } : {}),
    });
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
  if (start > 0 && response.status !== 206) {
    await response.body.cancel();
    throw new NetworkError('transient', 'The media store ignored the byte range.');
  }
  const reader = response.body.getReader();
  let buffer = new Uint8Array(chunkSize);
  let filled = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let offset = 0;
      while (offset < value.length) {
        const take = Math.min(chunkSize - filled, value.length - offset);
        buffer.set(value.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === chunkSize) {
          yield buffer;
          buffer = new Uint8Array(chunkSize);
          filled = 0;
        }
      }
    }
    if (filled > 0) yield buffer.subarray(0, filled);
  } finally {
    reader.releaseLock();
    await response.body.cancel().catch(() => {});
  }
}

/** The whole file in memory: only for files the network caps small (images, ≤ a few MB). */
export const mediaBytes = async (
  url: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Uint8Array> => {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of mediaChunks(url, 256 * 1024, signal ? { signal } : {})) {
    size += chunk.length;
    if (size > maxBytes)
      throw new NetworkError('permanent', `The media file is larger than ${maxBytes} bytes.`);
    parts.push(chunk);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** What a streamed upload's server answered. */
export interface StreamedAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Sends one large request body (a whole video in one POST, as Bluesky's `uploadVideo` takes it)
 * from an async source with node:http's backpressure: the next chunk is read only when the socket
 * has taken the previous one, so at most a chunk or two is in memory whatever the file's size.
 * (Measured: Node 20's `fetch` with a streamed body grew the worker by about the video's size.)
 * Transport failures reject with the underlying error; the caller classifies them.
 */
export const streamUpload = async (
  url: string,
  options: {
    method: 'POST' | 'PUT' | 'PATCH';
    headers: Record<string, string>;
    body: AsyncIterable<Uint8Array>;
    contentLength: number;
    timeoutMs: number;
  },
): Promise<StreamedAnswer> => {
  const target = new URL(url);
  const request = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, {
    method: options.method,
    headers: { ...options.headers, 'content-length': String(options.contentLength) },
    timeout: options.timeoutMs,
  });
  const answered = new Promise<StreamedAnswer>((resolve, reject) => {
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: Object.fromEntries(
            Object.entries(response.headers).map(([name, value]) => [
              name,
              Array.isArray(value) ? value.join(', ') : String(value ?? ''),
            ]),
          ),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    request.once('error', reject);
    request.once('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
  });
  // A server may answer (and close) before taking the whole body: its answer is what counts.
  const sent = pipeline(Readable.from(options.body, { objectMode: false, highWaterMark: 1 }), request).catch(
    (error: unknown) => error as Error,
  );
  const [answer, sendError] = await Promise.allSettled([answered, sent]);
  if (answer.status === 'fulfilled') return answer.value;
  throw sendError.status === 'fulfilled' && sendError.value instanceof Error
    ? sendError.value
    : answer.reason;
};

/**
 * Passes a file's chunks through, checking they add up to the size Herald stored for it: a body
 * sent with a Content-Length must be exactly that long (a shorter one would leave the network
 * waiting for the rest). A file of another size is refused for good: retrying reads the same bytes.
 */
export async function* exactly(
  source: AsyncIterable<Uint8Array>,
  size: number,
  mediaId: string,
): AsyncGenerator<Uint8Array> {
  let sent = 0;
  for await (const chunk of source) {
    sent += chunk.length;
    if (sent > size) break;
    yield chunk;
  }
  if (sent !== size)
    throw new NetworkError(
      'permanent',
      `The media file ${mediaId} is not the ${size} bytes it was stored with: it has ${sent > size ? 'more' : sent} bytes.`,
    );
}
