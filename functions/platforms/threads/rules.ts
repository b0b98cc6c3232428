import type { Platform } from '../types.ts';

/**
 * Threads (threaded text network). Sources: spec section 8; Threads API POST /{user-id}/threads
 * (500 characters, emojis counted as their UTF-8 bytes; `reply_control` with five values;
 * `link_attachment` for text posts; carousels up to 20 items); media: JPEG, PNG, MP4, MOV.
 */
export const platform: Platform = {
  id: 'threads',
  name: 'Threads',
  kind: 'threaded text network',
  limits: {
    maxLength: 500,
    textCounting: 'codepoints_emoji_bytes',
    maxBlocks: 25,
    continuation: 'reply',
    title: null,
    options: [
      {
        key: 'replyControl',
        type: 'choice',
        required: false,
        allowedValues: [
          'everyone',
          'accounts_you_follow',
          'mentioned_only',
          'parent_post_author_only',
          'followers_only',
        ],
        maxLength: null,
        description: 'Who may reply to the post. Default everyone.',
      },
      {
        key: 'linkAttachment',
        type: 'url',
        required: false,
        allowedValues: null,
        maxLength: 2048,
        description: 'Web address shown as a link preview card. Text-only posts only.',
      },
    ],
    remoteEdit: null,
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'video/mp4', 'video/quicktime'],
    maxMedia: 20,
    requiresMedia: false,
    commentsReadable: false,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
