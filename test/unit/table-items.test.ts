import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { claimFromItem } from '../../functions/adapters/aws/dynamo/claims.ts';
import { connectStateFromItem } from '../../functions/adapters/aws/dynamo/connect-states.ts';
import { eventFromItem } from '../../functions/adapters/aws/dynamo/events.ts';
import { mediaFromItem } from '../../functions/adapters/aws/dynamo/media.ts';
import { fromReadingItem, fromTrackerItem } from '../../functions/adapters/aws/dynamo/metrics.ts';
import { overdueFromItem } from '../../functions/adapters/aws/dynamo/post-item.ts';
import { postFromItems } from '../../functions/adapters/aws/dynamo/posts.ts';
import {
  attemptFromItem,
  deliveryFromItem,
  endpointFromItem,
} from '../../functions/adapters/aws/dynamo/webhook-items.ts';
import { thrownMalformed as thrown } from '../support/items.ts';

const post = {
  postId: 'post_1',
  accountId: 'acc_1',
  workspaceId: 'ws_1',
  mode: 'live',
  status: 'scheduled',
  scheduledAt: '2026-12-01T10:00:00.000Z',
  publishedAt: null,
  tagIds: ['tag_1'],
  channels: [
    {
      channelId: 'ch_1',
      platform: 'bluesky',
      status: 'scheduled',
      error: null,
      remoteUrl: null,
      title: null,
      postType: null,
      options: { langs: ['en'] },
      blocks: [
        { content: 'first', mediaIds: [], mediaAltText: {}, remoteId: null, remoteUrl: null },
        {
          content: 'second',
          mediaIds: ['med_1'],
          mediaAltText: { med_1: 'a cat' },
          remoteId: null,
          remoteUrl: null,
        },
      ],
    },
  ],
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: '2026-11-29T10:00:00.000Z',
  version: 2,
  round: 1,
  textChunks: 0,
  scheduleName: 'post_1-2',
};
const postKeys = { PK: 'POST#post_1', SK: 'POST', type: 'Post', GSI1PK: 'POSTDUE#3', GSI1SK: 'x' };

describe('post items', () => {
  it('read back as the record, without the table keys', () => {
    expect(postFromItems({ ...postKeys, ...post }, [])).toEqual(post);
  });

  it('take the block texts a chunk item holds', () => {
    const main = {
      ...postKeys,
      ...post,
      textChunks: 1,
      channels: post.channels.map((c) => ({ ...c, blocks: c.blocks.map((b) => ({ ...b, content: '' })) })),
    };
    const chunk = {
      PK: 'POST#post_1',
      SK: 'POSTTEXT#0',
      type: 'PostText',
      texts: [
        { c: 0, b: 0, content: 'first' },
        { c: 0, b: 1, content: 'second' },
      ],
    };
    expect(postFromItems(main, [chunk])).toEqual({ ...post, textChunks: 1 });
  });

  it('read a post saved before rounds, held writes and schedules of their own as it was stored', () => {
    const { round: _r, textChunks: _t, scheduleName: _s, ...older } = post;
    const read = postFromItems({ ...postKeys, ...older }, []);
    expect(read).toEqual(older);
    // Absent, not defaulted: its schedule is named after the post, and a draft never had a round.
    expect(read).not.toHaveProperty('scheduleName');
    expect(read).not.toHaveProperty('round');
  });

  it('refuse a malformed post or chunk, naming the kind, the key and the fields', () => {
    const error = thrown(() => postFromItems({ ...postKeys, ...post, status: 'queued', version: '2' }, []));
    expect(error.message).toContain('Post item POST#post_1 POST');
    expect(error.problem).toContain('status');
    expect(error.problem).toContain('version');
    const noChannels = thrown(() => postFromItems({ ...postKeys, ...post, channels: undefined }, []));
    expect(noChannels.problem).toContain('channels');
    const chunk = thrown(() =>
      postFromItems({ ...postKeys, ...post }, [{ PK: 'POST#post_1', SK: 'POSTTEXT#0', texts: [{ c: 0 }] }]),
    );
    expect(chunk.kind).toBe('PostText');
    expect(chunk.key).toBe('POST#post_1 POSTTEXT#0');
  });
});

