import type { Platform } from '../types.ts';

/**
 * X (short-post network). Sources: spec section 8; X API v2 POST /2/tweets (`reply_settings`);
 * X media upload formats (JPEG, PNG, WebP, GIF; MP4/MOV video); twitter-text weighted length.
 */
export const platform: Platform = {
  id: 'x',
  name: 'X',
  kind: 'short-post network',
  limits: {
    maxLength: 280,
    textCounting: 'weighted',
    maxBlocks: 25,
    continuation: 'reply',
    title: null,
    options: [
      {
        key: 'replySettings',
        type: 'choice',
        required: false,
        allowedValues: ['following', 'mentionedUsers', 'subscribers', 'verified'],
        maxLength: null,
        description:
          'Who may reply to the first post: accounts you follow, accounts mentioned in the post, your subscribers or verified accounts. Leave out to let everyone reply.',
      },
    ],
    remoteEdit: null,
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'video/mp4', 'video/quicktime'],
    maxMedia: 4,
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: 7,
  },
  postTypes: [],
  supportsMetrics: true,
};
