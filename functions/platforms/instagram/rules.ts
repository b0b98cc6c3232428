import type { Platform } from '../types.ts';

/**
 * Instagram professional account (photo network). Sources: spec section 8; Instagram Graph API
 * POST /{ig-user-id}/media (`media_type` REELS / STORIES / CAROUSEL, `share_to_feed`,
 * `collaborators` (up to 3 usernames), `location_id`); image specification: JPEG only;
 * video: MP4 or MOV. Several files on a feed post make a carousel.
 */
export const platform: Platform = {
  id: 'instagram',
  name: 'Instagram',
  kind: 'photo network',
  limits: {
    maxLength: 2200,
    textCounting: 'codepoints',
    maxBlocks: 3,
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
    requiresMedia: true,
    commentsReadable: true,
    commentsWindowDays: null,
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
