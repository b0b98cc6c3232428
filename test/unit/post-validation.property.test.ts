import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { postBody } from '../../functions/core/posts/schema.ts';
import {
  parseInstant,
  type ValidatedPost,
  type ValidationContext,
  validatePost,
} from '../../functions/core/posts/validate.ts';
import { ApiError } from '../../functions/domain/errors.ts';
import { getPlatform } from '../../functions/domain/platforms/catalog.ts';
import { textLength } from '../../functions/domain/platforms/text-length.ts';
import { PLATFORM_IDS, type PlatformId } from '../../functions/domain/platforms/types.ts';
import type { MediaInfo } from '../../functions/domain/post.ts';
import { zodErrorToApiError } from '../../functions/shared/validation.ts';
import { channelRecord } from '../support/fixtures.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures (a workspace with one channel per network, a few special ones, media of every type)

const NOW = new Date('2026-06-01T12:00:00.000Z');

const record = channelRecord;

const CHANNELS = [
  ...PLATFORM_IDS.map((p) => record(`ch_${p}`, p)),
  record('ch_x_nothreads', 'x', { threadsPermitted: false }),
  record('ch_x_off', 'x', { connection: 'needs_reconnect' }),
];

const MEDIA: MediaInfo[] = [
  ['med_jpg', 'image/jpeg'],
  ['med_png', 'image/png'],
  ['med_webp', 'image/webp'],
  ['med_gif', 'image/gif'],
  ['med_mp4', 'video/mp4'],
  ['med_mov', 'video/quicktime'],
  ['med_pdf', 'application/pdf'],
  ['med_vtt', 'text/vtt'],
  ['med_srt', 'application/x-subrip'],
].map(([mediaId, mimeType]) => ({
  mediaId: mediaId as string,
  mimeType: mimeType as string,
  size: 1,
  status: 'ready',
}));
MEDIA.push({ mediaId: 'med_pending', mimeType: 'image/jpeg', size: 1, status: 'pending' });

const ctx: ValidationContext = {
  channels: new Map(CHANNELS.map((c) => [c.channelId, c])),
  media: new Map(MEDIA.map((m) => [m.mediaId, m])),
  tagIds: new Set(['tag_a', 'tag_b']),
  now: NOW,
};

const VALID_CHANNEL: Record<PlatformId, Record<string, unknown>> = {
  x: { channelId: 'ch_x', blocks: [{ content: 'one' }, { content: 'two', mediaIds: ['med_jpg'] }] },
  linkedin: { channelId: 'ch_linkedin', blocks: [{ content: 'hello', mediaIds: ['med_pdf'] }] },
  linkedin_page: {
    channelId: 'ch_linkedin_page',
    blocks: [{ content: 'hello' }],
    options: { visibility: 'PUBLIC' },
  },
  instagram: {
    channelId: 'ch_instagram',
    postType: 'reel',
    blocks: [{ content: 'hello', mediaIds: ['med_mp4'], mediaAltText: { med_mp4: 'alt' } }, { content: 'c' }],
    options: { shareToFeed: 'true', collaborators: ['a', 'b'] },
  },
  facebook: {
    channelId: 'ch_facebook',
    blocks: [{ content: 'hello' }],
    options: { link: 'https://example.com' },
  },
  threads: { channelId: 'ch_threads', blocks: [{ content: 'hello' }], options: { replyControl: 'everyone' } },
  tiktok: { channelId: 'ch_tiktok', blocks: [{ mediaIds: ['med_mov'] }], options: { privacy: 'SELF_ONLY' } },
  youtube: {
    channelId: 'ch_youtube',
    title: 'A video',
    blocks: [{ content: 'hello', mediaIds: ['med_mp4', 'med_vtt'] }],
    options: { thumbnail: 'med_png', madeForKids: 'false', tags: ['a'] },
  },
  vimeo: {
    channelId: 'ch_vimeo',
    title: 'A video',
    blocks: [{ content: 'hello', mediaIds: ['med_mp4'] }],
    options: { privacy: 'password', password: 'pw' },
  },
  pinterest: {
    channelId: 'ch_pinterest',
    title: 'Pin',
    blocks: [{ content: 'hello', mediaIds: ['med_mp4'] }],
    options: { boardId: 'board', coverImage: 'med_jpg', link: 'https://example.com/p' },
  },
  bluesky: {
    channelId: 'ch_bluesky',
    blocks: [{ content: 'hello' }, { content: 'more' }],
    options: { languages: ['en'] },
  },
  reddit: {
    channelId: 'ch_reddit',
    title: 'A title',
    blocks: [{ content: 'hello' }],
    options: { subreddit: 'test', nsfw: 'false' },
  },
};

