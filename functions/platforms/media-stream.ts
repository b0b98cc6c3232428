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
