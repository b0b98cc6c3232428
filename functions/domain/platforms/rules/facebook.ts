import type { Platform } from '../types.ts';

/**
 * Facebook Page (social network, page), as the Graph API client (facebook/client.ts) publishes:
 * POST /{page-id}/feed (`message`, `link`), one photo through /{page-id}/photos (pulled from a
 * URL, with `alt_text_custom`), several photos unpublished then attached to a feed post, one video
 * through /{page-id}/videos (`file_url`, pulled); reels through /{page-id}/video_reels and stories
 * through /{page-id}/photo_stories and /video_stories (upload sessions: start, the file pulled from
 * its URL, finish). Comments are the continuation, text only. Post
 * and comment text can be edited; posts and comments can be deleted. Facebook's caps (10 MB a
 * photo, 1 GB a video sent by URL) are not below Herald's own, so no `maxMediaBytes`.
 */
export const platform: Platform = {
  id: 'facebook',
  name: 'Facebook',
  kind: 'social network, page',
  limits: {
    maxLength: 63206,
    textCounting: 'codepoints',
    maxBlocks: 3,
    continuation: 'comment',
    continuationTextOnly: true,
    title: null,
    options: [
      {
        key: 'link',
        type: 'url',
        required: false,
        allowedValues: null,
        maxLength: 2048,
        description:
          'Web address shared with the post and shown as a link preview. Ignored when files are attached.',
      },
    ],
    remoteEdit: ['text'],
    supportsRemoteDelete: true,
    acceptedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4', 'video/quicktime'],
    maxMedia: 10,
    soleMediaTypes: ['video/mp4', 'video/quicktime'],
    requiresMedia: false,
    commentsReadable: true,
    commentsWindowDays: null,
    // A comment's `message`, text only: Facebook's comment box takes 8,000 characters.
    commentReplies: { maxLength: 8000, maxMedia: 0, acceptedMimeTypes: [] },
  },
  postTypes: [
    {
      key: 'post',
      name: 'Post',
      description: 'A post on the Page timeline, with or without files (the default).',
    },
    {
      key: 'reel',
      name: 'Reel',
      description:
        'One vertical video published as a Facebook Reel, with the block text as its description; comments may follow.',
    },
    {
      key: 'story',
      name: 'Story',
      description:
        'One image or video shown as a Page story for 24 hours. Stories carry no text and cannot be edited.',
    },
  ],
  supportsMetrics: true,
};
