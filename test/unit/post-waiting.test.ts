import { describe, expect, it } from 'vitest';
import type { PostChannel } from '../../functions/domain/post.ts';
import { channelWaiting } from '../../functions/domain/post-view.ts';

const now = new Date('2026-03-01T12:00:00Z');
const channel = (over: Partial<PostChannel> = {}): PostChannel => ({
  channelId: 'ch_1',
  platform: 'linkedin',
  status: 'publishing',
  error: null,
  remoteUrl: null,
  title: null,
  postType: null,
  options: {},
  blocks: [
    { content: 'one', mediaIds: [], mediaAltText: {}, remoteId: null, remoteUrl: null },
    { content: 'two', mediaIds: [], mediaAltText: {}, remoteId: null, remoteUrl: null },
  ],
  ...over,
});

describe("a publishing channel's `waiting`", () => {
  it('a rate limit without an announced reset: the next try, the growing steps, the latest reset', () => {
    const waiting = channelWaiting(
      channel({
        rateLimitedUntil: '2026-03-01T12:04:00.000Z',
        rateLimitProbes: 3,
        rateLimitResetBy: '2026-03-02T00:00:00.000Z',
      }),
      now,
    );
    expect(waiting).toMatchObject({ reason: 'rate_limit', until: '2026-03-01T12:04:00.000Z', since: null });
    expect(waiting?.message).toContain('LinkedIn is rate-limiting this channel and announced no reset');
    expect(waiting?.message).toContain('2026-03-02T00:00:00.000Z');
  });

  it('an announced reset', () => {
    const waiting = channelWaiting(
      channel({ platform: 'x', rateLimitedUntil: '2026-03-01T15:00:00.000Z' }),
      now,
    );
    expect(waiting?.reason).toBe('rate_limit');
    expect(waiting?.message).toBe(
      'X is rate-limiting this channel until 2026-03-01T15:00:00.000Z; Herald tries again then, without spending an attempt.',
    );
  });

  it('a retry after a transient failure, with its reason', () => {
    const waiting = channelWaiting(
      channel({
        attempts: 2,
        retryAt: '2026-03-01T12:00:04.000Z',
        retryReason: 'LinkedIn answered HTTP 503',
      }),
      now,
    );
    expect(waiting).toMatchObject({ reason: 'retry', until: '2026-03-01T12:00:04.000Z' });
    expect(waiting?.message).toContain('LinkedIn answered HTTP 503');
  });

  it("a lost answer being confirmed, then media processing, from the blocks' claims", () => {
    const confirming = channelWaiting(channel(), now, [
      {
        channelId: 'ch_1',
        block: 1,
        state: 'checking',
        nextCheckAt: '2026-03-01T12:00:30.000Z',
        inProgress: false,
      },
      { channelId: 'ch_other', block: 0, state: 'sending', inProgress: true },
    ]);
    expect(confirming).toMatchObject({ reason: 'confirming', until: '2026-03-01T12:00:30.000Z' });
    expect(confirming?.message).toContain("block 2's send was lost");
    const processing = channelWaiting(channel(), now, [
      {
        channelId: 'ch_1',
        block: 0,
        state: 'not_sent',
        firstSentAt: '2026-03-01T11:59:00.000Z',
        inProgress: true,
      },
    ]);
    expect(processing).toMatchObject({
      reason: 'processing',
      since: '2026-03-01T11:59:00.000Z',
      until: null,
    });
  });

  it('nothing when the wait is over, the block is live, or the channel is not publishing', () => {
    expect(channelWaiting(channel({ rateLimitedUntil: '2026-03-01T11:59:59.000Z' }), now)).toBeNull();
    const live = channel();
    live.blocks[0] = { ...live.blocks[0]!, remoteId: 'urn:li:share:1', remoteUrl: 'https://x' };
    expect(
      channelWaiting(live, now, [{ channelId: 'ch_1', block: 0, state: 'sending', inProgress: true }]),
    ).toBeNull();
    expect(
      channelWaiting(channel({ status: 'failed', rateLimitedUntil: '2026-03-01T13:00:00.000Z' }), now),
    ).toBeNull();
  });
});