/** What the create route does: zod, then the validator. */
const run = (raw: unknown): ValidatedPost => {
  const parsed = postBody.safeParse(raw);
  if (!parsed.success) throw zodErrorToApiError(parsed.error);
  return validatePost(parsed.data, ctx);
};

// ---------------------------------------------------------------------------------------------
// Arbitraries

const validBody = fc
  .record({
    platforms: fc.subarray([...PLATFORM_IDS], { minLength: 1 }),
    intent: fc.constantFrom('draft', 'schedule', 'now'),
    tags: fc.subarray(['tag_a', 'tag_b']),
  })
  .map(({ platforms, intent, tags }) => ({
    intent,
    ...(intent === 'schedule' ? { scheduledAt: '2030-01-01T10:00:00+02:00' } : {}),
    channels: platforms.map((p) => structuredClone(VALID_CHANNEL[p])),
    ...(tags.length > 0 ? { tagIds: tags } : {}),
  }));

/** Keys made of characters that cannot be confused with a path separator. */
const safeKey = fc.oneof(
  fc.constantFrom(
    'content',
    'mediaIds',
    'mediaAltText',
    'title',
    'postType',
    'options',
    'channelId',
    'blocks',
    'scheduledAt',
    'tagIds',
    'intent',
    'privacy',
    'password',
    'subreddit',
    'boardId',
    'link',
    'languages',
    'thumbnail',
    'shareToFeed',
    'med_jpg',
    'med_mp4',
    'foo',
  ),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
);

const interestingString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '',
    '   ',
    'true',
    'false',
    'reel',
    'story',
    'post',
    'password',
    'SELF_ONLY',
    'https://example.com',
    'ftp://x',
    '2030-01-01T10:00:00Z',
    '2030-01-01T10:00:00',
    '2026-02-30T10:00:00Z',
    '2020-01-01T00:00:00Z',
    '2026-06-01T12:00:00.000Z',
    '2030-01-01T10:00:00+15:00',
    ...CHANNELS.map((c) => c.channelId),
    ...MEDIA.map((m) => m.mediaId),
    'med_nope',
    'ch_nope',
    'tag_a',
    'tag_nope',
  ),
  fc.integer({ min: 250, max: 5100 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 70, max: 160 }).map((n) => '\u{1F600}'.repeat(n)),
);

const { value: jsonish } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    interestingString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.constantFrom(...MEDIA.map((m) => m.mediaId), 'med_nope'), { maxLength: 6 }),
    fc.array(fc.record({ content: interestingString }), { minLength: 1, maxLength: 30 }),
    fc.dictionary(safeKey, tie('value'), { maxKeys: 4 }),
  ),
}));

const ALL_OPTION_KEYS = [
  ...new Set(PLATFORM_IDS.flatMap((id) => getPlatform(id)?.limits.options.map((o) => o.key) ?? [])),
];
const mediaIdList = fc.oneof(
  fc.array(fc.constantFrom(...MEDIA.map((m) => m.mediaId), 'med_nope'), { maxLength: 22 }),
  fc.uniqueArray(fc.constantFrom(...MEDIA.map((m) => m.mediaId)), { minLength: 1 }),
  // Files most networks accept, so that the count (not the type) is what fails.
  fc.uniqueArray(fc.constantFrom('med_jpg', 'med_png', 'med_webp', 'med_gif', 'med_mp4', 'med_mov'), {
    minLength: 2,
  }),
);
const dateText = fc.oneof(
  fc.constantFrom(
    '2030-01-01T10:00:00Z',
    '2030-01-01T10:00:00+02:00',
    '2030-01-01T10:00:00',
    '2026-02-30T10:00:00Z',
    '2027-02-29T10:00:00Z',
    '2030-01-01T24:00:00Z',
    '2020-01-01T00:00:00Z',
    '2026-06-01T12:00:00.000Z',
    '2030-01-01T10:00:00+15:00',
    '2030-01-01',
  ),
  interestingString,
);

