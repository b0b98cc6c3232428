import { createHash, randomBytes } from 'node:crypto';
import type { SimRecord } from '../framework/framework.ts';
import { tiktokOAuthSimulator } from './oauth.ts';
import {
  DEFAULT_CREATOR,
  type SimVideo,
  type TikTokCreatorSettings,
  type TikTokSimulatorOptions,
} from './records.ts';
import { tiktokUploadSimulator } from './upload.ts';

/** The TikTok simulator's in-memory creators and videos, its upload host, its switches, and how a video moves along. */
export const tiktokState = (options: TikTokSimulatorOptions) => {
  const processingMs = options.processingMs ?? 300;
  const initsPerMinute = options.initsPerMinute ?? 6;
  const dailyPostCap = options.dailyPostCap ?? 25;
  const uploadUrlLifetimeMs = options.uploadUrlLifetimeMs ?? 3_600_000;
  const oauth = tiktokOAuthSimulator(options.oauth);
  const uploads = tiktokUploadSimulator({ holdMs: options.holdMs });
  const videos = new Map<string, SimVideo>();
  const initsByToken = new Map<string, number[]>();
  /** What the switches change: the creator's settings, the app's audit, failing processing, verified domains. */
  const tuning: {
    creator: TikTokCreatorSettings;
    audited: boolean;
    failProcessing: string | null;
    verifiedDomains: string[];
  } = {
    creator: { ...DEFAULT_CREATOR },
    audited: options.audited ?? true,
    failProcessing: null,
    verifiedDomains: options.verifiedDomains ?? [],
  };

  /** The creator behind a token: the account its grant names, else one derived from the token. */
  const accountOf = (token: string) =>
    oauth.accountOf(token) ?? `sim${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;

  /** Moves a video along by the clock: processed `processingMs` after its last chunk; recorded once published. */
  const settle = (video: SimVideo, record: (entry: Omit<SimRecord, 'at'>) => SimRecord) => {
    if (video.status !== 'PROCESSING_UPLOAD' && video.status !== 'PROCESSING_DOWNLOAD') return video;
    if (video.completedAt === null || Date.now() < video.completedAt + processingMs) return video;
    if (tuning.failProcessing) {
      video.status = 'FAILED';
      video.failReason = tuning.failProcessing;
      return video;
    }
    video.status = 'PUBLISH_COMPLETE';
    video.publishedAt = Date.now();
    video.videoId = `7${(BigInt(Date.now()) * 1000n + BigInt(randomBytes(2).readUInt16BE(0) % 1000)).toString().padStart(18, '0')}`;
    record({
      kind: 'post',
      id: video.videoId,
      parentId: null,
      rootId: null,
      text: video.title,
      account: video.account,
    });
    return video;
  };

  return {
    processingMs,
    initsPerMinute,
    dailyPostCap,
    uploadUrlLifetimeMs,
    oauth,
    uploads,
    videos,
    initsByToken,
    tuning,
    accountOf,
    settle,
  };
};

export type TikTokState = ReturnType<typeof tiktokState>;
