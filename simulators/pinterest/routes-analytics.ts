import type { SimContext, SimResponse } from '../framework/framework.ts';
import { pinError } from './errors.ts';
import type { PinterestState } from './state.ts';

/** `GET /pins/{id}/analytics`: a pin's daily metrics. */
export const pinterestAnalyticsRoutes = (s: PinterestState) => {
  const { countsOf, livePin } = s;

  const DAY_MS = 86_400_000;
  const analytics = (ctx: SimContext): SimResponse => {
    const pin = livePin(ctx);
    const start = ctx.query.get('start_date') ?? '';
    const end = ctx.query.get('end_date') ?? '';
    const types = (ctx.query.get('metric_types') ?? '').split(',').filter(Boolean);
    const invalid = () => pinError(400, 400, 'Invalid pins analytics parameters.');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || types.length === 0) {
      return invalid();
    }
    const startMs = Date.parse(`${start}T00:00:00Z`);
    const endMs = Date.parse(`${end}T00:00:00Z`);
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    if (Number.isNaN(startMs) || Number.isNaN(endMs) || endMs < startMs) return invalid();
    if (today - startMs > 90 * DAY_MS || endMs - startMs > 90 * DAY_MS) return invalid();
    const m = countsOf(pin);
    const values: Record<string, number> = {
      IMPRESSION: m.impressions ?? 0,
      SAVE: m.saves ?? 0,
      PIN_CLICK: m.clicks ?? 0,
      OUTBOUND_CLICK: Math.floor((m.clicks ?? 0) / 3),
    };
    const known = [
      'IMPRESSION',
      'OUTBOUND_CLICK',
      'PIN_CLICK',
      'SAVE',
      'SAVE_RATE',
      'TOTAL_COMMENTS',
      'TOTAL_REACTIONS',
      'VIDEO_MRC_VIEW',
      'VIDEO_START',
      'VIDEO_10S_VIEW',
      'USER_FOLLOW',
      'PROFILE_VISIT',
    ];
    if (types.some((type) => !known.includes(type))) return invalid();
    // Counts before the pin existed or after the report's end are not in it.
    const created = Date.parse(pin.createdAt);
    const covered = endMs + DAY_MS > created;
    const summary: Record<string, number> = {};
    for (const type of types) {
      if (type in values) summary[type] = covered ? (values[type] as number) : 0;
    }
    return {
      status: 200,
      body: {
        all: {
          daily_metrics: [{ date: end, data_status: 'READY', metrics: summary }],
          summary_metrics: summary,
          lifetime_metrics: {},
        },
      },
    };
  };

  return { analytics };
};
