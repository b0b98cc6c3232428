import type { Platform } from '../types.ts';

const MB = 1024 * 1024;

/**
 * Threads (threaded text network). Sources: spec section 8; Threads API POST /{user-id}/threads
 * (500 characters, emojis counted as their UTF-8 bytes; `reply_control` with five values;
 * `link_attachment` for text posts; carousels of 2 to 20 items); media specifications: JPEG and
 * PNG up to 8 MB, MP4 and MOV up to 1 GB (above Herald's own cap) and 5 minutes. Later blocks
 * are replies (`reply_to_id`), which carry text and files like the first. No edits; deletes with
 * `DELETE /{media-id}` (permission `threads_delete`, 100 a day).
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
        description: 'Who may reply to the post (the first block). Default everyone.',
      },
      {
        key: 'linkAttachment',
        type: 'url',
        required: false,
        allowedValues: null,
        maxLength: 2048,
        description:
          'Web address shown as a link preview card on the first block. Text-only posts only: a first block with files and a link attachment is refused.',
      },
    ],
    remoteEdit: null,
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'video/mp4', 'video/quicktime'],
    maxMedia: 20,
    maxMediaBytes: { 'image/jpeg': 8 * MB, 'image/png': 8 * MB },
    requiresMedia: false,
    commentsReadable: false,
    commentsWindowDays: null,
    commentReplies: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
