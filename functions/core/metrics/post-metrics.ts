import { getPlatform } from '../../domain/platforms/catalog.ts';
import { channelLiveAt, type PostChannel } from '../../domain/post.ts';
import type { ChannelStore } from '../../ports/channels.ts';
import type { MetricsStore, MetricsTracker, StoredReading } from '../../ports/metrics.ts';
import type { PostStore } from '../../ports/posts.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { channelView } from '../channels/channel-view.ts';
import { findPost } from '../posts/post-context.ts';
import { type CadenceSettings, readingDueAt } from './cadence.ts';
import type { ChannelMetrics, Granularity, PostMetricsResponse } from './schema.ts';

export interface PostMetricsDeps {
  posts: PostStore;
  channels: ChannelStore;
  metrics: MetricsStore;
  cadence: CadenceSettings;
}

/** The start of the UTC hour, day or ISO week (Monday) holding `iso`. */
export const periodStart = (iso: string, granularity: Exclude<Granularity, 'raw'>): string => {
  const date = new Date(iso);
  if (granularity === 'hour') date.setUTCMinutes(0, 0, 0);
  else {
    date.setUTCHours(0, 0, 0, 0);
    if (granularity === 'week') date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  }
  return date.toISOString();
};

/** The series as a chart wants it: every reading (raw), or the last successful reading of each period. */
const series = (readings: StoredReading[], granularity: Granularity): ChannelMetrics['readings'] => {
  const sorted = [...readings].sort((a, b) => a.step - b.step);
  if (granularity === 'raw') {
    return sorted.map((r) => ({
      at: r.at,
      dueAt: r.dueAt,
      status: r.outcome,
      ...(r.metrics ? { metrics: r.metrics } : {}),
      ...(r.blocks ? { blocks: r.blocks } : {}),
      ...(r.reason ? { reason: r.reason } : {}),
    }));
  }
  // Values are running totals: the last reading of a period is the period's value.
  const last = new Map<string, StoredReading>();
  for (const r of sorted) if (r.outcome === 'ok') last.set(periodStart(r.at, granularity), r);
  return [...last].map(([start, r]) => ({ periodStart: start, at: r.at, metrics: r.metrics ?? {} }));
};

const channelMetrics = (
  channel: PostChannel,
  tracker: MetricsTracker | undefined,
  readings: StoredReading[],
  metricsStatus: ChannelMetrics['metricsStatus'],
  granularity: Granularity,
  cadence: CadenceSettings,
): ChannelMetrics => {
  const supported = getPlatform(channel.platform)?.supportsMetrics ?? false;
  // Live by the one rule (`isChannelLive`): its first block is live, a thread stopped halfway too.
  const liveAt = channelLiveAt(channel);
  const live = liveAt !== null;
  const latestReading = [...readings]
    .reverse()
    .find((r) => r.outcome === 'ok' && r.at === tracker?.latest?.at);
  return {
    channelId: channel.channelId,
    platform: channel.platform,
    metricsStatus,
    collection: !supported
      ? 'unsupported'
      : !live || !tracker
        ? 'not_live'
        : tracker.nextAt
          ? 'collecting'
          : 'finished',
    publishedAt: live ? (tracker?.liveAt ?? liveAt) : null,
    // The cadence's time for the next reading (the stored `nextAt` may be a queued reading's lease).
    nextReadingAt: tracker?.nextAt
      ? (readingDueAt(new Date(tracker.liveAt), tracker.step, cadence)?.toISOString() ?? null)
      : null,
    latest: tracker?.latest
      ? {
          at: tracker.latest.at,
          metrics: tracker.latest.metrics,
          ...(latestReading?.blocks ? { blocks: latestReading.blocks } : {}),
        }
      : null,
    counts: {
      readings: tracker?.readings ?? 0,
      missed: tracker?.missed ?? 0,
      skipped: tracker?.skipped ?? 0,
    },
    readings: series(readings, granularity),
  };
};

/** GET /posts/{id}/metrics: per channel, its status, latest totals and readings over time. */
export const getPostMetrics = async (
  deps: PostMetricsDeps,
  auth: AuthContext,
  postId: string,
  granularity: Granularity,
): Promise<PostMetricsResponse> => {
  const post = await findPost(deps, auth, postId);
  const [trackers, readings, channels] = await Promise.all([
    deps.metrics.listTrackers(postId),
    deps.metrics.listReadings(postId),
    deps.channels.listChannels(auth.workspaceId),
  ]);
  const connected = new Map(channels.map((c) => [c.channelId, c]));
  return {
    postId,
    granularity,
    channels: post.channels.map((channel) => {
      const record = connected.get(channel.channelId);
      const status: ChannelMetrics['metricsStatus'] = record
        ? channelView(record).metricsStatus
        : getPlatform(channel.platform)?.supportsMetrics
          ? 'needs_reconnect'
          : 'unsupported';
      return channelMetrics(
        channel,
        trackers.find((t) => t.channelId === channel.channelId),
        readings.filter((r) => r.channelId === channel.channelId),
        status,
        granularity,
        deps.cadence,
      );
    }),
  };
};
