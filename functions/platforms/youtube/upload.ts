import {
  type MediaForNetwork,
  type NetworkCredentials,
  NetworkError,
  type UploadProgress,
} from '../../ports/network-client.ts';
import { mediaChunks, streamUpload } from '../media-stream.ts';
import type { HttpFailure } from '../network-http.ts';

/**
 * YouTube's resumable upload (Google's resumable media protocol) for one video, streamed from
 * its presigned URL in chunks of `chunkBytes` (a multiple of 256 KiB; YouTube refuses other
 * sizes except for the last chunk): `POST /upload/youtube/v3/videos?uploadType=resumable` with
 * the video resource opens a session (its URI in `Location`); each chunk is a
 * `PUT <session> Content-Range: bytes a-b/total`, answered `308` with `Range: bytes=0-N` until the
 * last, which answers with the video resource. After a lost connection or a 5xx the client asks
 * the session (`Content-Range: bytes *\/total`, empty) how far it got and continues from `N + 1`.
 *
 * The session URI and the confirmed offset are saved with the block's claim (`progress.save`)
 * when the session opens and then every few chunks; a later attempt that finds them continues
 * the same session (or, when it completed, takes its video) instead of uploading a second video.
 * When the attempt's `deadline` is near it saves and throws `continueLater`.
 */

export const YOUTUBE_CHUNK_GRANULARITY = 256 * 1024;
/** 8 MiB: 32 × 256 KiB, a few seconds per chunk on a Lambda's network. */
export const DEFAULT_YOUTUBE_CHUNK_BYTES = 32 * YOUTUBE_CHUNK_GRANULARITY;

/** What a YouTube block keeps across attempts (the saved upload progress). */
export interface YouTubeUploadState {
  /** The resumable session URI. */
  session?: string;
  /** The Herald media file the session uploads, and its size. */
  mediaId?: string;
  size?: number;
  /** Bytes YouTube confirmed. */
  offset?: number;
  /** The video the completed upload created. */
  videoId?: string;
  channelId?: string;
  /** Extras done on the video: the thumbnail, caption files by media id. */
  thumbnailDone?: boolean;
  captionsDone?: string[];
  /** When the upload completed (ms), for the processing wait's bound. */
  uploadedAt?: number;
  /** The privacy the upload asked for, and the one YouTube's answer gave the video (a lookup's warning). */
  privacy?: string;
  appliedPrivacy?: string;
}

export const stateOf = (saved: Record<string, unknown> | null | undefined): YouTubeUploadState => {
  if (saved?.network !== 'youtube') return {};
  const s = saved as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const state: YouTubeUploadState = {};
  const assign = <K extends keyof YouTubeUploadState>(key: K, value: YouTubeUploadState[K] | undefined) => {
    if (value !== undefined) state[key] = value;
  };
  assign('session', str(s.session));
  assign('mediaId', str(s.mediaId));
  assign('size', num(s.size));
  assign('offset', num(s.offset));
  assign('videoId', str(s.videoId));
  assign('channelId', str(s.channelId));
  assign('thumbnailDone', s.thumbnailDone === true ? true : undefined);
  assign(
    'captionsDone',
    Array.isArray(s.captionsDone)
      ? s.captionsDone.filter((x): x is string => typeof x === 'string')
      : undefined,
  );
  assign('uploadedAt', num(s.uploadedAt));
  assign('privacy', str(s.privacy));
  assign('appliedPrivacy', str(s.appliedPrivacy));
  return state;
};

/** Saves the state (tagged with the network) and keeps it as the current one. */
export class StateKeeper {
  constructor(
    private readonly progress: UploadProgress | undefined,
    public state: YouTubeUploadState,
  ) {}
  get saving() {
    return this.progress !== undefined;
  }
  async save(patch: Partial<YouTubeUploadState>) {
    this.state = { ...this.state, ...patch };
    await this.progress?.save({ network: 'youtube', ...this.state });
  }
}

/** A session answer: the upload's offset, or the video once complete. */
export type SessionStatus = { done: false; offset: number } | { done: true; video: unknown } | { gone: true };