const claim = {
  postId: 'post_1',
  channelId: 'ch_1',
  block: 0,
  state: 'sent',
  owner: 'worker-1',
  leaseUntil: '2026-11-29T10:01:00.000Z',
  since: '2026-11-29T10:00:00.000Z',
  firstSentAt: '2026-11-29T10:00:01.000Z',
  remote: { remoteId: 'at://1', remoteUrl: 'https://bsky.app/1', meta: { cid: 'c1' } },
};

describe('block claim items', () => {
  it('read back as the claim', () => {
    expect(claimFromItem({ PK: 'POST#post_1', SK: 'CLAIM#ch_1#0', type: 'BlockClaim', ...claim })).toEqual(
      claim,
    );
  });

  it('refuse a claim in no known state, naming its key', () => {
    const error = thrown(() =>
      claimFromItem({ PK: 'POST#post_1', SK: 'CLAIM#ch_1#0', ...claim, state: 'lost' }),
    );
    expect(error.kind).toBe('BlockClaim');
    expect(error.key).toBe('POST#post_1 CLAIM#ch_1#0');
    expect(error.problem).toContain('state');
  });
});

const event = {
  id: 'evt_1',
  type: 'post.published',
  createdAt: '2026-11-29T10:00:00.000Z',
  accountId: 'acc_1',
  workspaceId: 'ws_1',
  mode: 'live',
  data: { channelId: 'ch_1', platform: 'x', error: null, blocksPublished: 1, blocksTotal: 1 },
};
const eventKeys = { PK: 'EVENT#evt_1', SK: 'EVENT', type: 'OutboxEvent' };

describe('outbox event items', () => {
  it('read the event deflated (current) or as a plain map (items written before)', () => {
    const deflated = { ...eventKeys, eventZ: deflateRawSync(JSON.stringify(event)) };
    expect(eventFromItem(deflated)).toEqual(event);
    expect(eventFromItem({ ...eventKeys, event })).toEqual(event);
    expect(eventFromItem(undefined)).toBeNull();
  });

  it('refuse an item that holds no event', () => {
    const error = thrown(() => eventFromItem({ ...eventKeys }));
    expect(error.kind).toBe('OutboxEvent');
    expect(error.key).toBe('EVENT#evt_1 EVENT');
    expect(error.problem).toContain('id');
  });
});

const media = {
  mediaId: 'med_1',
  workspaceId: 'ws_1',
  accountId: 'acc_1',
  mimeType: 'image/png',
  size: 1024,
  status: 'ready',
  fileName: 'cat.png',
  altText: null,
  objectKey: 'media/ws_1/med_1',
  createdAt: '2026-11-29T10:00:00.000Z',
};

describe('media items', () => {
  it('read back as the record, a pending upload with its expiry', () => {
    expect(
      mediaFromItem({ PK: 'WS#ws_1', SK: 'MEDIA#med_1', type: 'Media', GSI1PK: 'g', GSI1SK: 's', ...media }),
    ).toEqual(media);
    const pending = { ...media, status: 'pending', expiresAt: 1_800_000_000 };
    expect(mediaFromItem({ PK: 'WS#ws_1', SK: 'MEDIA#med_1', ...pending })).toEqual(pending);
  });

  it('refuse a record without its size', () => {
    const { size: _size, ...noSize } = media;
    expect(thrown(() => mediaFromItem({ PK: 'WS#ws_1', SK: 'MEDIA#med_1', ...noSize })).problem).toContain(
      'size',
    );
  });
});

