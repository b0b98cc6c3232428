import { describe, expect, it } from 'vitest';
import { nominalAttemptOffsets, retryDelaySeconds } from '../../functions/core/webhooks/retry-schedule.ts';
import { deliveryIdFor, parseDeliveryId } from '../../functions/domain/delivery-id.ts';

describe('webhook retry schedule', () => {
  it('waits 10 s, 20 s, 40 s ... at most an hour apart, and makes the last attempt 5 hours after the first', () => {
    const offsets = nominalAttemptOffsets(10);
    expect(offsets).toEqual([0, 10, 30, 70, 150, 310, 630, 1270, 2550, 5110, 8710, 12310, 15910, 18000]);
    const gaps = offsets.slice(1).map((t, i) => t - (offsets[i] as number));
    expect(gaps.slice(0, 8)).toEqual([10, 20, 40, 80, 160, 320, 640, 1280]);
    expect(Math.max(...gaps)).toBe(3600);
  });

  it('scales with the base, fractions included', () => {
    const offsets = nominalAttemptOffsets(0.2);
    expect(offsets).toHaveLength(14);
    expect(offsets[1]).toBeCloseTo(0.2);
    expect(offsets[2]).toBeCloseTo(0.6);
    expect(offsets.at(-1)).toBeCloseTo(360);
    expect(nominalAttemptOffsets(0.001).at(-1)).toBeCloseTo(1.8);
  });

  it('counts from the first attempt: late attempts shorten the last wait, and a failure at the horizon gives up', () => {
    expect(retryDelaySeconds(1, 0, 10)).toBe(10);
    expect(retryDelaySeconds(4, 75, 10)).toBe(80);
    expect(retryDelaySeconds(12, 15_000, 10)).toBe(3000);
    expect(retryDelaySeconds(13, 18_000, 10)).toBeNull();
    expect(retryDelaySeconds(3, 18_500, 10)).toBeNull();
    expect(retryDelaySeconds(60, 100, 10)).toBe(3600);
  });
});

describe('delivery ids', () => {
  it('are derived from the event and the endpoint, and give both back', () => {
    const id = deliveryIdFor('evt_AbC123', 'wh_XyZ789');
    expect(id).toBe('dlv_XyZ789_AbC123');
    expect(deliveryIdFor('evt_AbC123', 'wh_XyZ789')).toBe(id);
    expect(parseDeliveryId(id)).toEqual({ webhookId: 'wh_XyZ789', eventId: 'evt_AbC123' });
    expect(parseDeliveryId('dlv_nope')).toBeNull();
    expect(() => deliveryIdFor('evt_a-b', 'wh_c')).toThrow();
  });
});
