import type { Simulator } from '../framework/framework.ts';
import type { tiktokOAuthSimulator } from './oauth.ts';
import type { SimUpload } from './upload.ts';

/** What the TikTok simulator holds (creator settings, videos and their status), its options and its views. */
export interface TikTokCreatorSettings {
  /** A private account offers no PUBLIC_TO_EVERYONE. */
  privateAccount: boolean;
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number;
}

export const DEFAULT_CREATOR: TikTokCreatorSettings = {
  privateAccount: false,
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
  maxVideoPostDurationSec: 600,
};

export type TikTokPublishStatus = 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'PUBLISH_COMPLETE' | 'FAILED';

export interface SimVideo {
  publishId: string;
  account: string;
  token: string;
  title: string;
  privacyLevel: string;
  disableComment: boolean;
  disableDuet: boolean;
  disableStitch: boolean;
  videoCoverTimestampMs: number | null;
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  upload: SimUpload | null;
  status: TikTokPublishStatus;
  failReason: string | null;
  /** When the last chunk arrived (processing runs from then). */
  completedAt: number | null;
  videoId: string | null;
  createdAt: number;
  publishedAt: number | null;
}

export interface TikTokSimulatorOptions {
  port?: number;
  holdMs?: number;
  /** How long a video is processed after its last chunk (default 300 ms). */
  processingMs?: number;
  /** Inits per token per minute (TikTok: 6). */
  initsPerMinute?: number;
  /** Videos per creator per 24 hours before `spam_risk_too_many_posts` (TikTok does not publish it; default 25). */
  dailyPostCap?: number;
  /** Whether the app passed TikTok's audit (default true); an unaudited app may post SELF_ONLY only. */
  audited?: boolean;
  /** Lifetime of an upload URL (TikTok: one hour). */
  uploadUrlLifetimeMs?: number;
  /** Hosts whose URLs PULL_FROM_URL takes (TikTok: the app's verified domains). */
  verifiedDomains?: string[];
  oauth?: Parameters<typeof tiktokOAuthSimulator>[0];
}

export type TikTokSimulator = Simulator & {
  /** The videos the simulator holds (inspection), by publish id. */
  videos(): ReturnType<typeof viewOf>[];
};

export const viewOf = (video: SimVideo) => ({
  publishId: video.publishId,
  account: video.account,
  title: video.title,
  privacyLevel: video.privacyLevel,
  disableComment: video.disableComment,
  disableDuet: video.disableDuet,
  disableStitch: video.disableStitch,
  videoCoverTimestampMs: video.videoCoverTimestampMs,
  source: video.source,
  videoSize: video.upload?.videoSize ?? null,
  chunkSize: video.upload?.chunkSize ?? null,
  totalChunkCount: video.upload?.totalChunkCount ?? null,
  receivedBytes: video.upload?.uploadedBytes ?? 0,
  droppedBytes: video.upload?.droppedBytes ?? 0,
  interruptions: video.upload?.interruptions ?? 0,
  sha256: video.upload?.sha256 ?? null,
  mimeType: video.upload?.mimeType ?? null,
  status: video.status,
  failReason: video.failReason,
  videoId: video.videoId,
});
