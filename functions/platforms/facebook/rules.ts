import type { Platform } from '../types.ts';

/**
 * Facebook Page (social network, page), as the Graph API client (facebook/client.ts) publishes:
 * POST /{page-id}/feed (`message`, `link`), one photo through /{page-id}/photos (pulled from a
 * URL, with `alt_text_custom`), several photos unpublished then attached to a feed post, one video
 * through /{page-id}/videos (`file_url`, pulled). Comments are the continuation, text only. Post
 * and comment text can be edited; posts and comments can be deleted. Facebook's caps (10 MB a
 * photo, 1 GB a video sent by URL) are not below Herald's own, so no `maxMediaBytes`. Reels and stories are not
 * published by the client, so they are not offered.
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
  },
  postTypes: [],
  supportsMetrics: true,
};
