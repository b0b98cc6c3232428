import { describe, expect, it } from 'vitest';
import { postBody, reviseBody } from '../../functions/core/posts/schema.ts';
import {
  parseInstant,
  type ValidatedPost,
  type ValidationContext,
  validatePost,
} from '../../functions/core/posts/validate.ts';
import { ApiError, type ErrorCode } from '../../functions/domain/errors.ts';
import { PLATFORM_IDS, type PlatformId } from '../../functions/domain/platforms/types.ts';
import type { MediaInfo } from '../../functions/domain/post.ts';
import type { ChannelRecord } from '../../functions/ports/channels.ts';
import { zodErrorToApiError } from '../../functions/shared/validation.ts';
import { channelRecord } from '../support/fixtures.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures: one connected channel per network, a few special channels, media of every type.

const NOW = new Date('2026-06-01T12:00:00.000Z');

const channel = channelRecord;

const PLATFORMS: readonly PlatformId[] = PLATFORM_IDS;

const channelRecords: ChannelRecord[] = [
  ...PLATFORMS.map((p) => channel(`ch_${p}`, p)),
  channel('ch_x_nothreads', 'x', { threadsPermitted: false }),
  channel('ch_li_nothreads', 'linkedin', { threadsPermitted: false }),
  channel('ch_x_off', 'x', { connection: 'needs_reconnect' }),
];

const media = (mediaId: string, mimeType: string, status: MediaInfo['status'] = 'ready'): MediaInfo => ({
  mediaId,
  mimeType,
  size: 1000,
  status,
});

const IMAGES = Array.from({ length: 25 }, (_, n) => media(`med_img${n}`, 'image/jpeg'));
const mediaFiles: MediaInfo[] = [
  { ...media('med_big_jpg', 'image/jpeg'), size: 2_000_001 },
  { ...media('med_max_jpg', 'image/jpeg'), size: 2_000_000 },
  media('med_jpg', 'image/jpeg'),
  media('med_png', 'image/png'),
  media('med_webp', 'image/webp'),
  media('med_gif', 'image/gif'),
  media('med_mp4', 'video/mp4'),
  media('med_mp4b', 'video/mp4'),
  media('med_mov', 'video/quicktime'),
  media('med_pdf', 'application/pdf'),
  media('med_vtt', 'text/vtt'),
  media('med_srt', 'application/x-subrip'),
  media('med_pending', 'image/jpeg', 'pending'),
  ...IMAGES,
];

const ctx: ValidationContext = {
  channels: new Map(channelRecords.map((c) => [c.channelId, c])),
  media: new Map(mediaFiles.map((m) => [m.mediaId, m])),
  tagIds: new Set(['tag_a', 'tag_b']),
  now: NOW,
};

/** The smallest valid channel entry for each network. */
const BASE: Record<PlatformId, Record<string, unknown>> = {
  x: { channelId: 'ch_x', blocks: [{ content: 'hello' }] },
  linkedin: { channelId: 'ch_linkedin', blocks: [{ content: 'hello' }] },
  linkedin_page: { channelId: 'ch_linkedin_page', blocks: [{ content: 'hello' }] },
  instagram: { channelId: 'ch_instagram', blocks: [{ content: 'hello', mediaIds: ['med_jpg'] }] },
  facebook: { channelId: 'ch_facebook', blocks: [{ content: 'hello' }] },
  threads: { channelId: 'ch_threads', blocks: [{ content: 'hello' }] },
  tiktok: {
    channelId: 'ch_tiktok',
    blocks: [{ content: 'hello', mediaIds: ['med_mp4'] }],
    options: { privacy: 'SELF_ONLY' },
  },
  youtube: {
    channelId: 'ch_youtube',
    title: 'A video',
    blocks: [{ content: 'hello', mediaIds: ['med_mp4'] }],
  },
  vimeo: { channelId: 'ch_vimeo', title: 'A video', blocks: [{ content: 'hello', mediaIds: ['med_mp4'] }] },
  pinterest: {
    channelId: 'ch_pinterest',
    blocks: [{ content: 'hello', mediaIds: ['med_jpg'] }],
    options: { boardId: 'board_1' },
  },
  bluesky: { channelId: 'ch_bluesky', blocks: [{ content: 'hello' }] },
  reddit: {
    channelId: 'ch_reddit',
    title: 'A title',
    blocks: [{ content: 'hello' }],
    options: { subreddit: 'test' },
  },
};

/** The base channel of `p` with some fields replaced. */
const ch = (p: PlatformId, patch: Record<string, unknown> = {}) => ({ ...BASE[p], ...patch });
/** The base channel of `p` with fields of its first block replaced (undefined removes a field). */
const blk = (p: PlatformId, blockPatch: Record<string, unknown>, patch: Record<string, unknown> = {}) => {
  const [first] = BASE[p].blocks as Record<string, unknown>[];
  const block = Object.fromEntries(
    Object.entries({ ...first, ...blockPatch }).filter(([, value]) => value !== undefined),
  );
  return ch(p, { blocks: [block], ...patch });
};
/** A `now` post with these channels. */
const post = (...channels: unknown[]) => ({ intent: 'now', channels });
/** A scheduled post on X at `scheduledAt`. */
const at = (scheduledAt: unknown) => ({ intent: 'schedule', scheduledAt, channels: [BASE.x] });
/** `n` blocks of text. */
const texts = (n: number) => Array.from({ length: n }, (_, k) => ({ content: `part ${k + 1}` }));
/** The first `n` image ids. */
const images = (n: number) => IMAGES.slice(0, n).map((m) => m.mediaId);
const withOptions = (p: PlatformId, options: Record<string, unknown>) =>
  ch(p, { options: { ...(BASE[p].options as object | undefined), ...options } });

/** What the create route does: the zod schema, then the validator. */
const run = (raw: unknown, context: ValidationContext = ctx): ValidatedPost => {
  const parsed = postBody.safeParse(raw);
  if (!parsed.success) throw zodErrorToApiError(parsed.error);
  return validatePost(parsed.data, context);
};

const errorOf = (raw: unknown): ApiError => {
  try {
    run(raw);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the body to be refused, but it passed');
};

// Text samples
const LONG_URL = 'https://example.com/a/very/long/path/that/is/much/longer/than/twenty/three/characters';
const GRINNING = '\u{1F600}'; // 😀: X 2, Threads 4 bytes, 1 grapheme
const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}'; // one grapheme, 7 code points
const E_COMBINING = 'e\u0301'; // one grapheme, 2 code points
const MATH_X = '\u{1D4B3}'; // astral: one code point, two UTF-16 units
const a = (n: number) => 'a'.repeat(n);

// ---------------------------------------------------------------------------------------------

type ErrorRow = [name: string, body: unknown, code: ErrorCode, field: string];
type OkRow = [name: string, body: unknown];

