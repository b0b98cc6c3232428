import type { Platform } from '../types.ts';

/** The largest image `app.bsky.embed.images` takes (lexicon `maxSize`, "formerly 1 MB"). */
export const BLUESKY_IMAGE_MAX_BYTES = 2_000_000;

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];

/**
 * Bluesky (decentralized microblog network). Sources: spec section 8; lexicon app.bsky.feed.post
 * (`text` maxGraphemes 300 and maxLength 3000 UTF-8 bytes, `langs` at most 3 language tags,
 * replies via `reply`), app.bsky.embed.images (up to 4 images of at most 2,000,000 bytes each)
 * and app.bsky.embed.video (`video/mp4` only).
 */
export const platform: Platform = {
  id: 'bluesky',
  name: 'Bluesky',
  kind: 'decentralized microblog network',
  limits: {
    maxLength: 300,
    textCounting: 'graphemes',
    maxBytes: 3000,
    maxBlocks: 25,
    continuation: 'reply',
    title: null,
    options: [
      {
        key: 'languages',
        type: 'list',
        required: false,
        allowedValues: null,
        maxLength: 3,
        description: 'Languages of the text as BCP 47 tags, for example "en" or "pt-BR", at most 3.',
      },
    ],
    remoteEdit: null,
    supportsRemoteDelete: true,
    acceptedMimeTypes: [...IMAGE_TYPES, 'video/mp4'],
    maxMedia: 4,
    // Images: app.bsky.embed.images' blob maxSize; video: app.bsky.embed.video's (100,000,000 bytes).
    maxMediaBytes: {
      ...Object.fromEntries(IMAGE_TYPES.map((type) => [type, BLUESKY_IMAGE_MAX_BYTES])),
      'video/mp4': 100_000_000,
    },
    // A post embeds either images (app.bsky.embed.images) or one video (app.bsky.embed.video).
    soleMediaTypes: ['video/mp4'],
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
    // A reply is a post record: the same 300 graphemes and 3,000 bytes, up to four images.
    commentReplies: { maxLength: 300, maxBytes: 3000, maxMedia: 4, acceptedMimeTypes: [...IMAGE_TYPES] },
  },
  postTypes: [],
  supportsMetrics: true,
};
