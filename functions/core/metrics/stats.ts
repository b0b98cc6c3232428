import { ApiError } from '../../domain/errors.ts';
import type { MetricsStore, StatsCounters } from '../../ports/metrics.ts';
import { METRIC_NAMES, type MetricsReading } from '../../ports/network-client.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { parseBound } from '../posts/list-posts.ts';
import type { StatsResponse } from './schema.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Without `from` (or `to`), the range is the 30 days before `to` (or until now). */
export const DEFAULT_STATS_DAYS = 30;
/** The longest range one call may cover (it reads one aggregate per day). */
export const MAX_STATS_DAYS = 366;
/** The most posts one call reads from an hour the range cuts (a range on whole hours reads none). */
export const MAX_CUT_HOUR_POSTS = 200;

const iso = (ms: number): string => new Date(ms).toISOString();

/** Adds counters into `total`. */
const add = (total: StatsCounters, counters: StatsCounters): void => {
  for (const [name, value] of Object.entries(counters)) total[name] = (total[name] ?? 0) + value;
};

/** An inclusive range of milliseconds. */
type Span = [number, number];

/**
 * Splits `span` into the whole units (days, hours) it covers and the cut pieces at its ends, each
 * inside one unit.
 */
const split = ([from, to]: Span, unit: number): { whole: Span | null; cut: Span[] } => {
  const low = Math.ceil(from / unit) * unit;
  const high = Math.floor((to + 1) / unit) * unit;
  if (low >= high) {
    // No whole unit: the span is inside one unit or crosses one boundary.
    const boundary = Math.floor(to / unit) * unit;
    return {
      whole: null,
      cut:
        boundary > from
          ? [
              [from, boundary - 1],
              [boundary, to],
            ]
          : [[from, to]],
    };
  }
  const cut: Span[] = [];
  if (from < low) cut.push([from, low - 1]);
  if (to >= high) cut.push([high, to]);
  return { whole: [low, high - 1], cut };
};

type StatsDeps = { metrics: MetricsStore; clock: { now(): Date } };

/**
 * The totals of the posts that went live in `span`, a piece of the range inside one day: the
 * day's hour buckets for the whole hours, per-post totals (at most MAX_CUT_HOUR_POSTS) for the
 * hours it cuts. A day whose hours do not count all of its posts was (partly) counted before hour
 * buckets existed: its piece is read per post, as it always was.
 */
const cutDay = async (
  deps: StatsDeps,
  auth: AuthContext,
  span: Span,
  rangeFrom: number,
): Promise<StatsCounters[]> => {
  const { workspaceId, mode } = auth;
  const day = iso(span[0]).slice(0, 10);
  const [days, hours] = await Promise.all([
    deps.metrics.statsDays(workspaceId, mode, day, day),
    deps.metrics.statsHours(workspaceId, mode, `${day}T00`, `${day}T23`),
  ]);
  // The day's item and its hours get every count in the same transactions, so they agree on every
  // day counted since hour buckets exist; each post counted before adds one to the difference.
  const counted = days[0]?.posts ?? 0;
  const inHours = hours.reduce((sum, h) => sum + (h.counters.posts ?? 0), 0);
  if (counted !== inHours) return deps.metrics.statsPosts(workspaceId, mode, iso(span[0]), iso(span[1]));

  const { whole, cut } = split(span, HOUR_MS);
  const found: StatsCounters[] = [];
  if (whole) {
    const [low, high] = [iso(whole[0]).slice(0, 13), iso(whole[1]).slice(0, 13)];
    for (const h of hours) if (h.hour >= low && h.hour <= high) found.push(h.counters);
  }
  const posts = await Promise.all(
    cut.map((piece) =>
      deps.metrics.statsPosts(workspaceId, mode, iso(piece[0]), iso(piece[1]), MAX_CUT_HOUR_POSTS + 1),
    ),
  );
  for (const [i, counters] of posts.entries()) {
    if (counters.length > MAX_CUT_HOUR_POSTS) {
      throw new ApiError(
        'validation_failed',
        `More than ${MAX_CUT_HOUR_POSTS} posts went live in an hour this range cuts; give from and to on whole hours (hh:00:00 to hh:59:59.999, or dates).`,
        cut[i]?.[0] === rangeFrom ? 'from' : 'to',
      );
    }
    found.push(...counters);
  }
  return found;
};

/**
 * GET /stats: totals of the workspace's posts (of the key's mode) that went live in the range,
 * per platform and overall. What a call reads is bounded by the range, never by the number of
 * posts: one aggregate per whole day, the day and hour aggregates of the (at most two) days the
 * range cuts, and per-post totals only inside the (at most two) hours it cuts, at most
 * MAX_CUT_HOUR_POSTS each.
 */
export const getStats = async (
  deps: StatsDeps,
  auth: AuthContext,
  input: { from?: string | undefined; to?: string | undefined },
): Promise<StatsResponse> => {
  const parsedTo = input.to !== undefined ? Date.parse(parseBound(input.to, 'to')) : undefined;
  const parsedFrom = input.from !== undefined ? Date.parse(parseBound(input.from, 'from')) : undefined;
  const to =
    parsedTo ??
    (parsedFrom !== undefined
      ? Math.max(parsedFrom, deps.clock.now().getTime())
      : deps.clock.now().getTime());
  const from = parsedFrom ?? to - DEFAULT_STATS_DAYS * DAY_MS;
  if (from > to) throw new ApiError('validation_failed', 'from must not be after to.', 'from');
  if (to - from > MAX_STATS_DAYS * DAY_MS) {
    throw new ApiError('validation_failed', `The range may cover at most ${MAX_STATS_DAYS} days.`, 'from');
  }

  const { workspaceId, mode } = auth;
  const { whole, cut } = split([from, to], DAY_MS);
  const reads: Promise<StatsCounters[]>[] = [];
  if (whole) {
    const [low, high] = [iso(whole[0]).slice(0, 10), iso(whole[1]).slice(0, 10)];
    reads.push(deps.metrics.statsDays(workspaceId, mode, low, high));
  }
  for (const piece of cut) reads.push(cutDay(deps, auth, piece, from));
  const total: StatsCounters = {};
  for (const counters of (await Promise.all(reads)).flat()) add(total, counters);
  return { from: iso(from), to: iso(to), ...statsView(total) };
};

/** Counters (`posts`, `<platform>:posts`, `<platform>:<metric>`, `<platform>:<metric>:reporting`) as the response shows them. */
export const statsView = (total: StatsCounters): Pick<StatsResponse, 'overall' | 'platforms'> => {
  const platforms = [
    ...new Set(
      Object.keys(total)
        .filter((name) => name.endsWith(':posts') && (total[name] ?? 0) > 0)
        .map((name) => name.slice(0, -':posts'.length)),
    ),
  ].sort();
  const overall: MetricsReading = {};
  const perPlatform = platforms.map((platform) => {
    const metrics: MetricsReading = {};
    for (const name of METRIC_NAMES) {
      const value = total[`${platform}:${name}`];
      // Only metrics some counted channel reported (a deleted post's zeroed sum is not a report).
      if (value === undefined || (total[`${platform}:${name}:reporting`] ?? 0) <= 0) continue;
      metrics[name] = value;
      overall[name] = (overall[name] ?? 0) + value;
    }
    return { platform, posts: total[`${platform}:posts`] ?? 0, metrics };
  });
  return { overall: { posts: Math.max(0, total.posts ?? 0), metrics: overall }, platforms: perPlatform };
};