const endpoint = {
  webhookId: 'wh_1',
  workspaceId: 'ws_1',
  accountId: 'acc_1',
  url: 'https://example.com/hook',
  description: null,
  events: ['post.published', 'post.failed'],
  enabled: true,
  consecutiveFailures: 0,
  disabledReason: null,
  disabledAt: null,
  secretCiphertext: 'sealed-secret',
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: '2026-11-29T10:00:00.000Z',
};
const delivery = {
  deliveryId: 'dlv_1',
  webhookId: 'wh_1',
  workspaceId: 'ws_1',
  eventId: 'evt_1',
  eventType: 'post.published',
  state: 'pending',
  attempt: 1,
  firstAttemptAt: '2026-11-29T10:00:00.000Z',
  nextAttemptAt: '2026-11-29T10:01:00.000Z',
  inFlightUntil: '2026-11-29T10:00:30.000Z',
  createdAt: '2026-11-29T10:00:00.000Z',
};

describe('webhook items', () => {
  it('read an endpoint back, and refuse one whose secret is missing without printing any value', () => {
    expect(endpointFromItem({ PK: 'WS#ws_1', SK: 'WEBHOOK#wh_1', type: 'Webhook', ...endpoint })).toEqual(
      endpoint,
    );
    const error = thrown(() =>
      endpointFromItem({
        PK: 'WS#ws_1',
        SK: 'WEBHOOK#wh_1',
        ...endpoint,
        secretCiphertext: undefined,
        url: 7,
      }),
    );
    expect(error.message).toContain('Webhook item WS#ws_1 WEBHOOK#wh_1');
    expect(error.problem).toContain('secretCiphertext');
    expect(error.message).not.toContain('example.com');
  });

  it('read a delivery whose unset times are stored absent with those times null, and drop the TTL', () => {
    const stored = { PK: 'WH#wh_1', SK: 'DLV#dlv_1', type: 'WebhookDelivery', expiresAt: 1_800_000_000 };
    expect(deliveryFromItem({ ...stored, ...delivery })).toEqual(delivery);
    const { firstAttemptAt: _f, inFlightUntil: _i, ...unset } = delivery;
    expect(deliveryFromItem({ ...stored, ...unset, attempt: 0 })).toEqual({
      ...unset,
      attempt: 0,
      firstAttemptAt: null,
      inFlightUntil: null,
    });
    expect(thrown(() => deliveryFromItem({ ...stored, ...delivery, state: 'sent' })).kind).toBe(
      'WebhookDelivery',
    );
  });

  it('read an attempt back, and refuse one with an unknown outcome', () => {
    const attempt = {
      deliveryId: 'dlv_1',
      webhookId: 'wh_1',
      eventId: 'evt_1',
      eventType: 'post.published',
      attempt: 1,
      attemptedAt: '2026-11-29T10:00:00.000Z',
      durationMs: 120,
      outcome: 'retrying',
      responseStatus: 503,
      errorCode: 'http_status',
      error: 'HTTP 503',
      nextAttemptAt: '2026-11-29T10:01:00.000Z',
    };
    const stored = { PK: 'WH#wh_1', SK: 'ATT#1', type: 'WebhookAttempt', expiresAt: 1_800_000_000 };
    expect(attemptFromItem({ ...stored, ...attempt })).toEqual(attempt);
    expect(thrown(() => attemptFromItem({ ...stored, ...attempt, outcome: 'ok' })).problem).toContain(
      'outcome',
    );
  });
});

const tracker = {
  postId: 'post_1',
  channelId: 'ch_1',
  workspaceId: 'ws_1',
  mode: 'live',
  platform: 'x',
  liveAt: '2026-11-29T10:00:00.000Z',
  postLiveAt: '2026-11-29T10:00:00.000Z',
  step: 2,
  nextAt: '2026-11-29T12:00:00.000Z',
  known: { likes: 3 },
  latest: { at: '2026-11-29T11:00:00.000Z', metrics: { likes: 3 } },
  readings: 2,
  missed: 0,
  skipped: 0,
};

