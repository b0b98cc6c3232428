import type { Platform } from '../types.ts';

const MB = 1024 * 1024;

/**
 * X (short-post network). Sources: spec section 8; X API v2 POST /2/tweets (`reply_settings`);
 * X media upload (JPEG, PNG, WebP up to 5 MB as `tweet_image`; GIF up to 15 MB as `tweet_gif`;
 * MP4/MOV video up to 512 MB as `tweet_video`; a post takes up to 4 images, or one GIF, or one
 * video); twitter-text weighted length.
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
    maxMediaBytes: {
      'image/jpeg': 5 * MB,
      'image/png': 5 * MB,
      'image/webp': 5 * MB,
      'image/gif': 15 * MB,
      'video/mp4': 512 * MB,
      'video/quicktime': 512 * MB,
    },
    soleMediaTypes: ['image/gif', 'video/mp4', 'video/quicktime'],
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: 7,
    // Replies are posts: X's limits, images only (one to four).
    commentReplies: {
      maxLength: 280,
      maxMedia: 4,
      acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
    },
  },
  postTypes: [],
  supportsMetrics: true,
};
