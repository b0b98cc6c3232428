import { METRIC_NAMES, type MetricsReading, NetworkError } from '../../ports/network-client.ts';
import { simulatorMetrics } from '../simulator/metrics.ts';
import type { PlatformId } from '../types.ts';

/**
 * The generic simulated API's metrics: `GET /v1/posts/:id/metrics` → 200 `{ data: { likes, ... } }`
 * under the stable names, only those the network reports; 404 for a post that is gone.
 */
export const parseGenericMetrics = (status: number, body: string): MetricsReading => {
  let data: unknown;
  try {
    data = (JSON.parse(body) as { data?: unknown }).data;
  } catch {
    data = undefined;
  }
  if (typeof data !== 'object' || data === null) {
    throw new NetworkError('transient', 'The network answered a metrics read without data.', { status });
  }
  const reading: MetricsReading = {};
  for (const name of METRIC_NAMES) {
    const value = (data as Record<string, unknown>)[name];
    if (typeof value === 'number') reading[name] = value;
  }
  return reading;
};

/** What the generic simulator answers for a post of `platform` (counts grow with its age). */
export const genericSimMetrics = (platform: PlatformId, post: { id: string; createdAt: string }) =>
  simulatorMetrics(platform, post.id, new Date(post.createdAt));
