import type { MetricsInput, MetricsReading } from '../../ports/network-client.ts';
import { sendOrClassify } from '../network-http.ts';
import { classifyPinterestFailure } from './client.ts';

export interface PinterestConnection {
  baseUrl: string;
  timeoutMs: number;
}

/** The metric types asked for, and the stable names they are read into. */
const METRICS: [string, keyof MetricsReading][] = [
  ['IMPRESSION', 'impressions'],
  ['SAVE', 'saves'],
  // Pin clicks count every click on the pin, to content on or off Pinterest (outbound ones too).
  ['PIN_CLICK', 'clicks'],
];

/** Pinterest keeps pin analytics for 90 days back from today. */
const WINDOW_DAYS = 89;

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * A pin's engagement: `GET /v5/pins/{id}/analytics` over the last 90 days (Pinterest's limit;
 * Herald reads metrics for 30 days), `summary_metrics` of the `all` app types: impressions,
 * saves and pin clicks. A metric Pinterest did not report is absent.
 */
export const readPinterestMetrics = async (
  connection: PinterestConnection,
  input: MetricsInput,
  now: Date = new Date(),
): Promise<MetricsReading> => {
  const query = new URLSearchParams({
    start_date: day(new Date(now.getTime() - WINDOW_DAYS * 86_400_000)),
    end_date: day(now),
    metric_types: METRICS.map(([type]) => type).join(','),
  });
  const answer = await sendOrClassify(
    {
      method: 'GET',
      url: `${connection.baseUrl}/v5/pins/${encodeURIComponent(input.block.remoteId)}/analytics?${query}`,
      headers: { authorization: `Bearer ${input.credentials.accessToken}`, 'user-agent': 'Herald/0.1' },
      timeoutMs: connection.timeoutMs,
    },
    (failure) => classifyPinterestFailure(failure, now),
  );
  const body = (answer.body ?? {}) as Record<string, { summary_metrics?: Record<string, unknown> }>;
  const summary = (body.all ?? Object.values(body)[0])?.summary_metrics ?? {};
  const reading: MetricsReading = {};
  for (const [type, name] of METRICS) {
    const value = summary[type];
    if (typeof value === 'number' && Number.isFinite(value)) reading[name] = value;
  }
  return reading;
};
