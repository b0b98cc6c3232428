import { randomBytes } from 'node:crypto';
import { type MediaForNetwork, NetworkError } from '../../ports/network-client.ts';
import { exactly, mediaChunks, streamUpload } from '../media-stream.ts';
import { type RedditConnection, redditCall } from './http.ts';

/**
 * Reddit's media uploads: `POST /api/media/asset.json {filepath, mimetype}` leases an S3 upload
 * slot (`args.action`, protocol-relative, and `args.fields`); the file goes to it as one multipart
 * POST, the lease's fields first and the file last (S3 requires that order), streamed from
 * Herald's store without holding the file in memory; S3 answers 201 with the file's `Location`,
 * which the submit names as its `url`. A slot that was not used costs nothing, so a failed upload
 * is simply retried with a new one.
 */

const CHUNK_BYTES = 256 * 1024;

/** A blank 1×1 PNG: Reddit requires a poster image for a video post, and Herald has no frame extractor. */
export const BLANK_POSTER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
};

interface Lease {
  action: string;
  fields: { name: string; value: string }[];
}

const leaseOf = (body: unknown, baseUrl: string): Lease => {
  const args = (body as { args?: { action?: unknown; fields?: unknown } } | null)?.args;
  const fields = Array.isArray(args?.fields)
    ? (args.fields as unknown[]).flatMap((field) => {
        const entry = field as { name?: unknown; value?: unknown } | null;
        return typeof entry?.name === 'string' && typeof entry.value === 'string'
          ? [{ name: entry.name, value: entry.value }]
          : [];
      })
    : [];
  if (typeof args?.action !== 'string' || fields.length === 0) {
    throw new NetworkError('transient', 'Reddit answered the media lease without an upload slot');
  }
  // The action is protocol-relative (`//reddit-uploaded-media.s3-accelerate.amazonaws.com`).
  const action = args.action.startsWith('//') ? `${new URL(baseUrl).protocol}${args.action}` : args.action;
  return { action, fields };
};

const quote = (value: string) => value.replace(/["\r\n]/g, '_');

/** Uploads one file; answers its S3 location (what a submit's `url` names) and asset id (what a gallery names). */
export const uploadRedditMedia = async (
  connection: RedditConnection,
  accessToken: string,
  file: { mimeType: string; size: number; mediaId: string; body: () => AsyncIterable<Uint8Array> },
): Promise<{ location: string; assetId: string }> => {
  const filepath = `${file.mediaId}.${EXTENSIONS[file.mimeType] ?? 'bin'}`;
  const leased = await redditCall(connection, accessToken, {
    method: 'POST',
    path: '/api/media/asset.json',
    form: { filepath, mimetype: file.mimeType },
  });
  const lease = leaseOf(leased.body, connection.baseUrl);
  const assetId = (leased.body as { asset?: { asset_id?: unknown } } | null)?.asset?.asset_id;
  if (typeof assetId !== 'string') {
    throw new NetworkError('transient', 'Reddit answered the media lease without an asset id');
  }
  const boundary = `----HeraldRedditUpload${randomBytes(12).toString('hex')}`;
  const preamble = Buffer.from(
    lease.fields
      .map(
        (f) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${quote(f.name)}"\r\n\r\n${f.value}\r\n`,
      )
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(filepath)}"\r\n` +
      `Content-Type: ${file.mimeType}\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body() {
    yield preamble;
    yield* exactly(file.body(), file.size, file.mediaId);
    yield epilogue;
  }
  let answer: Awaited<ReturnType<typeof streamUpload>>;
  try {
    answer = await streamUpload(lease.action, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: body(),
      contentLength: preamble.length + file.size + epilogue.length,
      timeoutMs: Math.max(connection.timeoutMs, 120_000),
    });
  } catch (error) {
    if (error instanceof NetworkError) throw error;
    // Nothing is posted until the submit: a failed upload is retried with a new slot.
    throw new NetworkError(
      'transient',
      `The upload to Reddit's media store failed: ${(error as Error).message}`,
    );
  }
  if (answer.status >= 500) {
    throw new NetworkError('transient', `Reddit's media store answered HTTP ${answer.status}`, {
      status: answer.status,
    });
  }
  const code = /<Code>([^<]*)<\/Code>/.exec(answer.text)?.[1] ?? /"Code":"([^"]*)"/.exec(answer.text)?.[1];
  if (answer.status < 200 || answer.status >= 300) {
    throw new NetworkError(
      'permanent',
      `Reddit's media store refused the file ${file.mediaId} (HTTP ${answer.status}${code ? `, ${code}` : ''})`,
      { status: answer.status },
    );
  }
  const location =
    answer.headers.location ??
    /<Location>([^<]+)<\/Location>/.exec(answer.text)?.[1]?.replace(/&amp;/g, '&') ??
    /"Location":"([^"]+)"/.exec(answer.text)?.[1];
  if (!location) {
    throw new NetworkError('transient', "Reddit's media store answered without the file's location");
  }
  return { location, assetId };
};

/** A Herald file as an upload source: streamed from its presigned URL. */
export const storedFile = (media: MediaForNetwork) => ({
  mimeType: media.mimeType,
  size: media.size,
  mediaId: media.mediaId,
  body: () => mediaChunks(media.url, CHUNK_BYTES),
});

/** The blank poster as an upload source. */
export const blankPoster = (mediaId: string) => ({
  mimeType: 'image/png',
  size: BLANK_POSTER_PNG.length,
  mediaId: `${mediaId}-poster`,
  body: async function* () {
    yield BLANK_POSTER_PNG;
  },
});
