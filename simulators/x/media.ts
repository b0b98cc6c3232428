import { createHash } from 'node:crypto';
import {
  objectOf,
  type SimContext,
  type SimResponse,
  type SimRoute,
  snowflake,
} from '../framework/framework.ts';

/**
 * X's media upload (API v2), simulated: `POST /2/media/upload/initialize`, `.../{id}/append`
 * (JSON, the segment base64-encoded in `media`), `.../{id}/finalize`, `GET /2/media/upload?command=STATUS`
 * and `POST /2/media/metadata` (alt text). Like X:
 * - a segment is at most 5 MB and indexed 0–999; finalize checks the segments add up to
 *   `total_bytes`;
 * - videos and GIFs are processed after finalize: `processing_info.state` goes
 *   `pending` → `in_progress` → `succeeded` (or `failed`), one step per STATUS poll, each answer
 *   with `check_after_secs`;
 * - a media id lives 24 hours (`expires_after_secs`), then it is gone;
 * - a tweet may only carry media that is finalized, processed, unexpired and the user's own.
 *
 * Bytes are not kept (a 100 MB video would stay in memory): each segment's size and SHA-256 are.
 */

export const X_MEDIA_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'video/mp4',
  'video/quicktime',
];
export const X_MEDIA_CATEGORIES = ['tweet_image', 'tweet_gif', 'tweet_video'];
/** X's size limits per category. */
const MAX_BYTES: Record<string, number> = {
  tweet_image: 5 * 1024 * 1024,
  tweet_gif: 15 * 1024 * 1024,
  tweet_video: 512 * 1024 * 1024,
};
const MAX_SEGMENT_BYTES = 5 * 1024 * 1024;
/** 24 hours. */
const MEDIA_LIFETIME_SECONDS = 86_400;
const MAX_ALT_TEXT = 1000;

export type ProcessingState = 'pending' | 'in_progress' | 'succeeded' | 'failed';

export interface StoredMedia {
  id: string;
  mediaKey: string;
  userId: string;
  mediaType: string;
  category: string;
  totalBytes: number;
  /** Bytes and SHA-256 of each appended segment, by index. */
  segments: Map<number, { size: number; sha256: string }>;
  finalized: boolean;
  /** Null until finalize; images are `succeeded` at once. */
  state: ProcessingState | null;
  polls: number;
  createdAt: number;
  altText: string | null;
}

/** What the inspection route shows of one upload. */
export interface SimMedia {
  id: string;
  mediaType: string;
  category: string;
  totalBytes: number;
  /** Bytes received in segments. */
  receivedBytes: number;
  segments: number;
  finalized: boolean;
  state: ProcessingState | null;
  altText: string | null;
  account: string;
  /** Tweets that carry this media. */
  tweetIds: string[];
}

/** The awkward parts a test switches on (`POST /_sim/x/switches`); reset restores the defaults. */
export interface XMediaSwitches {
  /** Processing of videos and GIFs ends `failed` (X's "Unsupported video format"). */
  processingFails: boolean;
  /** STATUS polls a video/GIF takes from finalize to its end state (at least 1). */
  processingPolls: number;
  /** The `check_after_secs` X asks for between polls. */
  checkAfterSecs: number;
  /** The next append of this segment index answers 503 (once): an upload failing half-way. */
  failAppendAt: number | null;
  /** Uploads expire this many seconds after initialize (default X's 24 h). */
  lifetimeSeconds: number;
}

export const defaultMediaSwitches = (): XMediaSwitches => ({
  processingFails: false,
  processingPolls: 2,
  checkAfterSecs: 1,
  failAppendAt: null,
  lifetimeSeconds: MEDIA_LIFETIME_SECONDS,
});

