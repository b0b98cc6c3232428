import type { Platform } from '../types.ts';

/**
 * Bluesky (decentralized microblog network). Sources: spec section 8; lexicon app.bsky.feed.post
 * (`text` maxGraphemes 300, `langs` at most 3 language tags, replies via `reply`),
 * app.bsky.embed.images (up to 4 images) and app.bsky.embed.video (MP4, MOV).
 */
export const platform: Platform = {
  id: 'bluesky',
  name: 'Bluesky',
  kind: 'decentralized microblog network',
  limits: {
    maxLength: 300,
    textCounting: 'graphemes',
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
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'video/mp4', 'video/quicktime'],
    maxMedia: 4,
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
