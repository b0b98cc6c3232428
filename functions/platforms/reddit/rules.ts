import type { Platform } from '../types.ts';

/**
 * Reddit (forum network). Sources: spec section 8; Reddit API POST /api/submit (`sr`, `title` up
 * to 300 characters, `kind` self / image / video chosen from the attached files, `flair_id`,
 * `flair_text`, `nsfw`, `spoiler`); media uploads JPEG, PNG, GIF, MP4, MOV.
 */
export const platform: Platform = {
  id: 'reddit',
  name: 'Reddit',
  kind: 'forum network',
  limits: {
    maxLength: 10000,
    textCounting: 'codepoints',
    maxBlocks: 6,
    continuation: 'comment',
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
    maxMedia: 20,
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
  },
  postTypes: [],
  supportsMetrics: true,
};