/** A value aimed at one field of a channel or block, so network rules (not only shapes) get hit. */
const targeted = fc.oneof(
  fc.record({ key: fc.constant('content' as const), value: interestingString }),
  fc.record({ key: fc.constant('mediaIds' as const), value: mediaIdList }),
  fc.record({
    key: fc.constant('mediaAltText' as const),
    value: fc.dictionary(
      fc.constantFrom(...MEDIA.map((m) => m.mediaId)),
      fc.oneof(fc.string(), fc.constant('a'.repeat(1001))),
      { maxKeys: 2 },
    ),
  }),
  fc.record({ key: fc.constant('title' as const), value: fc.oneof(interestingString, fc.constant(null)) }),
  fc.record({
    key: fc.constant('postType' as const),
    value: fc.constantFrom('reel', 'story', 'post', 'carousel', null),
  }),
  fc.record({
    key: fc.constant('channelId' as const),
    value: fc.constantFrom(...CHANNELS.map((c) => c.channelId), 'ch_nope'),
  }),
  fc.record({
    key: fc.constant('scheduledAt' as const),
    intent: fc.constantFrom('draft', 'schedule', 'now'),
    value: fc.oneof(dateText, fc.constant(null), fc.constant(undefined)),
  }),
  fc.record({
    key: fc.constant('blocks' as const),
    value: fc.array(fc.record({ content: interestingString }, { requiredKeys: [] }), {
      minLength: 1,
      maxLength: 30,
    }),
  }),
  fc.record({
    key: fc.constant('option' as const),
    option: fc.constantFrom(...ALL_OPTION_KEYS),
    value: fc.oneof(interestingString, fc.array(interestingString, { maxLength: 5 })),
  }),
);

type Targeted = typeof targeted extends fc.Arbitrary<infer T> ? T : never;

type Mutation =
  | { op: 'field'; channel: number; block: number; target: Targeted }
  | { op: 'delete'; at: number }
  | { op: 'replace'; at: number; value: unknown }
  | { op: 'insert'; at: number; key: string; value: unknown }
  | { op: 'duplicate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('field' as const), channel: fc.nat(), block: fc.nat(), target: targeted }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: jsonish }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), key: safeKey, value: jsonish }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.nat() }),
);

type Segment = string | number;
type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  isContainer(value) && !Array.isArray(value);

