import type { Platform } from '../types.ts';

/**
 * Reddit (forum network). Sources: spec section 8; Reddit API POST /api/submit (`sr`, `title` up
 * to 300 characters, `kind` self / image / video chosen from the attached file, `text` on every
 * kind, `flair_id`, `flair_text`, `nsfw`, `spoiler`) and POST /api/submit_gallery_post.json (2 to
 * 20 images); comments up to 10,000 characters, text only; media uploads JPEG, PNG, GIF (20 MB),
 * MP4, MOV (1 GB; a video goes alone). Edits: the text of text posts and comments
 * (`/api/editusertext`), never titles or media posts' text; deletes: `/api/del`.
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
      {
        key: 'link',
        type: 'url',
        required: false,
        allowedValues: null,
        maxLength: 2000,
        description:
          'Makes the post a link post to this URL (the text goes with it as its body). Not with files; its text cannot be revised.',
      },
    ],
    remoteEdit: ['text'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'video/quicktime'],
    maxMedia: 20,
    soleMediaTypes: ['video/mp4', 'video/quicktime'],
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
    // `POST /api/comment` takes markdown text up to 10,000 characters, no files.
    commentReplies: { maxLength: 10000, maxMedia: 0, acceptedMimeTypes: [] },
  },
  postTypes: [],
  supportsMetrics: true,
};
