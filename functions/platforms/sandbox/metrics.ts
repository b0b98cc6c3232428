import { createHash } from 'node:crypto';
import type { PlatformId } from '../../domain/platforms/types.ts';
import type { MetricName, MetricsReading } from '../../ports/network-client.ts';

/** The metrics each network reports (what the sandbox gives for it, matching each real client). */
export const SIMULATED_METRICS: Record<PlatformId, readonly MetricName[]> = {
  x: ['likes', 'comments', 'reposts', 'quotes', 'bookmarks', 'views'],
  bluesky: ['likes', 'comments', 'reposts', 'quotes'],
  linkedin: ['likes', 'comments'],
  linkedin_page: ['likes', 'comments', 'shares', 'impressions', 'reach', 'clicks'],
  instagram: ['likes', 'comments', 'views', 'reach', 'shares', 'saves'],
  facebook: ['likes', 'comments', 'shares', 'views', 'reach'],
  threads: ['likes', 'comments', 'reposts', 'quotes', 'shares', 'views'],
  tiktok: ['likes', 'comments', 'shares', 'views'],
  youtube: ['likes', 'comments', 'views'],
  vimeo: ['likes', 'comments', 'views'],
  pinterest: ['impressions', 'saves', 'clicks'],
  reddit: ['likes', 'comments'],
};

/** Rough audience of each metric relative to likes (views dwarf likes, quotes are rare). */
const SCALE: Record<MetricName, number> = {
  likes: 1,
  comments: 0.12,
  views: 40,
  shares: 0.08,
  reposts: 0.15,
  quotes: 0.03,
  saves: 0.1,
  impressions: 55,
  reach: 30,
  clicks: 0.6,
  bookmarks: 0.05,
  replies: 0.12,
};

/** Interest in a post fades with a time constant of about a day and a half. */
const FADE_SECONDS = 1.5 * 86_400;

/**
 * Plausible running totals of a simulated post `ageSeconds` after it went live: fixed per post
 * (from its id), never decreasing with age, and approaching each post's own ceiling.
 */
export const simulatedMetrics = (
  platform: PlatformId,
  remoteId: string,
  ageSeconds: number,
): MetricsReading => {
  const seed = createHash('sha256').update(`${platform}/${remoteId}`).digest();
  const ceilingLikes = 20 + ((seed.readUInt32BE(0) % 1000) * (seed[4] as number)) / 64;
  const progress = 1 - Math.exp(-Math.max(0, ageSeconds) / FADE_SECONDS);
  const reading: MetricsReading = {};
  for (const [i, name] of (SIMULATED_METRICS[platform] ?? []).entries()) {
    const jitter = 0.7 + ((seed[8 + i] as number) / 255) * 0.6;
    reading[name] = Math.floor(ceilingLikes * SCALE[name] * jitter * progress);
  }
  return reading;
};
