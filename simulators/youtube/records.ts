import type { Simulator } from '../framework/framework.ts';
import type { youtubeOAuthSimulator } from './oauth.ts';
import type { ResumableOptions } from './upload.ts';

export interface SimCaption {
  id: string;
  language: string;
  name: string;
  format: 'vtt' | 'srt' | 'other';
  size: number;
  sha256: string;
}

export interface SimYouTubeVideo {
  id: string;
  account: string;
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: string;
  madeForKids: boolean;
  publishedAt: string;
  size: number;
  sha256: string;
  contentType: string;
  uploadStatus: 'uploaded' | 'processed' | 'failed' | 'rejected' | 'deleted';
  processingStatus: 'processing' | 'succeeded' | 'failed' | 'terminated';
  failureReason: string | null;
  rejectionReason: string | null;
  readyAt: number;
  /** `failed` or `rejected` once processing ends (the fail-next-processing switch). */
  outcome: 'failed' | 'rejected' | null;
  thumbnail: { size: number; sha256: string; mimeType: string } | null;
  captions: SimCaption[];
  /** Set with `POST /_sim/youtube/statistics`; null: counts that grow with the video's age. */
  statistics: { viewCount: number; likeCount: number; commentCount: number; favoriteCount: number } | null;
  /** Chunks the upload took (resumes included). */
  chunks: number;
  /** The privacy the upload (or the last update) asked for; `privacyStatus` is what YouTube applied. */
  requestedPrivacyStatus: string;
  /** Uploaded from an unaudited project: private whatever is asked (audit-simulator.ts). */
  privacyLocked: boolean;
}

export interface YouTubeSimulatorOptions extends ResumableOptions {
  /** The OAuth app (its credentials and registered redirect URIs). */
  oauth?: Parameters<typeof youtubeOAuthSimulator>[0];
  /** How long a new video is `processing` (default 300 ms). */
  processingMs?: number;
  /** Largest chunk a PUT may carry (default 64 MiB). */
  maxChunkBytes?: number;
  /** The OAuth app's Google Cloud project passed YouTube's audit (default false: uploads are locked to private). */
  audited?: boolean;
  /** How long a refresh token may go unused (default six months). */
  refreshIdleSeconds?: number;
}

export type YouTubeSimulator = Simulator & {
  videos(): SimYouTubeVideo[];
  dropNextChunk(keep: number): void;
  failNextProcessing(outcome: 'failed' | 'rejected'): void;
  setQuotaExceeded(exceeded: boolean): void;
  /** Makes the OAuth app's project audited (uploads as asked) or not (uploads locked to private). */
  setAudited(audited: boolean): void;
  /** Moves the simulator's clock forward (the refresh tokens' idle limit reads it). */
  advanceClock(seconds: number): void;
  /** Turns a video's comments off (commentThreads.list answers 403 `commentsDisabled`) or on. */
  setCommentsDisabled(videoId: string, disabled: boolean): void;
};