const invalid = (message: string, parameters?: Record<string, unknown[]>): SimResponse => ({
  status: 400,
  body: {
    errors: [{ ...(parameters ? { parameters } : {}), message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  },
});

const notFound = (id: string): SimResponse => ({
  status: 404,
  body: {
    errors: [{ message: `Media id ${id} was not found or has expired.` }],
    title: 'Not Found Error',
    detail: `Could not find media with id: [${id}].`,
    type: 'https://api.twitter.com/2/problems/resource-not-found',
  },
});

export interface XMediaSim {
  routes: (userOf: (ctx: SimContext) => string) => SimRoute[];
  switches: XMediaSwitches;
  /**
   * Null when every id may go on a tweet by `userId`; else X's answer refusing them (unknown,
   * expired, someone else's, not finalized, not processed, or a mix X does not allow).
   */
  refuseForTweet(ids: string[], userId: string): SimResponse | null;
  attach(ids: string[], tweetId: string): void;
  /** Ends the life of every upload so far (X forgets media after 24 hours). */
  expireAll(): void;
  list(): SimMedia[];
  reset(): void;
}

export const createXMediaSim = (): XMediaSim => {
  const media = new Map<string, StoredMedia>();
  const attachedTo = new Map<string, string[]>();
  let switches = defaultMediaSwitches();

  const alive = (item: StoredMedia | undefined): item is StoredMedia =>
    item !== undefined && Date.now() < item.createdAt + switches.lifetimeSeconds * 1000;
  const expiresAfter = (item: StoredMedia) =>
    Math.max(0, Math.floor((item.createdAt + switches.lifetimeSeconds * 1000 - Date.now()) / 1000));
  const owned = (ctx: SimContext, userOf: (ctx: SimContext) => string, id: string | null | undefined) => {
    const item = id ? media.get(id) : undefined;
    return alive(item) && item.userId === userOf(ctx) ? item : null;
  };
  const processingInfo = (item: StoredMedia) => {
    if (item.state === null || item.category === 'tweet_image') return undefined;
    if (item.state === 'failed') {
      return {
        state: 'failed',
        progress_percent: 100,
        error: { code: 1, name: 'InvalidMedia', message: 'Unsupported video format' },
      };
    }
    if (item.state === 'succeeded') return { state: 'succeeded', progress_percent: 100 };
    return {
      state: item.state,
      check_after_secs: switches.checkAfterSecs,
      progress_percent: item.state === 'pending' ? 0 : 50,
    };
  };
  const mediaView = (item: StoredMedia) => {
    const info = processingInfo(item);
    return {
      id: item.id,
      media_key: `${item.category === 'tweet_image' ? 3 : item.category === 'tweet_gif' ? 16 : 7}_${item.id}`,
      expires_after_secs: expiresAfter(item),
      ...(item.finalized ? { size: item.totalBytes } : {}),
      ...(info ? { processing_info: info } : {}),
    };
  };

  const routes = (userOf: (ctx: SimContext) => string): SimRoute[] => [
    {
      method: 'POST',
      path: '/2/media/upload/initialize',
      handler: (ctx) => {
        const body = objectOf(ctx.body);
        if (!body) return invalid('Request body must be a JSON object');
        const { media_type: type, total_bytes: total, media_category: categoryRaw } = body;
        if (typeof type !== 'string' || !X_MEDIA_TYPES.includes(type)) {
          return invalid(`$.media_type: does not have a value in the enumeration [${X_MEDIA_TYPES}]`);
        }
        if (typeof total !== 'number' || !Number.isInteger(total) || total <= 0) {
          return invalid('$.total_bytes: positive integer expected');
        }
        const category =
          categoryRaw ??
          (type === 'image/gif' ? 'tweet_gif' : type.startsWith('video/') ? 'tweet_video' : 'tweet_image');
        if (typeof category !== 'string' || !X_MEDIA_CATEGORIES.includes(category)) {
          return invalid(
            `$.media_category: does not have a value in the enumeration [${X_MEDIA_CATEGORIES}]`,
          );
        }
        const fits =
          category === 'tweet_video'
            ? type.startsWith('video/')
            : category === 'tweet_gif'
              ? type === 'image/gif'
              : type.startsWith('image/');
        if (!fits) return invalid(`media_category ${category} does not match media_type ${type}`);
        if (total > (MAX_BYTES[category] as number)) {
          return invalid(`File size exceeds ${MAX_BYTES[category]} bytes for ${category}`);
        }
        const id = snowflake(1288834974657);
        const item: StoredMedia = {
          id,
          mediaKey: id,
          userId: userOf(ctx),
          mediaType: type,
          category,
          totalBytes: total,
          segments: new Map(),
          finalized: false,
          state: null,
          polls: 0,
          createdAt: Date.now(),
          altText: null,
        };
        media.set(id, item);
        return { status: 200, body: { data: mediaView(item) } };
      },
    },
    {
      method: 'POST',
      path: '/2/media/upload/:id/append',
      handler: (ctx) => {
        const item = owned(ctx, userOf, ctx.params.id);
        if (!item) return notFound(ctx.params.id as string);
        if (item.finalized) return invalid('Media upload is already finalized');
        const body = objectOf(ctx.body);
        const index = body?.segment_index;
        if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index > 999) {
          return invalid('$.segment_index: integer between 0 and 999 expected');
        }
        if (typeof body?.media !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(body.media)) {
          return invalid('$.media: base64-encoded segment expected');
        }
        if (switches.failAppendAt === index) {
          switches.failAppendAt = null;
          return {
            status: 503,
            body: {
              title: 'Service Unavailable',
              detail: 'Service Unavailable',
              type: 'about:blank',
              status: 503,
            },
          };
        }
        const bytes = Buffer.from(body.media, 'base64');
        if (bytes.length === 0) return invalid('$.media: empty segment');
        if (bytes.length > MAX_SEGMENT_BYTES) return invalid('Segment is larger than 5 MB');
        item.segments.set(index, {
          size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        });
        return {
          status: 200,
          body: { data: { expires_at: Math.floor(item.createdAt / 1000 + switches.lifetimeSeconds) } },
        };
      },
    },
    {
      method: 'POST',
      path: '/2/media/upload/:id/finalize',
      handler: (ctx) => {
        const item = owned(ctx, userOf, ctx.params.id);
        if (!item) return notFound(ctx.params.id as string);
        if (!item.finalized) {
          let received = 0;
          for (const segment of item.segments.values()) received += segment.size;
          if (received !== item.totalBytes) {
            return invalid('Segments do not add up to provided total file size.');
          }
          item.finalized = true;
          item.state = item.category === 'tweet_image' ? 'succeeded' : 'pending';
        }
        return { status: 200, body: { data: mediaView(item) } };
      },
    },
    {
      method: 'GET',
      path: '/2/media/upload',
      handler: (ctx) => {
        if (ctx.query.get('command') !== 'STATUS') return invalid('command must be STATUS');
        const id = ctx.query.get('media_id');
        const item = owned(ctx, userOf, id);
        if (!item) return notFound(id ?? '');
        if (!item.finalized) return invalid('Media upload is not finalized');
        if (item.state === 'pending' || item.state === 'in_progress') {
          item.polls += 1;
          if (item.polls >= Math.max(1, switches.processingPolls)) {
            item.state = switches.processingFails ? 'failed' : 'succeeded';
          } else item.state = 'in_progress';
        }
        return { status: 200, body: { data: mediaView(item) } };
      },
    },
    {
      method: 'POST',
      path: '/2/media/metadata',
      handler: (ctx) => {
        const body = objectOf(ctx.body);
        const id = body?.id;
        const text = objectOf(objectOf(body?.metadata)?.alt_text)?.text;
        if (typeof id !== 'string') return invalid('$.id: string expected');
        if (typeof text !== 'string' || text.length > MAX_ALT_TEXT) {
          return invalid(`$.metadata.alt_text.text: string of at most ${MAX_ALT_TEXT} characters expected`);
        }
        const item = owned(ctx, userOf, id);
        if (!item) return notFound(id);
        item.altText = text;
        return { status: 200, body: { data: { id, associated_metadata: true } } };
      },
    },
  ];

  const refuseForTweet = (ids: string[], userId: string): SimResponse | null => {
    if (ids.length === 0 || ids.length > 4) {
      return invalid('$.media.media_ids: between 1 and 4 media ids expected');
    }
    const items: StoredMedia[] = [];
    for (const id of ids) {
      const item = media.get(id);
      if (!alive(item) || item.userId !== userId) {
        return invalid('Your media IDs are invalid.', { 'media.media_ids': ids });
      }
      if (!item.finalized || item.state !== 'succeeded') {
        return invalid(
          `Media id ${id} is not ready to be attached: its upload or processing has not succeeded.`,
          {
            'media.media_ids': ids,
          },
        );
      }
      items.push(item);
    }
    if (items.length > 1 && items.some((item) => item.category !== 'tweet_image')) {
      return invalid('A tweet carries up to 4 images, or one GIF, or one video.', { 'media.media_ids': ids });
    }
    return null;
  };

  return {
    routes,
    get switches() {
      return switches;
    },
    refuseForTweet,
    attach: (ids, tweetId) => {
      for (const id of ids) attachedTo.set(id, [...(attachedTo.get(id) ?? []), tweetId]);
    },
    expireAll: () => {
      for (const item of media.values()) item.createdAt = Date.now() - switches.lifetimeSeconds * 1000 - 1;
    },
    list: () =>
      [...media.values()].map((item) => {
        let received = 0;
        for (const segment of item.segments.values()) received += segment.size;
        return {
          id: item.id,
          mediaType: item.mediaType,
          category: item.category,
          totalBytes: item.totalBytes,
          receivedBytes: received,
          segments: item.segments.size,
          finalized: item.finalized,
          state: item.state,
          altText: item.altText,
          account: item.userId,
          tweetIds: attachedTo.get(item.id) ?? [],
        };
      }),
    reset: () => {
      media.clear();
      attachedTo.clear();
      switches = defaultMediaSwitches();
    },
  };
};
