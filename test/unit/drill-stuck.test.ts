import { describe, expect, it } from 'vitest';
import { describeOpenPost, jobsByPost } from '../../bench/drill-stuck.ts';
import type { BlockClaim } from '../../functions/ports/publishing.ts';
import { postChannel, publishingPost } from '../support/fakes/engine.ts';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();
const message = (body: unknown, fields: Record<string, unknown> = {}) => ({
  body: typeof body === 'string' ? body : JSON.stringify(body),
  approximateReceiveCount: 0,
  ...fields,
});

describe("the drill's report of a post still open", () => {
  it("reads each post's publish jobs from the queue's inspection, ready, delayed and in flight", () => {
    const jobs = jobsByPost({
      messages: {
        ready: [message({ postId: 'post_1', kind: 'run', round: 1 }), message({ kind: 'sweep' })],
        delayed: [
          message({ postId: 'post_1', kind: 'run', round: 2, recovered: true }, { delayUntil: NOW + 5000 }),
        ],
        inflight: [
          {
            message: message({ postId: 'post_2', kind: 'scheduled' }, { approximateReceiveCount: 2 }),
            visibilityDeadline: NOW + 60_000,
          },
          { message: message('not json'), visibilityDeadline: NOW },
        ],
      },
    });
    expect([...jobs.keys()]).toEqual(['post_1', 'post_2']);
    expect(jobs.get('post_1')).toEqual([
      { state: 'ready', kind: 'run', round: 1, dueAt: null, receives: 0 },
      { state: 'delayed', kind: 'run', round: 2, recovered: true, dueAt: NOW + 5000, receives: 0 },
    ]);
    expect(jobs.get('post_2')).toEqual([
      { state: 'inflight', kind: 'scheduled', dueAt: NOW + 60_000, receives: 2 },
    ]);
  });

  it("says each channel's waits, its blocks' claims and the post's jobs", () => {
    const channel = {
      ...postChannel('ch_x', 'x', ['one', 'two']),
      rateLimitedUntil: at(900),
      rateLimitStepAt: at(900),
    };
    const stored = publishingPost([
      channel,
      { ...postChannel('ch_b', 'bluesky', ['hi']), status: 'published' },
    ]);
    const claim: BlockClaim = {
      postId: 'post_1',
      channelId: 'ch_x',
      block: 0,
      state: 'not_sent',
      owner: 'w-1',
      leaseUntil: at(-30),
      since: at(-90),
      firstSentAt: at(-90),
      lastSentAt: at(-90),
      timeline: [
        { at: at(-90), kind: 'sending', detail: 'Sending.', attempt: 1 },
        {
          at: at(-89),
          kind: 'refused',
          detail: 'Refused.',
          error: { code: 'rate_limited', message: 'Too Many Requests' },
        },
      ],
    };
    const lines = describeOpenPost({
      postId: 'post_1',
      now: NOW,
      view: [
        {
          channelId: 'ch_x',
          platform: 'x',
          status: 'publishing',
          waiting: { reason: 'rate_limit', until: at(900), message: 'X is rate-limiting this channel.' },
        },
        { channelId: 'ch_b', platform: 'bluesky', status: 'published', waiting: null },
      ],
      stored,
      claims: [claim],
      jobs: [{ state: 'delayed', kind: 'run', round: 1, dueAt: NOW + 902_000, receives: 0 }],
    });
    expect(lines).toEqual([
      '  open post post_1: publishing, round 1, updated 11:00:00.000Z (-3600 s); queue: delayed run job (round 1) due 12:15:02.000Z (+902 s), received 0×',
      '    x ch_x: publishing, attempts 0, rateLimitedUntil 12:15:00.000Z (+900 s), rateLimitStepAt 12:15:00.000Z (+900 s); waiting rate_limit until 12:15:00.000Z (+900 s): X is rate-limiting this channel.',
      '      block 1: not live; claim not_sent, attempt 1, firstSentAt 11:58:30.000Z (-90 s), lastSentAt 11:58:30.000Z (-90 s), latest event refused at 11:58:31.000Z (-89 s): rate_limited Too Many Requests; Refused.',
      '      block 2: not live; no claim',
      '    bluesky ch_b: published, attempts 0; waiting null',
    ]);
  });

  it('says when the queue or GET /posts/{id} could not be read, and when no job is queued', () => {
    const stored = publishingPost([postChannel('ch_x', 'x', ['one'])]);
    const unread = describeOpenPost({
      postId: 'post_1',
      now: NOW,
      view: null,
      stored,
      claims: [],
      jobs: 'fetch failed',
    });
    expect(unread[0]).toContain('queue: not read (fetch failed)');
    expect(unread[1]).toContain('waiting: GET /posts/{id} did not answer');
    const none = describeOpenPost({ postId: 'post_1', now: NOW, view: [], stored, claims: [], jobs: [] });
    expect(none[0]).toContain('queue: no publish job ready, delayed or in flight');
    expect(none[1]).toContain('waiting null');
  });
});