/** Every path to a value inside `root` (not the root itself). */
const pathsOf = (root: unknown): Segment[][] => {
  const out: Segment[][] = [];
  const walk = (value: unknown, path: Segment[]): void => {
    if (Array.isArray(value)) {
      for (const [k, item] of value.entries()) walk(item, [...path, k]);
    } else if (isContainer(value)) {
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
    if (path.length > 0) out.push(path);
  };
  walk(root, []);
  return out;
};

const containersOf = (root: unknown): Segment[][] => [
  [],
  ...pathsOf(root).filter((path) => isContainer(getAt(root, path))),
];

const getAt = (root: unknown, path: readonly Segment[]): unknown =>
  path.reduce<unknown>(
    (value, segment) => (isContainer(value) ? (value as Record<string, unknown>)[segment] : undefined),
    root,
  );

const setTargeted = (body: Record<string, unknown>, change: Extract<Mutation, { op: 'field' }>): void => {
  const { target } = change;
  if (target.key === 'scheduledAt') {
    body.intent = target.intent;
    if (target.value === undefined) delete body.scheduledAt;
    else body.scheduledAt = target.value;
    return;
  }
  const { channels } = body;
  if (!Array.isArray(channels) || channels.length === 0) return;
  const channel = channels[change.channel % channels.length];
  if (!isRecord(channel)) return;
  if (target.key === 'option') {
    if (!isRecord(channel.options)) channel.options = {};
    (channel.options as Record<string, unknown>)[target.option] = target.value;
  } else if (target.key === 'content' || target.key === 'mediaIds' || target.key === 'mediaAltText') {
    const { blocks } = channel;
    if (!Array.isArray(blocks) || blocks.length === 0) return;
    const block = blocks[change.block % blocks.length];
    if (isRecord(block)) block[target.key] = target.value;
  } else {
    channel[target.key] = target.value;
  }
};

const apply = (body: Record<string, unknown>, change: Mutation): void => {
  if (change.op === 'field') {
    setTargeted(body, change);
    return;
  }
  if (change.op === 'insert') {
    const containers = containersOf(body);
    const target = getAt(body, containers[change.at % containers.length] ?? []);
    if (Array.isArray(target)) target.push(change.value);
    else if (isRecord(target)) target[change.key] = change.value;
    return;
  }
  const paths = pathsOf(body);
  if (paths.length === 0) return;
  const path = paths[change.at % paths.length] as Segment[];
  const parent = getAt(body, path.slice(0, -1)) as Container;
  const last = path[path.length - 1] as Segment;
  if (Array.isArray(parent)) {
    const k = last as number;
    if (change.op === 'delete') parent.splice(k, 1);
    else if (change.op === 'duplicate') parent.splice(k, 0, structuredClone(parent[k]));
    else parent[k] = change.value;
  } else {
    const key = last as string;
    if (change.op === 'delete') delete parent[key];
    else if (change.op === 'duplicate') parent[key] = structuredClone(parent[key]);
    else parent[key] = change.value;
  }
};

/** `channels[1].blocks[0].mediaAltText.med_jpg` -> ['channels', 1, 'blocks', 0, 'mediaAltText', 'med_jpg']. */
const parseField = (field: string): Segment[] | null => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\[\d+\]|\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(field)) return null;
  return Array.from(field.matchAll(/([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g), (m) =>
    m[2] !== undefined ? Number(m[2]) : (m[1] as string),
  );
};

/** Keys an error may name although the body lacks them: the body's own fields and the networks' options. */
const NAMEABLE_KEYS: ReadonlySet<string> = new Set([
  'intent',
  'scheduledAt',
  'channels',
  'tagIds',
  'channelId',
  'blocks',
  'title',
  'postType',
  'options',
  'content',
  'mediaIds',
  'mediaAltText',
  ...PLATFORM_IDS.flatMap((id) => getPlatform(id)?.limits.options.map((o) => o.key) ?? []),
]);

/**
 * The field exists in the body, or names a missing key: every segment resolves until the first
 * missing one, which is a key of an object (not an array index out of range) that the body or
 * a network defines; what follows a missing key is such keys too (an option of an absent
 * `options` object).
 */
const fieldIsInBody = (body: unknown, field: string): boolean => {
  const segments = parseField(field);
  if (!segments || segments.length === 0) return false;
  let value: unknown = body;
  for (const [n, segment] of segments.entries()) {
    if (Array.isArray(value)) {
      if (typeof segment !== 'number' || segment >= value.length) return false;
      value = value[segment];
    } else if (isRecord(value)) {
      if (typeof segment !== 'string') return false;
      if (!Object.hasOwn(value, segment))
        return segments.slice(n).every((rest) => NAMEABLE_KEYS.has(rest as string));
      value = value[segment];
    } else {
      return false;
    }
  }
  return true;
};

const SUBTITLES = new Set(['text/vtt', 'application/x-subrip']);

/** What every accepted post must satisfy, checked independently of the validator's code paths. */
const assertRulesHold = (result: ValidatedPost, raw: Record<string, unknown>) => {
  expect(result.intent).toBe(raw.intent);
  if (result.intent === 'schedule') {
    expect(result.scheduledAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(result.scheduledAt as string)).toBeGreaterThan(NOW.getTime());
  } else {
    expect(result.scheduledAt).toBeNull();
  }
  const ids = result.channels.map((c) => c.channelId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(result.tagIds).size).toBe(result.tagIds.length);
  for (const tag of result.tagIds) expect(ctx.tagIds.has(tag)).toBe(true);
  for (const channel of result.channels) {
    const stored = ctx.channels.get(channel.channelId);
    expect(stored?.connection).toBe('connected');
    const platform = getPlatform(channel.platform);
    if (!platform) throw new Error('unknown platform');
    const { limits } = platform;
    expect(channel.blocks.length).toBeLessThanOrEqual(limits.maxBlocks);
    if (channel.blocks.length > 1) expect(stored?.threadsPermitted).toBe(true);
    for (const [j, block] of channel.blocks.entries()) {
      expect(block.content !== '' || block.mediaIds.length > 0).toBe(true);
      expect(textLength(block.content, limits.textCounting)).toBeLessThanOrEqual(limits.maxLength);
      expect(new Set(block.mediaIds).size).toBe(block.mediaIds.length);
      const files = block.mediaIds.map((id) => ctx.media.get(id));
      for (const file of files) {
        expect(file?.status).toBe('ready');
        expect(limits.acceptedMimeTypes).toContain(file?.mimeType);
      }
      const counted = files.filter((file) => !SUBTITLES.has(file?.mimeType ?? ''));
      expect(counted.length).toBeLessThanOrEqual(limits.maxMedia);
      if (j === 0 && limits.requiresMedia) expect(counted.length).toBeGreaterThan(0);
      for (const id of Object.keys(block.mediaAltText)) expect(block.mediaIds).toContain(id);
    }
    if (limits.title === null) expect(channel.title).toBeNull();
    else {
      if (limits.title.required) expect(channel.title?.trim()).toBeTruthy();
      expect(textLength(channel.title ?? '', 'codepoints')).toBeLessThanOrEqual(limits.title.maxLength);
    }
    if (channel.postType !== null) expect(platform.postTypes.map((t) => t.key)).toContain(channel.postType);
    const optionKeys = limits.options.map((o) => o.key);
    for (const key of Object.keys(channel.options)) expect(optionKeys).toContain(key);
    for (const option of limits.options)
      if (option.required) expect(channel.options).toHaveProperty(option.key);
  }
};

// ---------------------------------------------------------------------------------------------

describe('post validation under random mutations', () => {
  it('the unmutated bodies are valid', () => {
    fc.assert(
      fc.property(validBody, (body) => {
        assertRulesHold(run(body), body);
      }),
    );
  });

  it('a mutated body validates (and then every rule holds) or fails with an ApiError naming a field of the body', () => {
    let refused = 0;
    let accepted = 0;
    const codes = new Set<string>();
    fc.assert(
      fc.property(validBody, fc.array(mutation, { minLength: 1, maxLength: 4 }), (body, changes) => {
        const raw = structuredClone(body) as Record<string, unknown>;
        for (const change of changes) apply(raw, change);
        const before = structuredClone(raw);
        let result: ValidatedPost;
        try {
          result = run(raw);
        } catch (error) {
          refused++;
          expect(error).toBeInstanceOf(ApiError);
          codes.add((error as ApiError).code);
          const field = (error as ApiError).field;
          expect(field, (error as ApiError).message).toBeDefined();
          expect(fieldIsInBody(raw, field as string), `${(error as ApiError).code} at ${field}`).toBe(true);
          return;
        }
        accepted++;
        assertRulesHold(result, raw);
        expect(raw).toEqual(before);
      }),
      { numRuns: 1000 },
    );
    // Both outcomes are exercised, or the property says little.
    expect(refused).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(20);
    // Network rules, not only shapes, are reached (the whole catalogue of post codes is 26).
    expect(codes.size).toBeGreaterThanOrEqual(15);
    if (process.env.PRINT_CODES) console.log(refused, accepted, [...codes].sort().join(' '));
  });

  it('the field checker itself tells present, missing and invented paths apart', () => {
    const body = { channels: [{ blocks: [{ content: 'a' }], options: {} }] };
    expect(fieldIsInBody(body, 'channels[0].blocks[0].content')).toBe(true);
    expect(fieldIsInBody(body, 'channels[0].blocks[0].mediaIds')).toBe(true);
    expect(fieldIsInBody(body, 'channels[0].options.privacy')).toBe(true);
    expect(fieldIsInBody(body, 'channels[1].blocks')).toBe(false);
    expect(fieldIsInBody(body, 'channels[0].blocks[0].content.x')).toBe(false);
    expect(fieldIsInBody(body, 'channels.blocks')).toBe(false);
    expect(fieldIsInBody(body, 'channels[0].blocks[0].mediaIds[0]')).toBe(false);
    expect(fieldIsInBody(body, 'channels[0].blocks[0].text')).toBe(false);
    expect(fieldIsInBody(body, '')).toBe(false);
  });
});

describe('scheduledAt parsing', () => {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = (y: number, m: number) =>
    [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] as number;

  it('every real date-time with an offset names the same instant as Date.UTC', () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 1, max: 9998 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.integer({ min: 1, max: 31 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minute: fc.integer({ min: 0, max: 59 }),
          second: fc.integer({ min: 0, max: 59 }),
          millis: fc.integer({ min: 0, max: 999 }),
          offset: fc.integer({ min: -14 * 60, max: 14 * 60 }),
          compactOffset: fc.boolean(),
        }),
        ({ year, month, day, hour, minute, second, millis, offset, compactOffset }) => {
          const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}.${pad(millis, 3)}${
            offset === 0 && !compactOffset
              ? 'Z'
              : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}${compactOffset ? '' : ':'}${pad(Math.abs(offset) % 60)}`
          }`;
          if (day > days(year, month)) {
            expect(() => parseInstant(text, 'scheduledAt')).toThrow(
              expect.objectContaining({ code: 'invalid_date', field: 'scheduledAt' }),
            );
            return;
          }
          const expected = new Date(0);
          expected.setUTCFullYear(year, month - 1, day);
          expected.setUTCHours(hour, minute, second, millis);
          expect(parseInstant(text, 'scheduledAt').getTime()).toBe(expected.getTime() - offset * 60_000);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('any string either parses or is refused with an ApiError on the field', () => {
    const dateLike = fc
      .array(fc.constantFrom(...'0123456789-:T.Z+ tz'.split('')), { maxLength: 30 })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), dateLike), (text) => {
        try {
          expect(Number.isNaN(parseInstant(text, 'from').getTime())).toBe(false);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).field).toBe('from');
          expect(['validation_failed', 'invalid_timezone', 'invalid_date']).toContain(
            (error as ApiError).code,
          );
        }
      }),
      { numRuns: 2000 },
    );
  });
});
