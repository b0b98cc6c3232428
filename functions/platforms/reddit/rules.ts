import type { Platform } from '../types.ts';

/**
 * Reddit (forum network). Sources: spec section 8; Reddit API POST /api/submit (`sr`, `title` up
 * to 300 characters, `kind` self / image / video chosen from the attached file, `text` up to
 * 40,000 characters on every kind, `flair_id`, `flair_text`, `nsfw`, `spoiler`); comments up to
 * 10,000 characters, text only; media uploads JPEG, PNG, GIF (20 MB), MP4, MOV (1 GB), one file per
 * post (what reddit/client.ts sends; galleries are not offered). Edits: the text of text posts and
 * comments (`/api/editusertext`), never titles or media posts' text; deletes: `/api/del`.
 */
export const platform: Platform = {
  id: 'reddit',
  name: 'Reddit',
  kind: 'forum network',
  limits: {
    maxLength: 40000,
    textCounting: 'codepoints',
    maxBlocks: 6,
    continuation: 'comment',
    continuationMaxLength: 10000,
    continuationTextOnly: true,
    title: { required: true, maxLength: 300 },
    options: [
      {
        key: 'subreddit',
        type: 'text',
        required: true,
        allowedValues: null,
        maxLength: 21,
        description: 'Name of the subreddit to post in, without the "r/" prefix.',
      },
      {
        key: 'flairId',
        type: 'text',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Id of a post flair template of the subreddit. Some subreddits require a flair.',
      },
      {
        key: 'flairText',
        type: 'text',
        required: false,
        allowedValues: null,
        maxLength: 64,
        description: 'Flair text, for flair templates that let the poster edit the text.',
      },
      {
        key: 'nsfw',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Mark the post as not safe for work. Default false.',
      },
      {
        key: 'spoiler',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Mark the post as a spoiler (the subreddit must allow spoilers). Default false.',
      },
    ],
    remoteEdit: ['text'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'video/quicktime'],
    maxMedia: 1,
    maxMediaBytes: {
      'image/jpeg': 20 * 1024 * 1024,
      'image/png': 20 * 1024 * 1024,
      'image/gif': 20 * 1024 * 1024,
      'video/mp4': 1024 * 1024 * 1024,
      'video/quicktime': 1024 * 1024 * 1024,
    },
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
