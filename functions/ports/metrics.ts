import type { KeyMode } from '../domain/key-mode.ts';
import type { PlatformId } from '../domain/platforms/types.ts';
import type { MetricsReading } from './network-client.ts';
import type { MetricsMessage } from './queue-messages.ts';

/** Collection state of one live channel of a post: which reading is next and what it has seen. */
export interface MetricsTracker {
  postId: string;
  channelId: string;
  workspaceId: string;
  mode: KeyMode;
  platform: PlatformId;
  /** When this channel went live: the cadence runs from here. */
  liveAt: string;
  /** When the post's first channel went live: the time /stats files the post under. */
  postLiveAt: string;
  /** Index of the next reading on the cadence; equals the number of readings taken (or missed). */
  step: number;
  /** When the next reading is due (or, while one is queued, when the sweep may hand it out again); null once finished. */
  nextAt: string | null;
  /** The last reported value of every metric the network has ever reported for this channel. */
  known: MetricsReading;
  /** The latest successful reading. */
  latest: { at: string; metrics: MetricsReading } | null;
  readings: number;
  missed: number;
  skipped: number;
}

/** What happened at one point of the cadence. */
export type ReadingOutcome = 'ok' | 'missed' | 'skipped';

export interface StoredReading {
  postId: string;
  channelId: string;
  step: number;
  /** When the reading was taken (or given up). */
  at: string;
  /** When it was due on the cadence. */
  dueAt: string;
  outcome: ReadingOutcome;
  /** outcome `ok`: the first block's metrics, only those the network reported. */
  metrics?: MetricsReading;
  /** outcome `ok`, threads: each block's metrics, where the network reported them. */
  blocks?: { block: number; metrics: MetricsReading }[];
  /** outcome `missed` / `skipped`: why. */
  reason?: string;
}

/**
 * Counters of a stats aggregate: `posts`, and per platform `<platform>:posts`, `<platform>:<metric>`
 * (the sum) and `<platform>:<metric>:reporting` (channels that reported it).
 */
export type StatsCounters = Record<string, number>;

export interface MetricsStore {
  /** Starts collecting for a channel that went live (and counts its post in the stats); a second call changes nothing. */
  track(tracker: MetricsTracker): Promise<void>;
  getTracker(postId: string, channelId: string): Promise<MetricsTracker | null>;
  listTrackers(postId: string): Promise<MetricsTracker[]>;
  listReadings(postId: string): Promise<StoredReading[]>;
  /** Trackers whose next reading is due at or before `now` (at most `limit`). */
  due(now: string, limit: number): Promise<MetricsTracker[]>;
  /** Keeps the tracker's current reading out of the sweep until `until`; false if it moved on meanwhile. */
  lease(tracker: MetricsTracker, until: string): Promise<boolean>;
  /** Moves the tracker's current reading to `dueAt`; false if it moved on (or finished) meanwhile. */
  reschedule(tracker: MetricsTracker, dueAt: string): Promise<boolean>;
  /** Every tracker with readings still to take, a page at a time (`cursor`: the previous page's; null at the end). */
  unfinished(
    cursor: string | null,
    limit: number,
  ): Promise<{ trackers: MetricsTracker[]; cursor: string | null }>;
  /** The cadence time scale the stored due times were computed with; null when none was recorded yet. */
  cadenceScale(): Promise<number | null>;
  /** Records the time scale the stored due times follow. */
  setCadenceScale(timeScale: number): Promise<void>;
  /**
   * Stores reading `reading.step` and moves the tracker to `next`, adding `deltas` to the stats of the
   * post's day, of its hour and of the post, in one transaction; false (nothing written) if the
   * reading was already stored.
   */
  record(
    tracker: MetricsTracker,
    reading: StoredReading,
    next: MetricsTracker,
    deltas: StatsCounters,
  ): Promise<boolean>;
  /** Day buckets (`YYYY-MM-DD`, inclusive) of a workspace and key mode. */
  statsDays(workspaceId: string, mode: KeyMode, fromDay: string, toDay: string): Promise<StatsCounters[]>;
  /** Hour buckets (`YYYY-MM-DDTHH`, inclusive) of a workspace and key mode, each with its hour. */
  statsHours(
    workspaceId: string,
    mode: KeyMode,
    fromHour: string,
    toHour: string,
  ): Promise<{ hour: string; counters: StatsCounters }[]>;
  /** Per-post totals of posts that went live between `from` and `to` (ISO, inclusive); at most `limit` of them when given. */
  statsPosts(
    workspaceId: string,
    mode: KeyMode,
    from: string,
    to: string,
    limit?: number,
  ): Promise<StatsCounters[]>;
  /** Takes a deleted post out of the stats and drops its metrics. */
  forgetPost(postId: string): Promise<void>;
}

/** A message on the metrics queue: take reading `step` of a channel (ids only; `attempt` 1 for the first try). */
export type MetricsJob = Omit<Extract<MetricsMessage, { kind: 'reading' }>, 'kind'>;

/** The metrics queue (SQS on AWS, the SQS stand-in locally). */
export interface MetricsQueue {
  send(jobs: MetricsJob[], delaySeconds?: number): Promise<void>;
}
