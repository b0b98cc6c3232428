import type { Platform } from '../types.ts';

/**
 * Instagram professional account (photo network), as the client (instagram/client.ts) publishes
 * it. Sources: spec section 8; Instagram API with Instagram Login, POST /{ig-user-id}/media
 * (`media_type` REELS / STORIES / CAROUSEL, `share_to_feed`, `collaborators` (up to 3 usernames),
 * `location_id`, `alt_text` on images); image specification: JPEG only, at most 8 MiB (error
 * 2207004); video: MP4 or MOV. Several files on a feed post make a carousel; one video a reel.
 * The later blocks are comments on the post, text only. No caption or comment edits through
 * the API, and no post deletion with Instagram Login (Facebook Login only).
 */
export const platform: Platform = {
  id: 'instagram',
  name: 'Instagram',
  kind: 'photo network',
  limits: {
    maxLength: 2200,
    textCounting: 'codepoints',
    maxBlocks: 3,
    continuationTextOnly: true,
    continuation: 'comment',
    title: null,
    options: [
      {
        key: 'shareToFeed',
        type: 'boolean',
        required: false,
        allowedValues: null,
        maxLength: null,
        description:
          'Reels only: also show the reel in the profile feed, not only in the Reels tab. Default true.',
      },
      {
        key: 'collaborators',
        type: 'list',
        required: false,
        allowedValues: null,
        maxLength: 3,
        description:
          'Instagram usernames invited as collaborators (feed posts and reels, not stories), at most 3.',
      },
      {
        key: 'locationId',
        type: 'text',
        required: false,
        allowedValues: null,
        maxLength: null,
        description: 'Id of the Facebook Page of a place, used to tag the post with that location.',
      },
    ],
    remoteEdit: null,
    supportsRemoteDelete: false,
    acceptedMimeTypes: ['image/jpeg', 'video/mp4', 'video/quicktime'],
    maxMedia: 10,
    maxMediaBytes: { 'image/jpeg': 8 * 1024 * 1024 },
    requiresMedia: true,
    commentsReadable: true,
    commentsWindowDays: null,
    // Graph API replies (`POST /{ig-comment-id}/replies {message}`) carry text only.
    commentReplies: { maxLength: 2200, maxMedia: 0, acceptedMimeTypes: [] },
  },
  postTypes: [
    {
      key: 'post',
      name: 'Post',
      description: 'A feed post: one image, or up to 10 images and videos shown as a carousel.',
    },
    { key: 'reel', name: 'Reel', description: 'One vertical video shown in the Reels tab.' },
    { key: 'story', name: 'Story', description: 'One image or video that disappears after 24 hours.' },
  ],
  supportsMetrics: true,
};
