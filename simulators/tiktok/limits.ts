import { randomBytes } from 'node:crypto';

/** TikTok's Content Posting limits: chunk rules, sizes, privacy levels, title length; its ids and log ids. */
export const MiB = 1024 * 1024;
export const TIKTOK_MIN_CHUNK = 5 * MiB;
export const TIKTOK_MAX_CHUNK = 64 * MiB;
export const TIKTOK_MAX_LAST_CHUNK = 128 * MiB;
export const MAX_VIDEO_BYTES = 4 * 1024 * MiB;
export const PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
];
export const MAX_TITLE = 2200;

/**
 * A post id as TikTok writes it in status/fetch: a bare JSON number of 19 digits (more than a
 * JavaScript number holds), where the runtime can write one (`JSON.rawJSON`, Node 22); a string
 * on Node 20.
 */
export const rawJson = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;
export const postIdJson = (id: string): unknown => (rawJson ? rawJson(id) : id);

export const logId = () => `2026SIM${Date.now()}${randomBytes(3).toString('hex').toUpperCase()}`;

/** Checks FILE_UPLOAD's chunk rules; the refusal message, or null. */
export const chunkRuleError = (videoSize: unknown, chunkSize: unknown, count: unknown): string | null => {
  const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
  if (!isInt(videoSize) || videoSize <= 0) return 'source_info.video_size must be a positive integer';
  if (videoSize > MAX_VIDEO_BYTES) return 'source_info.video_size is larger than 4 GB';
  if (!isInt(chunkSize) || chunkSize <= 0) return 'source_info.chunk_size must be a positive integer';
  if (!isInt(count) || count <= 0) return 'source_info.total_chunk_count must be a positive integer';
  if (videoSize < TIKTOK_MIN_CHUNK && (chunkSize !== videoSize || count !== 1)) {
    return 'A video smaller than 5 MB must be uploaded whole: chunk_size equal to video_size, total_chunk_count 1';
  }
  if (chunkSize === videoSize) {
    if (videoSize > TIKTOK_MAX_CHUNK) return 'A video larger than 64 MB must be uploaded in several chunks';
    return count === 1 ? null : 'total_chunk_count must be 1 when chunk_size is the whole video';
  }
  if (chunkSize < TIKTOK_MIN_CHUNK || chunkSize > TIKTOK_MAX_CHUNK) {
    return 'chunk_size must be between 5 MB and 64 MB';
  }
  const expected = Math.floor(videoSize / chunkSize);
  if (count !== expected) return `total_chunk_count must be floor(video_size / chunk_size) = ${expected}`;
  if (count > 1000) return 'total_chunk_count must be at most 1000';
  if (videoSize - (count - 1) * chunkSize > TIKTOK_MAX_LAST_CHUNK)
    return 'The last chunk may be at most 128 MB';
  return null;
};
