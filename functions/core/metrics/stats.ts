import type { MetricsStore, StatsCounters } from '../../ports/metrics.ts';
import { METRIC_NAMES, type MetricsReading } from '../../ports/network-client.ts';
import { ApiError } from '../../shared/errors.ts';
import type { AuthContext } from '../auth/api-keys.ts';
import { parseBound } from '../posts/list-posts.ts';
import type { StatsResponse } from './schema.ts';

const DAY_MS = 86_400_000;
/** Without `from` (or `to`), the range is the 30 days before `to` (or until now). */
export const DEFAULT_STATS_DAYS = 30;
/** The longest range one call may cover (it reads one aggregate per day). */
export const MAX_STATS_DAYS = 366;

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const startOfDay = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

/** Adds counters into `total`. */
const add = (total: StatsCounters, counters: StatsCounters): void => {
  for (const [name, value] of Object.entries(counters)) total[name] = (total[name] ?? 0) + value;
};

/**
 * GET /stats: totals of the workspace's posts (of the key's mode) that went live in the range,
 * per platform and overall. Cost is bounded by the range, never by the number of readings: whole
 * days come from one aggregate per day, and only the cut days at the two ends read per-post totals.
 */
export const getStats = async (
  deps: { metrics: MetricsStore; clock: { now(): Date } },
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
  const firstDay = startOfDay(from);
  const lastDay = startOfDay(to);
  const wholeFirst = from === firstDay;
  const wholeLast = to === lastDay + DAY_MS - 1;
  const reads: Promise<StatsCounters[]>[] = [];
  if (firstDay === lastDay && !(wholeFirst && wholeLast)) {
    reads.push(
      deps.metrics.statsPosts(workspaceId, mode, new Date(from).toISOString(), new Date(to).toISOString()),
    );
  } else {
    const low = wholeFirst ? firstDay : firstDay + DAY_MS;
    const high = wholeLast ? lastDay : lastDay - DAY_MS;
    if (low <= high) reads.push(deps.metrics.statsDays(workspaceId, mode, dayOf(low), dayOf(high)));
    if (!wholeFirst) {
      reads.push(
        deps.metrics.statsPosts(
          workspaceId,
          mode,
          new Date(from).toISOString(),
          new Date(firstDay + DAY_MS - 1).toISOString(),
        ),
      );
    }
    if (!wholeLast) {
      reads.push(
        deps.metrics.statsPosts(
          workspaceId,
          mode,
          new Date(lastDay).toISOString(),
          new Date(to).toISOString(),
        ),
      );
    }
  }
  const total: StatsCounters = {};
  for (const counters of (await Promise.all(reads)).flat()) add(total, counters);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), ...statsView(total) };
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