describe('metrics items', () => {
  it('read a tracker back without its index keys, and one stored before its first reading with the defaults', () => {
    const stored = {
      PK: 'POST#post_1',
      SK: 'METRICS#ch_1',
      type: 'metricsTracker',
      GSI1PK: 'g',
      GSI1SK: 's',
    };
    expect(fromTrackerItem({ ...stored, ...tracker })).toEqual(tracker);
    const { nextAt: _n, latest: _l, known: _k, ...bare } = tracker;
    expect(fromTrackerItem({ ...stored, ...bare })).toEqual({
      ...bare,
      nextAt: null,
      latest: null,
      known: {},
    });
    const error = thrown(() => fromTrackerItem({ ...stored, ...tracker, step: undefined }));
    expect(error.kind).toBe('metricsTracker');
    expect(error.problem).toContain('step');
  });

  it('read a reading back, and refuse one with an unknown outcome', () => {
    const reading = {
      postId: 'post_1',
      channelId: 'ch_1',
      step: 1,
      at: '2026-11-29T11:00:00.000Z',
      dueAt: '2026-11-29T11:00:00.000Z',
      outcome: 'ok',
      metrics: { likes: 3 },
      blocks: [{ block: 0, metrics: { likes: 3 } }],
    };
    const stored = { PK: 'POST#post_1', SK: 'READING#ch_1#1', type: 'metricsReading' };
    expect(fromReadingItem({ ...stored, ...reading })).toEqual(reading);
    expect(thrown(() => fromReadingItem({ ...stored, ...reading, outcome: 'fine' })).kind).toBe(
      'metricsReading',
    );
  });
});

const connectState = {
  stateHash: 'hash_1',
  accountId: 'acc_1',
  workspaceId: 'ws_1',
  mode: 'test',
  platform: 'linkedin',
  redirectUrl: 'https://app.example.com/done',
  codeVerifier: null,
  status: 'pending',
  createdAt: '2026-11-29T10:00:00.000Z',
  expiresAt: '2026-11-29T10:10:00.000Z',
};

describe('connect state items', () => {
  const stored = { PK: 'CONNECT#hash_1', SK: 'CONNECT', type: 'ConnectState', expiresAt: 1_800_000_000 };

  it('read the state the item holds, and give states made before the mode was kept the live mode', () => {
    expect(connectStateFromItem({ ...stored, state: connectState })).toEqual(connectState);
    const { mode: _mode, ...older } = connectState;
    expect(connectStateFromItem({ ...stored, state: older })).toEqual({ ...older, mode: 'live' });
  });

  it('refuse an item that holds no state', () => {
    const error = thrown(() => connectStateFromItem({ ...stored }));
    expect(error.kind).toBe('ConnectState');
    expect(error.key).toBe('CONNECT#hash_1 CONNECT');
  });
});

describe("a post's due-index entry", () => {
  const entry = {
    PK: 'POST#post_1',
    SK: 'POST',
    GSI1SK: '2026-11-29T10:00:00.000Z#post_1',
    postId: 'post_1',
    status: 'publishing',
    version: 4,
    round: 2,
    scheduledAt: null,
    scheduleName: 'sched_1',
  };

  it('reads the current shape, the due time from the index key', () => {
    expect(overdueFromItem(entry)).toEqual({
      postId: 'post_1',
      status: 'publishing',
      version: 4,
      round: 2,
      scheduledAt: null,
      scheduleName: 'sched_1',
      dueAt: '2026-11-29T10:00:00.000Z',
    });
  });

  it('upgrades entries saved before rounds, stored unset times and named schedules', () => {
    const { round: _round, scheduledAt: _at, scheduleName: _name, ...older } = entry;
    const read = overdueFromItem({ ...older, status: 'scheduled' });
    expect(read).toEqual({
      postId: 'post_1',
      status: 'scheduled',
      version: 4,
      round: 1,
      scheduledAt: null,
      dueAt: '2026-11-29T10:00:00.000Z',
    });
    expect('scheduleName' in read).toBe(false);
  });

  it('refuses a status the due index never holds, and an entry without its index key', () => {
    expect(thrown(() => overdueFromItem({ ...entry, status: 'published' })).message).toBe(
      'The stored due post item POST#post_1 POST is malformed: status: invalid_value',
    );
    const { GSI1SK: _key, ...keyless } = entry;
    expect(thrown(() => overdueFromItem(keyless)).problem).toBe('GSI1SK: invalid_type');
  });
});