export interface ResumableDeps {
  credentials: NetworkCredentials;
  timeoutMs: number;
  chunkBytes: number;
  classify: (failure: HttpFailure) => NetworkError;
  deadline?: Date;
  /** Seconds kept free before the deadline (save and continue later). */
  reserveMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** `Range: bytes=0-N` → N + 1; no Range → 0. */
export const offsetOfRange = (range: string | undefined): number => {
  const match = range ? /bytes=0-(\d+)/.exec(range) : null;
  return match ? Number(match[1]) + 1 : 0;
};

const parse = (text: string): unknown => {
  try {
    return text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Sends one PUT to the session; a transport failure rejects with its error. */
const putToSession = (
  deps: ResumableDeps,
  session: string,
  range: string,
  body: AsyncIterable<Uint8Array>,
  length: number,
) =>
  streamUpload(session, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${deps.credentials.accessToken}`,
      'content-range': range,
      'content-type': 'application/octet-stream',
    },
    body,
    contentLength: length,
    timeoutMs: deps.timeoutMs,
  });

const empty = async function* (): AsyncGenerator<Uint8Array> {};

/** Asks the session how far the upload got (`bytes *\/total`). Throws the classified error on failure. */
export const querySession = async (
  deps: ResumableDeps,
  session: string,
  total: number,
): Promise<SessionStatus> => {
  let answer: Awaited<ReturnType<typeof streamUpload>>;
  try {
    answer = await putToSession(deps, session, `bytes */${total}`, empty(), 0);
  } catch (error) {
    throw deps.classify({
      type: 'transport',
      sent: true,
      code: (error as NodeJS.ErrnoException).code ?? 'ECONNRESET',
    });
  }
  if (answer.status === 308) return { done: false, offset: offsetOfRange(answer.headers.range) };
  if (answer.status === 200 || answer.status === 201) return { done: true, video: parse(answer.text) };
  if (answer.status === 404 || answer.status === 410) return { gone: true };
  throw deps.classify({
    type: 'answer',
    status: answer.status,
    headers: answer.headers,
    body: parse(answer.text),
  });
};

/** The deadline check: true when less than the reserve is left. */
const nearDeadline = (deps: ResumableDeps) =>
  deps.deadline !== undefined && deps.deadline.getTime() - deps.now() < deps.reserveMs;

export const continueLater = (what: string) =>
  new NetworkError('transient', `Upload continues in the next attempt (${what}).`, { continueLater: true });

/**
 * Uploads `video` through `session` from `offset` to its end; returns the video resource YouTube
 * answered the last chunk with. Saves the offset with `keeper` every few chunks.
 */
export const uploadFrom = async (
  deps: ResumableDeps,
  keeper: StateKeeper,
  session: string,
  video: MediaForNetwork,
  start: number,
): Promise<unknown> => {
  const total = video.size;
  let offset = start;
  /** Consecutive failures without progress: a session that keeps failing is given up for this attempt. */
  let failures = 0;
  let lastSave = deps.now();
  let refusedOnce = false;
  let unsaved = 0;
  for (;;) {
    if (offset >= total) {
      // Everything was sent but the last answer was lost: the session knows the video.
      const status = await querySession(deps, session, total);
      if ('gone' in status) throw new NetworkError('transient', 'The YouTube upload session expired.', {});
      if (status.done) return status.video;
      offset = status.offset;
    }
    let restart = false;
    const chunks = mediaChunks(video.url, deps.chunkBytes, { start: offset });
    try {
      for await (const chunk of chunks) {
        if (nearDeadline(deps)) {
          await keeper.save({ offset });
          throw continueLater(`${offset} of ${total} bytes sent`);
        }
        const last = offset + chunk.length - 1;
        if (last >= total)
          throw new NetworkError(
            'permanent',
            `The media file ${video.mediaId} is larger than the ${total} bytes it was stored with.`,
          );
        let answer: Awaited<ReturnType<typeof streamUpload>> | null = null;
        try {
          answer = await putToSession(
            deps,
            session,
            `bytes ${offset}-${last}/${total}`,
            (async function* () {
              yield chunk;
            })(),
            chunk.length,
          );
        } catch (error) {
          if (error instanceof NetworkError) throw error;
          answer = null;
        }
        if (answer && answer.status === 308) {
          const confirmed = offsetOfRange(answer.headers.range);
          failures = 0;
          unsaved += 1;
          if (confirmed !== last + 1) {
            // YouTube kept less than was sent: continue from what it has.
            offset = confirmed;
            restart = true;
            break;
          }
          offset = confirmed;
          if (unsaved >= 4 || deps.now() - lastSave > 5_000) {
            await keeper.save({ offset });
            unsaved = 0;
            lastSave = deps.now();
          }
          continue;
        }
        if (answer && (answer.status === 200 || answer.status === 201)) return parse(answer.text);
        if (answer && answer.status < 500 && answer.status !== 429 && answer.status !== 408) {
          if (answer.status === 404 || answer.status === 410) {
            throw new NetworkError(
              'transient',
              'The YouTube upload session expired; the next attempt starts a new one.',
              {
                status: answer.status,
              },
            );
          }
          if (answer.status === 400 && !refusedOnce) {
            // A chunk refused for its range (the session moved on, e.g. an earlier attempt's chunk
            // landed after all): continue from the offset the session reports, once.
            refusedOnce = true;
            const status = await querySession(deps, session, total);
            if ('gone' in status)
              throw new NetworkError('transient', 'The YouTube upload session expired.', {});
            if (status.done) return status.video;
            if (status.offset !== offset) {
              offset = status.offset;
              restart = true;
              break;
            }
          }
          throw deps.classify({
            type: 'answer',
            status: answer.status,
            headers: answer.headers,
            body: parse(answer.text),
          });
        }
        // A lost connection or a 5xx: ask the session how far it got, then continue from there.
        failures += 1;
        if (failures > 3) {
          await keeper.save({ offset });
          throw new NetworkError(
            'transient',
            `YouTube kept failing the upload (${answer ? `HTTP ${answer.status}` : 'connection lost'}); it resumes in the next attempt.`,
            answer ? { status: answer.status } : {},
          );
        }
        await deps.sleep(Math.min(4_000, 250 * 2 ** failures));
        const status = await querySession(deps, session, total).catch(async (error: unknown) => {
          if (!(error instanceof NetworkError) || !error.details.outcomeUnknown) throw error;
          await keeper.save({ offset });
          // Only the completing chunk can have made a video: the answer of its status query is then unknown.
          if (last + 1 === total) {
            throw new NetworkError(
              'transient',
              'YouTube did not confirm the upload; its session is asked again.',
              { outcomeUnknown: true },
            );
          }
          const { outcomeUnknown: _unknown, ...rest } = error.details;
          throw new NetworkError(error.kind, error.message, rest);
        });
        if ('gone' in status) throw new NetworkError('transient', 'The YouTube upload session expired.', {});
        if (status.done) return status.video;
        offset = status.offset;
        restart = true;
        break;
      }
    } finally {
      await chunks.return(undefined);
    }
    if (!restart && offset >= total) continue;
    if (!restart)
      throw new NetworkError(
        'permanent',
        `The media file ${video.mediaId} is shorter than the ${total} bytes it was stored with.`,
      );
  }
};