const runErrorRows = (rows: ErrorRow[]) =>
  it.each(rows)('%s', (_name, body, code, field) => {
    const error = errorOf(body);
    expect({ code: error.code, field: error.field }).toEqual({ code, field });
    expect(error.message.length).toBeGreaterThan(0);
  });

const runOkRows = (rows: OkRow[]) =>
  it.each(rows)('%s', (_name, body) => {
    expect(() => run(body)).not.toThrow();
  });

describe('every network: the smallest valid post passes', () => {
  it.each(PLATFORMS)('%s', (p) => {
    const result = run(post(BASE[p]));
    expect(result.channels[0]?.platform).toBe(p);
  });
  it('all twelve networks in one post', () => {
    expect(run(post(...PLATFORMS.map((p) => BASE[p]))).channels).toHaveLength(12);
  });
});

describe('body shape (zod): validation_failed with the exact path', () => {
  runErrorRows([
    ['intent missing', { channels: [BASE.x] }, 'validation_failed', 'intent'],
    ['intent unknown', { intent: 'later', channels: [BASE.x] }, 'validation_failed', 'intent'],
    ['channels missing', { intent: 'now' }, 'validation_failed', 'channels'],
    ['channels empty', { intent: 'now', channels: [] }, 'validation_failed', 'channels'],
    ['unknown top-level key', { ...post(BASE.x), extra: 1 }, 'validation_failed', 'extra'],
    ['channelId missing', post({ blocks: [{ content: 'x' }] }), 'validation_failed', 'channels[0].channelId'],
    ['channelId a number', post(ch('x', { channelId: 7 })), 'validation_failed', 'channels[0].channelId'],
    ['blocks missing', post({ channelId: 'ch_x' }), 'validation_failed', 'channels[0].blocks'],
    ['blocks empty', post(ch('x', { blocks: [] })), 'validation_failed', 'channels[0].blocks'],
    ['unknown channel key', post(ch('x', { colour: 'red' })), 'validation_failed', 'channels[0].colour'],
    ['unknown block key', post(blk('x', { text: 'x' })), 'validation_failed', 'channels[0].blocks[0].text'],
    [
      'content a number (second channel)',
      post(BASE.linkedin, blk('x', { content: 5 })),
      'validation_failed',
      'channels[1].blocks[0].content',
    ],
    [
      'mediaIds not an array',
      post(blk('x', { mediaIds: 'med_jpg' })),
      'validation_failed',
      'channels[0].blocks[0].mediaIds',
    ],
    [
      'mediaIds item not a string',
      post(blk('x', { mediaIds: ['med_jpg', 3] })),
      'validation_failed',
      'channels[0].blocks[0].mediaIds[1]',
    ],
    [
      'mediaAltText value not a string',
      post(blk('x', { mediaIds: ['med_jpg'], mediaAltText: { med_jpg: 1 } })),
      'validation_failed',
      'channels[0].blocks[0].mediaAltText.med_jpg',
    ],
    ['title a number', post(ch('youtube', { title: 1 })), 'validation_failed', 'channels[0].title'],
    [
      'option a JSON boolean',
      post(withOptions('reddit', { nsfw: true })),
      'validation_failed',
      'channels[0].options.nsfw',
    ],
    [
      'option a number',
      post(withOptions('x', { replySettings: 1 })),
      'validation_failed',
      'channels[0].options.replySettings',
    ],
    ['scheduledAt a number', { ...at(1) }, 'validation_failed', 'scheduledAt'],
    ['tagIds not an array', { ...post(BASE.x), tagIds: 'tag_a' }, 'validation_failed', 'tagIds'],
    [
      'more than 10 tags',
      { ...post(BASE.x), tagIds: Array.from({ length: 11 }, () => 'tag_a') },
      'validation_failed',
      'tagIds',
    ],
    [
      'more than 50 channels',
      post(...Array.from({ length: 51 }, () => BASE.x)),
      'validation_failed',
      'channels',
    ],
  ]);
  runOkRows([
    ['title and postType null are "absent"', post(ch('x', { title: null, postType: null }))],
    ['scheduledAt null with intent now', { ...post(BASE.x), scheduledAt: null }],
  ]);
});

describe('scheduledAt', () => {
  runErrorRows([
    [
      'missing with intent schedule',
      { intent: 'schedule', channels: [BASE.x] },
      'validation_failed',
      'scheduledAt',
    ],
    ['null with intent schedule', at(null), 'validation_failed', 'scheduledAt'],
    [
      'present with intent now',
      { ...post(BASE.x), scheduledAt: '2030-01-01T10:00:00Z' },
      'validation_failed',
      'scheduledAt',
    ],
    [
      'present with intent draft',
      { intent: 'draft', scheduledAt: '2030-01-01T10:00:00Z', channels: [BASE.x] },
      'validation_failed',
      'scheduledAt',
    ],
    ['not a date at all', at('tomorrow'), 'validation_failed', 'scheduledAt'],
    ['empty string', at(''), 'validation_failed', 'scheduledAt'],
    ['date only', at('2030-01-01'), 'validation_failed', 'scheduledAt'],
    ['one-digit month', at('2030-1-01T10:00:00Z'), 'validation_failed', 'scheduledAt'],
    ['space instead of T', at('2030-01-01 10:00:00Z'), 'validation_failed', 'scheduledAt'],
    ['offset of hours only', at('2030-01-01T10:00:00+02'), 'validation_failed', 'scheduledAt'],
    ['trailing text', at('2030-01-01T10:00:00Z junk'), 'validation_failed', 'scheduledAt'],
    ['no timezone', at('2030-01-01T10:00:00'), 'invalid_timezone', 'scheduledAt'],
    ['no timezone, no seconds', at('2030-01-01T10:00'), 'invalid_timezone', 'scheduledAt'],
    ['no timezone, with fraction', at('2030-01-01T10:00:00.250'), 'invalid_timezone', 'scheduledAt'],
    ['30 February', at('2026-02-30T10:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['29 February of a common year', at('2027-02-29T10:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['29 February 2100 (not a leap year)', at('2100-02-29T10:00:00Z'), 'invalid_date', 'scheduledAt'],
    [
      '29 February 2000 exists (leap by 400), so it is only past',
      at('2000-02-29T10:00:00Z'),
      'schedule_in_past',
      'scheduledAt',
    ],
    ['31 April', at('2030-04-31T10:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['month 13', at('2030-13-01T10:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['month 00', at('2030-00-10T10:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['day 00', at('2030-01-00T10:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['hour 24', at('2030-01-01T24:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['hour 25', at('2030-01-01T25:00:00Z'), 'invalid_date', 'scheduledAt'],
    ['minute 60', at('2030-01-01T10:60:00Z'), 'invalid_date', 'scheduledAt'],
    ['second 60', at('2030-01-01T10:00:60Z'), 'invalid_date', 'scheduledAt'],
    ['offset +14:30', at('2030-01-01T10:00:00+14:30'), 'invalid_date', 'scheduledAt'],
    ['offset -15:00', at('2030-01-01T10:00:00-15:00'), 'invalid_date', 'scheduledAt'],
    ['offset minutes 60', at('2030-01-01T10:00:00+01:60'), 'invalid_date', 'scheduledAt'],
    ['in the past', at('2020-01-01T00:00:00Z'), 'schedule_in_past', 'scheduledAt'],
    ['equal to now', at(NOW.toISOString()), 'schedule_in_past', 'scheduledAt'],
    [
      'equal to now, written with an offset',
      at('2026-06-01T14:00:00+02:00'),
      'schedule_in_past',
      'scheduledAt',
    ],
    ['1 ms before now', at('2026-06-01T11:59:59.999Z'), 'schedule_in_past', 'scheduledAt'],
  ]);

  it.each([
    ['29 February of a leap year', '2028-02-29T10:00:00Z', '2028-02-29T10:00:00.000Z'],
    ['+02:00 normalised to UTC', '2030-01-01T10:00:00+02:00', '2030-01-01T08:00:00.000Z'],
    ['+0200 accepted', '2030-01-01T10:00:00+0200', '2030-01-01T08:00:00.000Z'],
    ['an offset that changes the date', '2030-01-01T01:00:00+02:00', '2029-12-31T23:00:00.000Z'],
    ['a negative offset', '2030-12-31T20:00:00-05:00', '2031-01-01T01:00:00.000Z'],
    ['offset +14:00', '2030-01-01T10:00:00+14:00', '2029-12-31T20:00:00.000Z'],
    ['offset -12:00', '2030-01-01T10:00:00-12:00', '2030-01-01T22:00:00.000Z'],
    ['without seconds', '2030-01-01T10:00Z', '2030-01-01T10:00:00.000Z'],
    ['with milliseconds', '2030-01-01T10:00:00.123Z', '2030-01-01T10:00:00.123Z'],
    ['one fraction digit', '2030-01-01T10:00:00.5Z', '2030-01-01T10:00:00.500Z'],
    ['microseconds are cut to milliseconds', '2030-01-01T10:00:00.123987Z', '2030-01-01T10:00:00.123Z'],
    ['1 ms after now', '2026-06-01T12:00:00.001Z', '2026-06-01T12:00:00.001Z'],
    ['23:59:59 is the last second', '2030-01-01T23:59:59Z', '2030-01-01T23:59:59.000Z'],
  ])('%s: %s -> %s', (_name, input, expected) => {
    expect(run(at(input)).scheduledAt).toBe(expected);
  });

  it('is null for a draft and for intent now', () => {
    expect(run({ intent: 'draft', channels: [BASE.x] }).scheduledAt).toBeNull();
    expect(run(post(BASE.x)).scheduledAt).toBeNull();
  });

  it('parseInstant names the field it was given', () => {
    expect(parseInstant('2030-01-01T10:00:00+01:00', 'from').toISOString()).toBe('2030-01-01T09:00:00.000Z');
    expect(() => parseInstant('2030-02-30T10:00:00Z', 'to')).toThrow(
      expect.objectContaining({ code: 'invalid_date', field: 'to' }),
    );
  });
});

describe('channels', () => {
  runErrorRows([
    [
      'unknown channel',
      post(ch('x', { channelId: 'ch_nope' })),
      'channel_not_found',
      'channels[0].channelId',
    ],
    [
      'unknown channel in second place',
      post(BASE.x, ch('x', { channelId: 'ch_nope' })),
      'channel_not_found',
      'channels[1].channelId',
    ],
    [
      'disconnected channel',
      post(ch('x', { channelId: 'ch_x_off' })),
      'channel_disconnected',
      'channels[0].channelId',
    ],
    [
      'the same channel twice',
      post(BASE.x, BASE.linkedin, BASE.x),
      'duplicate_channel',
      'channels[2].channelId',
    ],
  ]);
});

describe('blocks: threads and counts', () => {
  runErrorRows([
    ['X: 26 blocks', post(ch('x', { blocks: texts(26) })), 'too_many_blocks', 'channels[0].blocks'],
    [
      'Bluesky: 26 blocks',
      post(ch('bluesky', { blocks: texts(26) })),
      'too_many_blocks',
      'channels[0].blocks',
    ],
    [
      'LinkedIn: 4 blocks',
      post(ch('linkedin', { blocks: texts(4) })),
      'too_many_blocks',
      'channels[0].blocks',
    ],
    ['Reddit: 7 blocks', post(ch('reddit', { blocks: texts(7) })), 'too_many_blocks', 'channels[0].blocks'],
    [
      'TikTok (maxBlocks 1): 2 blocks',
      post(ch('tiktok', { blocks: [{ content: 'a', mediaIds: ['med_mp4'] }, { content: 'b' }] })),
      'thread_not_supported',
      'channels[0].blocks',
    ],
    [
      'Pinterest (maxBlocks 1): 2 blocks',
      post(ch('pinterest', { blocks: [{ mediaIds: ['med_jpg'] }, { content: 'b' }] })),
      'thread_not_supported',
      'channels[0].blocks',
    ],
    [
      'X channel without thread permission: 2 blocks',
      post({ channelId: 'ch_x_nothreads', blocks: texts(2) }),
      'thread_not_supported',
      'channels[0].blocks',
    ],
    [
      'LinkedIn channel without permission: 2 blocks (comments)',
      post({ channelId: 'ch_li_nothreads', blocks: texts(2) }),
      'thread_not_supported',
      'channels[0].blocks',
    ],
    [
      'no permission and too many: thread_not_supported first',
      post({ channelId: 'ch_x_nothreads', blocks: texts(30) }),
      'thread_not_supported',
      'channels[0].blocks',
    ],
    ['empty block', post(ch('x', { blocks: [{}] })), 'block_empty', 'channels[0].blocks[0]'],
    ['empty content, no media', post(blk('x', { content: '' })), 'block_empty', 'channels[0].blocks[0]'],
    [
      'whitespace-only content',
      post(blk('x', { content: ' \n\t ' })),
      'block_empty',
      'channels[0].blocks[0]',
    ],
    [
      'empty mediaIds and no content',
      post(blk('x', { content: undefined, mediaIds: [] })),
      'block_empty',
      'channels[0].blocks[0]',
    ],
    [
      'second block empty',
      post(ch('x', { blocks: [{ content: 'a' }, { content: '' }] })),
      'block_empty',
      'channels[0].blocks[1]',
    ],
  ]);
  runOkRows([
    ['X: 25 blocks', post(ch('x', { blocks: texts(25) }))],
    ['Threads: 25 blocks', post(ch('threads', { blocks: texts(25) }))],
    ['LinkedIn: 3 blocks', post(ch('linkedin', { blocks: texts(3) }))],
    ['Reddit: 6 blocks', post(ch('reddit', { blocks: texts(6) }))],
    ['channel without thread permission: 1 block', post({ channelId: 'ch_x_nothreads', blocks: texts(1) })],
    ['media-only block', post(blk('x', { content: undefined, mediaIds: ['med_jpg'] }))],
  ]);

  it('stores absent or blank content as an empty string', () => {
    const result = run(
      post(ch('x', { blocks: [{ mediaIds: ['med_jpg'] }, { content: '  ', mediaIds: ['med_png'] }] })),
    );
    expect(result.channels[0]?.blocks.map((b) => b.content)).toEqual(['', '']);
  });
});

describe('content length, exactly at the limit and one over', () => {
  const len = (p: PlatformId, content: string) => post(blk(p, { content }));
  const overRows: ErrorRow[] = [
    ['X: 281 ASCII', len('x', a(281)), 'content_too_long', 'channels[0].blocks[0].content'],
    [
      'X: 257 + a URL (23)',
      len('x', `${a(257)} ${LONG_URL}`),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    ['X: 141 CJK (2 each)', len('x', '日'.repeat(141)), 'content_too_long', 'channels[0].blocks[0].content'],
    [
      'X: 139 CJK + 3 ASCII',
      len('x', `${'日'.repeat(139)}aaa`),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'X: 141 emoji (2 each)',
      len('x', GRINNING.repeat(141)),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'X: 279 ASCII + 1 emoji (2)',
      len('x', `${a(279)}${GRINNING}`),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    ['Bluesky: 301 ASCII', len('bluesky', a(301)), 'content_too_long', 'channels[0].blocks[0].content'],
    [
      'Bluesky: 301 combining characters',
      len('bluesky', E_COMBINING.repeat(301)),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'Bluesky: 301 ZWJ families',
      len('bluesky', FAMILY.repeat(301)),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'Bluesky: 120 ZWJ families (120 graphemes, 3000 bytes) + 1 ASCII (over 3000 UTF-8 bytes)',
      len('bluesky', `${FAMILY.repeat(120)}a`),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'Bluesky: 300 ZWJ families (7500 bytes)',
      len('bluesky', FAMILY.repeat(300)),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    ['Threads: 501 ASCII', len('threads', a(501)), 'content_too_long', 'channels[0].blocks[0].content'],
    [
      'Threads: 125 emoji (500 bytes) + 1',
      len('threads', `${GRINNING.repeat(125)}a`),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'Threads: 126 emoji (504 bytes, only 252 UTF-16 units)',
      len('threads', GRINNING.repeat(126)),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    ['LinkedIn: 3001 ASCII', len('linkedin', a(3001)), 'content_too_long', 'channels[0].blocks[0].content'],
    [
      'LinkedIn: 3001 astral characters',
      len('linkedin', MATH_X.repeat(3001)),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    ['Instagram: 2201', len('instagram', a(2201)), 'content_too_long', 'channels[0].blocks[0].content'],
    ['Pinterest: 801', len('pinterest', a(801)), 'content_too_long', 'channels[0].blocks[0].content'],
    ['Reddit: 10001', len('reddit', a(10001)), 'content_too_long', 'channels[0].blocks[0].content'],
    ['Facebook: 63207', len('facebook', a(63207)), 'content_too_long', 'channels[0].blocks[0].content'],
    [
      'too long in the third block of a thread',
      post(ch('x', { blocks: [{ content: 'a' }, { content: 'b' }, { content: a(281) }] })),
      'content_too_long',
      'channels[0].blocks[2].content',
    ],
  ];
  runErrorRows(overRows);
  runOkRows([
    ['X: 280 ASCII', len('x', a(280))],
    ['X: 256 + a URL (23)', len('x', `${a(256)} ${LONG_URL}`)],
    ['X: 140 CJK', len('x', '日'.repeat(140))],
    ['X: 139 CJK + 2 ASCII', len('x', `${'日'.repeat(139)}aa`)],
    ['X: 140 emoji', len('x', GRINNING.repeat(140))],
    ['X: 140 ZWJ families', len('x', FAMILY.repeat(140))],
    ['Bluesky: 300 ASCII', len('bluesky', a(300))],
    ['Bluesky: 300 combining characters (600 code points)', len('bluesky', E_COMBINING.repeat(300))],
    ['Bluesky: 120 ZWJ families (3000 bytes)', len('bluesky', FAMILY.repeat(120))],
    ['Threads: 500 ASCII', len('threads', a(500))],
    ['Threads: 125 emoji (500 bytes)', len('threads', GRINNING.repeat(125))],
    ['LinkedIn: 3000 ASCII', len('linkedin', a(3000))],
    ['LinkedIn: 3000 astral characters (6000 UTF-16 units)', len('linkedin', MATH_X.repeat(3000))],
    ['Instagram: 2200', len('instagram', a(2200))],
    ['Pinterest: 800', len('pinterest', a(800))],
    ['Reddit: 10000', len('reddit', a(10000))],
    ['Facebook: 63206', len('facebook', a(63206))],
  ]);

  it('the message gives the count and the limit', () => {
    expect(errorOf(len('x', a(281))).message).toMatch(/280.*281/);
  });
});

describe('media', () => {
  const M = 'channels[0].blocks[0].mediaIds';
  runErrorRows([
    ['unknown id', post(blk('x', { mediaIds: ['med_nope'] })), 'media_not_found', `${M}[0]`],
    [
      'unknown id in second place',
      post(blk('x', { mediaIds: ['med_jpg', 'med_nope'] })),
      'media_not_found',
      `${M}[1]`,
    ],
    ['pending upload', post(blk('x', { mediaIds: ['med_pending'] })), 'media_not_ready', `${M}[0]`],
    [
      'the same id twice',
      post(blk('x', { mediaIds: ['med_jpg', 'med_png', 'med_jpg'] })),
      'validation_failed',
      `${M}[2]`,
    ],
    ['PDF on X', post(blk('x', { mediaIds: ['med_pdf'] })), 'media_type_not_accepted', `${M}[0]`],
    [
      'WebP on Instagram',
      post(blk('instagram', { mediaIds: ['med_webp'] })),
      'media_type_not_accepted',
      `${M}[0]`,
    ],
    ['image on TikTok', post(blk('tiktok', { mediaIds: ['med_jpg'] })), 'media_type_not_accepted', `${M}[0]`],
    [
      'subtitles on TikTok (not accepted there)',
      post(blk('tiktok', { mediaIds: ['med_mp4', 'med_vtt'] })),
      'media_type_not_accepted',
      `${M}[1]`,
    ],
    [
      'image on YouTube',
      post(blk('youtube', { mediaIds: ['med_png'] })),
      'media_type_not_accepted',
      `${M}[0]`,
    ],
    ['X: 5 images', post(blk('x', { mediaIds: images(5) })), 'too_many_media', M],
    ['Bluesky: 5 images', post(blk('bluesky', { mediaIds: images(5) })), 'too_many_media', M],
    [
      'Bluesky: an image over 2,000,000 bytes',
      post(blk('bluesky', { mediaIds: ['med_max_jpg', 'med_big_jpg'] })),
      'media_too_large',
      `${M}[1]`,
    ],
    [
      'Bluesky: a video beside an image',
      post(blk('bluesky', { mediaIds: ['med_jpg', 'med_mp4'] })),
      'too_many_media',
      M,
    ],
    ['Bluesky: two videos', post(blk('bluesky', { mediaIds: ['med_mp4', 'med_mp4b'] })), 'too_many_media', M],
    [
      'Bluesky: a MOV video (MP4 only)',
      post(blk('bluesky', { mediaIds: ['med_mov'] })),
      'media_type_not_accepted',
      `${M}[0]`,
    ],
    ['Pinterest: 6 images', post(blk('pinterest', { mediaIds: images(6) })), 'too_many_media', M],
    ['LinkedIn: 21 images', post(blk('linkedin', { mediaIds: images(21) })), 'too_many_media', M],
    ['Instagram: 11 files', post(blk('instagram', { mediaIds: images(11) })), 'too_many_media', M],
    ['YouTube: two videos', post(blk('youtube', { mediaIds: ['med_mp4', 'med_mov'] })), 'too_many_media', M],
    [
      'Vimeo: two videos and subtitles',
      post(blk('vimeo', { mediaIds: ['med_mp4', 'med_vtt', 'med_mp4b'] })),
      'too_many_media',
      M,
    ],
    ['Instagram: no file', post(blk('instagram', { mediaIds: undefined })), 'media_required', M],
    ['Instagram: empty block', post(ch('instagram', { blocks: [{}] })), 'media_required', M],
    ['TikTok: no file', post(blk('tiktok', { mediaIds: [] })), 'media_required', M],
    ['Pinterest: no file', post(blk('pinterest', { mediaIds: undefined })), 'media_required', M],
    ['YouTube: subtitles only', post(blk('youtube', { mediaIds: ['med_vtt'] })), 'media_required', M],
    [
      'Vimeo: subtitles only, no text',
      post(blk('vimeo', { content: undefined, mediaIds: ['med_srt'] })),
      'media_required',
      M,
    ],
    [
      'Instagram: the file must be on the first block',
      post(ch('instagram', { blocks: [{ content: 'a' }, { content: 'b', mediaIds: ['med_jpg'] }] })),
      'media_required',
      M,
    ],
    [
      'alt text for an id not in the block',
      post(blk('x', { mediaIds: ['med_jpg'], mediaAltText: { med_png: 'a' } })),
      'alt_text_without_media',
      'channels[0].blocks[0].mediaAltText.med_png',
    ],
    [
      'alt text on a block without media',
      post(blk('x', { mediaAltText: { med_jpg: 'a' } })),
      'alt_text_without_media',
      'channels[0].blocks[0].mediaAltText.med_jpg',
    ],
    [
      'alt text for an id of another block',
      post(
        ch('x', { blocks: [{ mediaIds: ['med_jpg'] }, { content: 'b', mediaAltText: { med_jpg: 'a' } }] }),
      ),
      'alt_text_without_media',
      'channels[0].blocks[1].mediaAltText.med_jpg',
    ],
    [
      'alt text of 1001 characters',
      post(blk('x', { mediaIds: ['med_jpg'], mediaAltText: { med_jpg: a(1001) } })),
      'validation_failed',
      'channels[0].blocks[0].mediaAltText.med_jpg',
    ],
  ]);
  runOkRows([
    ['X: 4 images', post(blk('x', { mediaIds: images(4) }))],
    ['Pinterest: 5 images', post(blk('pinterest', { mediaIds: images(5) }))],
    ['LinkedIn: 20 files', post(blk('linkedin', { mediaIds: images(20) }))],
    ['LinkedIn: a PDF', post(blk('linkedin', { mediaIds: ['med_pdf'] }))],
    ['Instagram: 10 files', post(blk('instagram', { mediaIds: [...images(9), 'med_mp4'] }))],
    [
      'Instagram: extra blocks (comments) may be text only',
      post(ch('instagram', { blocks: [{ mediaIds: ['med_jpg'] }, { content: 'first comment' }] })),
    ],
    [
      'YouTube: a video and two subtitle files',
      post(blk('youtube', { mediaIds: ['med_vtt', 'med_mp4', 'med_srt'] })),
    ],
    ['Vimeo: a MOV and subtitles', post(blk('vimeo', { mediaIds: ['med_mov', 'med_vtt'] }))],
    ['TikTok: one MOV', post(blk('tiktok', { mediaIds: ['med_mov'] }))],
    [
      'alt text for each file',
      post(blk('x', { mediaIds: ['med_jpg', 'med_png'], mediaAltText: { med_jpg: 'a', med_png: 'b' } })),
    ],
    [
      'alt text of 1000 characters',
      post(blk('x', { mediaIds: ['med_jpg'], mediaAltText: { med_jpg: a(1000) } })),
    ],
    [
      'alt text of 1000 astral characters',
      post(blk('x', { mediaIds: ['med_jpg'], mediaAltText: { med_jpg: MATH_X.repeat(1000) } })),
    ],
  ]);
});

describe('title', () => {
  const T = 'channels[0].title';
  runErrorRows([
    ['X has no title', post(ch('x', { title: 'Hi' })), 'title_not_supported', T],
    ['Instagram has no title', post(ch('instagram', { title: 'Hi' })), 'title_not_supported', T],
    ['YouTube: missing', post(ch('youtube', { title: undefined })), 'title_required', T],
    ['YouTube: null', post(ch('youtube', { title: null })), 'title_required', T],
    ['YouTube: blank', post(ch('youtube', { title: '   ' })), 'title_required', T],
    ['Vimeo: missing', post(ch('vimeo', { title: undefined })), 'title_required', T],
    ['Reddit: missing', post(ch('reddit', { title: undefined })), 'title_required', T],
    ['YouTube: 101 characters', post(ch('youtube', { title: a(101) })), 'title_too_long', T],
    ['Vimeo: 129 characters', post(ch('vimeo', { title: a(129) })), 'title_too_long', T],
    ['Pinterest: 101 characters', post(ch('pinterest', { title: a(101) })), 'title_too_long', T],
    ['Reddit: 301 characters', post(ch('reddit', { title: a(301) })), 'title_too_long', T],
    [
      'YouTube: 101 astral characters',
      post(ch('youtube', { title: MATH_X.repeat(101) })),
      'title_too_long',
      T,
    ],
  ]);
  runOkRows([
    ['YouTube: 100 characters', post(ch('youtube', { title: a(100) }))],
    ['YouTube: 100 astral characters', post(ch('youtube', { title: MATH_X.repeat(100) }))],
    ['Vimeo: 128 characters', post(ch('vimeo', { title: a(128) }))],
    ['Reddit: 300 characters', post(ch('reddit', { title: a(300) }))],
    ['Pinterest: no title (optional)', post(BASE.pinterest)],
    ['Pinterest: 100 characters', post(ch('pinterest', { title: a(100) }))],
  ]);

  it('a blank title on a network without titles is stored as null; a title is kept as sent', () => {
    const result = run(post(ch('x', { title: '  ' }), ch('youtube', { title: ' My video ' })));
    expect(result.channels.map((c) => c.title)).toEqual([null, ' My video ']);
  });
});

describe('postType and its file rules', () => {
  const P = 'channels[0].postType';
  const ig = (postType: string, blocks: unknown[]) => post(ch('instagram', { postType, blocks }));
  const fb = (postType: string, blocks: unknown[]) => post(ch('facebook', { postType, blocks }));
  runErrorRows([
    ['X has no post types', post(ch('x', { postType: 'story' })), 'post_type_not_supported', P],
    ['LinkedIn has no post types', post(ch('linkedin', { postType: 'post' })), 'post_type_not_supported', P],
    [
      'Instagram: unknown type',
      post(ch('instagram', { postType: 'carousel' })),
      'post_type_not_supported',
      P,
    ],
    ['Instagram: wrong case', post(ch('instagram', { postType: 'Reel' })), 'post_type_not_supported', P],
    ['Instagram: empty string', post(ch('instagram', { postType: '' })), 'post_type_not_supported', P],
    [
      'Instagram reel with an image',
      ig('reel', [{ mediaIds: ['med_jpg'] }]),
      'media_type_not_accepted',
      'channels[0].blocks[0].mediaIds[0]',
    ],
    [
      'Instagram reel with two videos',
      ig('reel', [{ mediaIds: ['med_mp4', 'med_mov'] }]),
      'too_many_media',
      'channels[0].blocks[0].mediaIds',
    ],
    [
      'Instagram story with two images',
      ig('story', [{ mediaIds: ['med_jpg', 'med_img1'] }]),
      'too_many_media',
      'channels[0].blocks[0].mediaIds',
    ],
    [
      'Instagram story with a comment block',
      ig('story', [{ mediaIds: ['med_jpg'] }, { content: 'comment' }]),
      'too_many_blocks',
      'channels[0].blocks',
    ],
    [
      'Instagram story with text',
      ig('story', [{ content: 'words', mediaIds: ['med_jpg'] }]),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'Facebook story without a file',
      fb('story', [{ content: 'hello' }]),
      'media_required',
      'channels[0].blocks[0].mediaIds',
    ],
    [
      'Facebook reel with an image',
      fb('reel', [{ mediaIds: ['med_png'] }]),
      'media_type_not_accepted',
      'channels[0].blocks[0].mediaIds[0]',
    ],
    [
      'Facebook: a video with an image',
      post(ch('facebook', { blocks: [{ content: 'v', mediaIds: ['med_mp4', 'med_png'] }] })),
      'too_many_media',
      'channels[0].blocks[0].mediaIds',
    ],
    [
      'Facebook: a comment with a file',
      post(ch('facebook', { blocks: [{ content: 'p' }, { content: 'c', mediaIds: ['med_png'] }] })),
      'media_type_not_accepted',
      'channels[0].blocks[1].mediaIds',
    ],
  ]);
  runOkRows([
    ['Instagram reel: one video', ig('reel', [{ content: 'r', mediaIds: ['med_mp4'] }])],
    ['Instagram reel with a comment', ig('reel', [{ mediaIds: ['med_mov'] }, { content: 'comment' }])],
    ['Instagram story: one image', ig('story', [{ mediaIds: ['med_jpg'] }])],
    ['Instagram post: a carousel', ig('post', [{ mediaIds: images(10) }])],
    ['Facebook story: one video', fb('story', [{ mediaIds: ['med_mp4'] }])],
    ['Facebook post: text only', fb('post', [{ content: 'hello' }])],
  ]);
});

describe('options', () => {
  const O = 'channels[0].options';
  runErrorRows([
    // unknown keys
    ['X: unknown key', post(withOptions('x', { foo: 'bar' })), 'option_not_supported', `${O}.foo`],
    [
      'Reddit: a key of another network',
      post(withOptions('reddit', { privacy: 'public' })),
      'option_not_supported',
      `${O}.privacy`,
    ],
    [
      'keys are case-sensitive',
      post(withOptions('x', { ReplySettings: 'following' })),
      'option_not_supported',
      `${O}.ReplySettings`,
    ],
    // choice
    [
      'choice: value not allowed',
      post(withOptions('x', { replySettings: 'everyone' })),
      'option_invalid',
      `${O}.replySettings`,
    ],
    [
      'choice: wrong case',
      post(withOptions('linkedin', { visibility: 'public' })),
      'option_invalid',
      `${O}.visibility`,
    ],
    [
      'choice: a value of the sibling network',
      post(withOptions('linkedin_page', { visibility: 'CONNECTIONS' })),
      'option_invalid',
      `${O}.visibility`,
    ],
    [
      'choice: an array',
      post(withOptions('x', { replySettings: ['following'] })),
      'option_invalid',
      `${O}.replySettings`,
    ],
    // boolean
    ['boolean: "yes"', post(withOptions('reddit', { nsfw: 'yes' })), 'option_invalid', `${O}.nsfw`],
    ['boolean: "TRUE"', post(withOptions('reddit', { spoiler: 'TRUE' })), 'option_invalid', `${O}.spoiler`],
    ['boolean: "1"', post(withOptions('tiktok', { disableDuet: '1' })), 'option_invalid', `${O}.disableDuet`],
    [
      'boolean: an array',
      post(withOptions('youtube', { madeForKids: ['true'] })),
      'option_invalid',
      `${O}.madeForKids`,
    ],
    // text
    [
      'text: 22 characters (max 21)',
      post(withOptions('reddit', { subreddit: a(22) })),
      'option_invalid',
      `${O}.subreddit`,
    ],
    [
      'text: 65 characters (max 64)',
      post(withOptions('reddit', { flairText: a(65) })),
      'option_invalid',
      `${O}.flairText`,
    ],
    ['text: empty', post(withOptions('reddit', { subreddit: '' })), 'option_invalid', `${O}.subreddit`],
    ['text: an array', post(withOptions('pinterest', { boardId: ['b'] })), 'option_invalid', `${O}.boardId`],
    [
      'text: 501 characters (max 500)',
      post(withOptions('pinterest', { altText: a(501) })),
      'option_invalid',
      `${O}.altText`,
    ],
    // url
    ['url: no scheme', post(withOptions('facebook', { link: 'example.com' })), 'option_invalid', `${O}.link`],
    [
      'url: ftp',
      post(withOptions('facebook', { link: 'ftp://example.com/f' })),
      'option_invalid',
      `${O}.link`,
    ],
    [
      'url: javascript:',
      post(withOptions('pinterest', { link: 'javascript:alert(1)' })),
      'option_invalid',
      `${O}.link`,
    ],
    ['url: relative', post(withOptions('facebook', { link: '/path' })), 'option_invalid', `${O}.link`],
    [
      'url: 2049 characters (max 2048)',
      post(withOptions('facebook', { link: `https://example.com/${a(2029)}` })),
      'option_invalid',
      `${O}.link`,
    ],
    [
      'url: an array',
      post(withOptions('facebook', { link: ['https://example.com'] })),
      'option_invalid',
      `${O}.link`,
    ],
    // list
    [
      'list: 4 items (max 3)',
      post(withOptions('bluesky', { languages: ['en', 'fr', 'de', 'es'] })),
      'option_invalid',
      `${O}.languages`,
    ],
    ['list: a string', post(withOptions('bluesky', { languages: 'en' })), 'option_invalid', `${O}.languages`],
    [
      'list: an empty item',
      post(withOptions('bluesky', { languages: ['en', ''] })),
      'option_invalid',
      `${O}.languages[1]`,
    ],
    [
      'list: Instagram collaborators, 4 (max 3)',
      post(withOptions('instagram', { collaborators: ['a', 'b', 'c', 'd'] })),
      'option_invalid',
      `${O}.collaborators`,
    ],
    // media
    [
      'media: unknown id',
      post(withOptions('youtube', { thumbnail: 'med_nope' })),
      'media_not_found',
      `${O}.thumbnail`,
    ],
    [
      'media: pending',
      post(withOptions('youtube', { thumbnail: 'med_pending' })),
      'media_not_ready',
      `${O}.thumbnail`,
    ],
    [
      'media: a GIF thumbnail',
      post(withOptions('youtube', { thumbnail: 'med_gif' })),
      'media_type_not_accepted',
      `${O}.thumbnail`,
    ],
    [
      'media: a video thumbnail',
      post(withOptions('youtube', { thumbnail: 'med_mp4' })),
      'media_type_not_accepted',
      `${O}.thumbnail`,
    ],
    [
      'media: an array',
      post(withOptions('youtube', { thumbnail: ['med_jpg'] })),
      'option_invalid',
      `${O}.thumbnail`,
    ],
    // required
    [
      'required: TikTok privacy',
      post(ch('tiktok', { options: undefined })),
      'option_required',
      `${O}.privacy`,
    ],
    [
      'required: TikTok privacy, other options sent',
      post(ch('tiktok', { options: { disableDuet: 'true' } })),
      'option_required',
      `${O}.privacy`,
    ],
    [
      'required: Pinterest boardId',
      post(ch('pinterest', { options: {} })),
      'option_required',
      `${O}.boardId`,
    ],
    [
      'required: Reddit subreddit',
      post(ch('reddit', { options: { nsfw: 'true' } })),
      'option_required',
      `${O}.subreddit`,
    ],
    // rules between fields
    [
      'Vimeo: privacy password without a password',
      post(withOptions('vimeo', { privacy: 'password' })),
      'option_required',
      `${O}.password`,
    ],
    [
      'Vimeo: a password with privacy anybody',
      post(withOptions('vimeo', { privacy: 'anybody', password: 'secret' })),
      'option_invalid',
      `${O}.password`,
    ],
    [
      'Instagram: shareToFeed on a feed post',
      post(withOptions('instagram', { shareToFeed: 'true' })),
      'option_invalid',
      `${O}.shareToFeed`,
    ],
    [
      'Instagram: collaborators on a story',
      post(blk('instagram', { content: '' }, { postType: 'story', options: { collaborators: ['a'] } })),
      'option_invalid',
      `${O}.collaborators`,
    ],
    [
      'Threads: linkAttachment with a file',
      post(blk('threads', { mediaIds: ['med_jpg'] }, { options: { linkAttachment: 'https://example.com' } })),
      'option_invalid',
      `${O}.linkAttachment`,
    ],
    [
      'Pinterest: coverImage on an image pin',
      post(withOptions('pinterest', { coverImage: 'med_png' })),
      'option_invalid',
      `${O}.coverImage`,
    ],
  ]);
  runOkRows([
    ['choice', post(withOptions('x', { replySettings: 'mentionedUsers' }))],
    ['choice: TikTok privacy', post(withOptions('tiktok', { privacy: 'PUBLIC_TO_EVERYONE' }))],
    ['boolean "true" and "false"', post(withOptions('reddit', { nsfw: 'true', spoiler: 'false' }))],
    ['text: 21 characters', post(withOptions('reddit', { subreddit: a(21) }))],
    ['text: 64 characters', post(withOptions('reddit', { flairText: a(64) }))],
    ['text: unbounded', post(withOptions('reddit', { flairId: a(5000) }))],
    ['url: https', post(withOptions('facebook', { link: 'https://example.com/page?q=1#top' }))],
    ['url: http', post(withOptions('facebook', { link: 'http://example.com' }))],
    ['url: 2048 characters', post(withOptions('facebook', { link: `https://example.com/${a(2028)}` }))],
    ['list: 3 items', post(withOptions('bluesky', { languages: ['en', 'pt-BR', 'fr'] }))],
    ['list: empty', post(withOptions('bluesky', { languages: [] }))],
    [
      'list: unbounded',
      post(withOptions('youtube', { tags: Array.from({ length: 60 }, (_, k) => `tag${k}`) })),
    ],
    ['media: a JPEG thumbnail', post(withOptions('youtube', { thumbnail: 'med_jpg' }))],
    ['media: a PNG thumbnail', post(withOptions('youtube', { thumbnail: 'med_png' }))],
    [
      'Pinterest: coverImage on a video pin',
      post(
        blk('pinterest', { mediaIds: ['med_mp4'] }, { options: { boardId: 'b', coverImage: 'med_webp' } }),
      ),
    ],
    [
      'Vimeo: privacy password with a password',
      post(withOptions('vimeo', { privacy: 'password', password: 'secret' })),
    ],
    ['Vimeo: a password, privacy left to the account', post(withOptions('vimeo', { password: 'secret' }))],
    [
      'Instagram: shareToFeed on a reel',
      post(
        ch('instagram', {
          postType: 'reel',
          blocks: [{ mediaIds: ['med_mp4'] }],
          options: { shareToFeed: 'false' },
        }),
      ),
    ],
    [
      'Threads: linkAttachment on a text post',
      post(withOptions('threads', { linkAttachment: 'https://example.com' })),
    ],
    ['an empty options object', post(ch('x', { options: {} }))],
  ]);
});

describe('tagIds', () => {
  runErrorRows([
    ['unknown tag', { ...post(BASE.x), tagIds: ['tag_a', 'tag_nope'] }, 'tag_not_found', 'tagIds[1]'],
    ['tag id of the wrong case', { ...post(BASE.x), tagIds: ['TAG_A'] }, 'tag_not_found', 'tagIds[0]'],
  ]);
  it('removes repeats and keeps the first order; absent means none', () => {
    expect(run({ ...post(BASE.x), tagIds: ['tag_b', 'tag_a', 'tag_b'] }).tagIds).toEqual(['tag_b', 'tag_a']);
    expect(run(post(BASE.x)).tagIds).toEqual([]);
  });
});

describe('the first error in document order wins', () => {
  runErrorRows([
    [
      'scheduledAt before channels',
      {
        intent: 'schedule',
        scheduledAt: '2020-01-01T00:00:00Z',
        channels: [ch('x', { channelId: 'ch_nope' })],
      },
      'schedule_in_past',
      'scheduledAt',
    ],
    [
      'channels[0] fully before channels[1]',
      post(withOptions('x', { foo: 'bar' }), ch('x', { channelId: 'ch_nope' })),
      'option_not_supported',
      'channels[0].options.foo',
    ],
    [
      'channels before tagIds',
      { ...post(BASE.x, blk('linkedin', { content: a(3001) })), tagIds: ['tag_nope'] },
      'content_too_long',
      'channels[1].blocks[0].content',
    ],
    [
      'channelId before blocks',
      post({ channelId: 'ch_x_off', blocks: texts(30) }),
      'channel_disconnected',
      'channels[0].channelId',
    ],
    [
      'block count before the blocks',
      post(ch('x', { blocks: [{}, ...texts(30)] })),
      'too_many_blocks',
      'channels[0].blocks',
    ],
    [
      'blocks[0] before blocks[1]',
      post(ch('x', { blocks: [{ content: a(281) }, {}] })),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'content before mediaIds',
      post(blk('x', { content: a(281), mediaIds: ['med_nope'] })),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'each media id before the count',
      post(blk('x', { mediaIds: [...images(5), 'med_nope'] })),
      'media_not_found',
      'channels[0].blocks[0].mediaIds[5]',
    ],
    [
      'mediaIds before mediaAltText',
      post(blk('x', { mediaIds: ['med_pdf'], mediaAltText: { med_nope: 'a' } })),
      'media_type_not_accepted',
      'channels[0].blocks[0].mediaIds[0]',
    ],
    [
      'blocks before title',
      post(ch('youtube', { title: undefined, blocks: [{ content: a(5001), mediaIds: ['med_mp4'] }] })),
      'content_too_long',
      'channels[0].blocks[0].content',
    ],
    [
      'title before postType',
      post(ch('x', { title: 'T', postType: 'story' })),
      'title_not_supported',
      'channels[0].title',
    ],
    [
      'postType before options',
      post(ch('x', { postType: 'story', options: { foo: 'bar' } })),
      'post_type_not_supported',
      'channels[0].postType',
    ],
    [
      'options in the order sent',
      post(ch('reddit', { options: { nsfw: 'maybe', foo: 'bar', subreddit: 'x' } })),
      'option_invalid',
      'channels[0].options.nsfw',
    ],
    [
      'sent options before missing required ones',
      post(ch('pinterest', { options: { foo: 'bar' } })),
      'option_not_supported',
      'channels[0].options.foo',
    ],
    [
      'tagIds in order',
      { ...post(BASE.x), tagIds: ['tag_nope1', 'tag_nope2'] },
      'tag_not_found',
      'tagIds[0]',
    ],
    [
      'zod shape errors before any network rule',
      { ...post(ch('x', { channelId: 'ch_nope' })), scheduledAt: 5 },
      'validation_failed',
      'scheduledAt',
    ],
  ]);
});

describe('the normalised result', () => {
  it('has every field, normalised for storage', () => {
    const result = run({
      intent: 'schedule',
      scheduledAt: '2030-05-01T09:30:00+02:00',
      tagIds: ['tag_a', 'tag_a'],
      channels: [
        {
          channelId: 'ch_x',
          blocks: [
            { content: 'first', mediaIds: ['med_jpg'], mediaAltText: { med_jpg: 'a cat' } },
            { content: 'second' },
          ],
        },
        {
          channelId: 'ch_youtube',
          title: 'My video',
          blocks: [{ mediaIds: ['med_mp4', 'med_vtt'] }],
          options: { privacy: 'unlisted', tags: ['a', 'b'], madeForKids: 'false' },
        },
        { channelId: 'ch_instagram', postType: 'reel', blocks: [{ content: 'r', mediaIds: ['med_mov'] }] },
      ],
    });
    expect(result).toEqual({
      intent: 'schedule',
      scheduledAt: '2030-05-01T07:30:00.000Z',
      tagIds: ['tag_a'],
      channels: [
        {
          channelId: 'ch_x',
          platform: 'x',
          title: null,
          postType: null,
          options: {},
          blocks: [
            { content: 'first', mediaIds: ['med_jpg'], mediaAltText: { med_jpg: 'a cat' } },
            { content: 'second', mediaIds: [], mediaAltText: {} },
          ],
        },
        {
          channelId: 'ch_youtube',
          platform: 'youtube',
          title: 'My video',
          postType: null,
          options: { privacy: 'unlisted', tags: ['a', 'b'], madeForKids: 'false' },
          blocks: [{ content: '', mediaIds: ['med_mp4', 'med_vtt'], mediaAltText: {} }],
        },
        {
          channelId: 'ch_instagram',
          platform: 'instagram',
          title: null,
          postType: 'reel',
          options: {},
          blocks: [{ content: 'r', mediaIds: ['med_mov'], mediaAltText: {} }],
        },
      ],
    });
  });

  it('does not change the body it was given', () => {
    const raw = post(
      ch('x', { blocks: [{ content: 'a', mediaIds: ['med_jpg'] }], options: { replySettings: 'verified' } }),
    );
    const parsed = postBody.parse(raw);
    const snapshot = structuredClone(parsed);
    const result = validatePost(parsed, ctx);
    result.channels[0]?.blocks[0]?.mediaIds.push('med_png');
    expect(parsed).toEqual(snapshot);
  });
});

describe('revise body (shape only)', () => {
  it.each([
    [{ channels: [{ channelId: 'ch_x', blocks: [{ content: 'new' }] }] }, true],
    [{ channels: [{ channelId: 'ch_x', blocks: [{ content: 'new', mediaIds: [] }] }] }, false],
    [{ channels: [{ channelId: 'ch_x', blocks: [{}] }] }, false],
    [{ channels: [{ channelId: 'ch_x', blocks: [] }] }, false],
    [{ channels: [] }, false],
    [{ channels: [{ channelId: 'ch_x', blocks: [{ content: 'x' }], title: 't' }] }, false],
  ])('%j accepted: %s', (raw, ok) => {
    expect(reviseBody.safeParse(raw).success).toBe(ok);
  });
});
